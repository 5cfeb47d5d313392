package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.protocol.Refusal;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shapes of merging that statements over several partitions take — DISTINCT over groups,
 * aggregates over no rows, HAVING without groups, DISTINCT aggregates of constants, names that
 * an alias and a column share, expressions the router weighs — each run through Lutra on three
 * placements (every table by hash; by lookup; hash beside replicated tables, one placed by
 * another column) and on one MariaDB holding the same rows, NULLs and an empty table included.
 * Answers must agree (labels, rows: in order where the statement's ORDER BY fixes it), or both
 * sides fail with the same error; a refusal is a failure here: each of these one MariaDB answers.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MergeShapesIT {
    private static final String COLUMNS = "(col0 INT, col1 INT, col2 INT)";
    private static final Map<String, String> PLACEMENTS = placements();
    private static final List<String> ROWS = List.of(
            "INSERT INTO t VALUES (1, 10, 100), (2, 20, 100), (3, NULL, 200), (4, 10, NULL), (5, 20, 100), (6, 30, 300),"
                    + " (7, NULL, NULL), (8, 10, 100), (9, 40, 400), (10, 10, 100), (11, -5, 0), (12, 20, 200)",
            "INSERT INTO tab0 VALUES (97, 1, 99), (15, 81, 47), (87, 21, 10), (NULL, 21, NULL)",
            "INSERT INTO tab1 VALUES (51, 14, 96), (85, 5, 59), (91, 47, 68), (52, NULL, 96)",
            "INSERT INTO tab2 VALUES (64, 77, 40), (75, 67, 58), (46, 51, 23), (47, 51, NULL)",
            "INSERT INTO r VALUES (64, 77, 40), (75, 67, 58), (46, 51, 23)");

    private final Map<String, Differential> sides = new LinkedHashMap<>();

    private static Map<String, String> placements() {
        var out = new LinkedHashMap<String, String>();
        String hash = "PARTITION BY hash(col0) ON (p0, p1, p2, p3)";
        String lookup = "PARTITION BY lookup(col0) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(col0)";
        out.put("hash", schema(hash, hash, hash, hash));
        out.put("lookup", schema(lookup, lookup, lookup, lookup));
        out.put("mixed", schema(hash, "REPLICATED", "PARTITION BY hash(col1) ON (p0, p1, p2, p3)", "REPLICATED"));
        return out;
    }

    /** Tables t, tab0, tab1, tab2 and the empty e (placed as t) as given, r (for subqueries) replicated. */
    private static String schema(String t, String tab0, String tab1, String tab2) {
        return "CREATE TABLE t " + COLUMNS + " " + t + ";\n"
                + "CREATE TABLE tab0 " + COLUMNS + " " + tab0 + ";\n"
                + "CREATE TABLE tab1 " + COLUMNS + " " + tab1 + ";\n"
                + "CREATE TABLE tab2 " + COLUMNS + " " + tab2 + ";\n"
                + "CREATE TABLE e " + COLUMNS + " " + t + ";\n"
                + "CREATE TABLE r " + COLUMNS + " REPLICATED;\n";
    }

    @BeforeAll
    void start(Shards shards) throws Exception {
        for (var p : PLACEMENTS.entrySet()) {
            var d = new Differential(shards, "merge_" + p.getKey(), p.getValue());
            sides.put(p.getKey(), d);
            for (String sql : ROWS) d.both(sql);
        }
    }

    @AfterAll
    void stop() throws Exception {
        for (var d : sides.values()) d.close();
    }

    /** DISTINCT over rows each partition answers for its own groups: applied again after the merge, in every plan shape. */
    @Test
    void distinctIsAppliedAgainAfterTheMerge() throws SQLException {
        check("SELECT DISTINCT 0 FROM t GROUP BY col0",
                "SELECT DISTINCT -97 AS c FROM t GROUP BY col0",
                "SELECT DISTINCT -col0 + col0 FROM t GROUP BY col0",
                "SELECT DISTINCT + 6 FROM t GROUP BY col2, col0",
                "SELECT DISTINCT 0 FROM e GROUP BY col0",
                "SELECT DISTINCT col1 FROM t GROUP BY col0",
                "SELECT DISTINCT col1 FROM t GROUP BY col0 ORDER BY col1 DESC LIMIT 2",
                "SELECT DISTINCT col1 FROM t GROUP BY col0 ORDER BY 1 LIMIT 2 OFFSET 1",
                "SELECT DISTINCT col1, COUNT(*) FROM t GROUP BY col0",
                "SELECT DISTINCT COUNT(*) FROM t GROUP BY col0",
                "SELECT DISTINCT COUNT(*) FROM t GROUP BY col1",
                "SELECT DISTINCT COUNT(*), MAX(col2) FROM t GROUP BY col1 ORDER BY 1, 2",
                "SELECT DISTINCT MIN(col1) FROM t GROUP BY col2",
                "SELECT DISTINCT SUM(col1) * 0 FROM t GROUP BY col2 ORDER BY 1",
                "SELECT DISTINCT col1 + 0 FROM t GROUP BY col0 HAVING COUNT(*) > 0",
                "SELECT DISTINCT 1 FROM t GROUP BY col0 HAVING col0 > 100",
                "SELECT DISTINCT col1 FROM t GROUP BY col0, col1 HAVING col1 > 10 ORDER BY col1",
                "SELECT DISTINCT COUNT(*) FROM t",
                "SELECT DISTINCT col1, COUNT(*) FROM t GROUP BY col1 WITH ROLLUP",
                "SELECT DISTINCT COUNT(*) FROM t GROUP BY col1 WITH ROLLUP",
                "SELECT DISTINCT col1, GROUP_CONCAT(col2) FROM t GROUP BY col0",
                "SELECT DISTINCT - col2, 'a' AS col2 FROM t GROUP BY t.col2 HAVING COUNT(*) > 1 ORDER BY 1 DESC, 2",
                "SELECT 'a', CONCAT(col1, 'x') AS s, COUNT(*) FROM t GROUP BY col1 ORDER BY s DESC, 3",
                "SELECT DISTINCT GROUP_CONCAT(col2 ORDER BY col2) FROM t GROUP BY col1",
                "SELECT DISTINCT COUNT(*) FROM e",
                "SELECT DISTINCT 0 FROM t",
                "SELECT DISTINCT 0 FROM e",
                "SELECT DISTINCT col0 FROM t",
                "SELECT DISTINCT col1 FROM t WHERE col0 > 2 ORDER BY col1 LIMIT 2",
                "SELECT DISTINCT col1 % 3, col2 > 100 FROM tab1 GROUP BY col0, col1",
                "SELECT DISTINCT col1 * 2 AS col1 FROM tab0 GROUP BY col1, col2",
                "SELECT DISTINCT 1 FROM tab1 GROUP BY col1",
                "SELECT DISTINCT col0 FROM tab0",
                "SELECT col0, COUNT(*) FROM tab0 GROUP BY col0",
                "SELECT DISTINCT col1 FROM tab1",
                "SELECT DISTINCT col1, COUNT(*) FROM tab1 GROUP BY col1",
                "SELECT DISTINCT t.col1 FROM t JOIN r ON r.col0 = t.col0 + 60 GROUP BY t.col0",
                "SELECT DISTINCT 3 FROM t WHERE col1 IN (SELECT col1 FROM tab2) GROUP BY col0");
    }

    /** Scalar aggregates whose shards group by a DISTINCT argument: over no rows the other items are MySQL's, not NULL. */
    @Test
    void aConstantBesideAnAggregateOverNoRowsKeepsItsValue() throws SQLException {
        check("SELECT -71 AS c, SUM(DISTINCT -col0) FROM t WHERE NOT NULL = NULL",
                "SELECT -71 AS c, COUNT(DISTINCT col1) FROM t WHERE col0 > 100",
                "SELECT -71 AS c, COUNT(DISTINCT col1), COALESCE(col2, 5), col1 + 1 FROM t WHERE col0 > 100",
                "SELECT 'x', AVG(DISTINCT col1), COUNT(*), SUM(col2) FROM e",
                "SELECT COUNT(DISTINCT col1) FROM t WHERE 0 HAVING COUNT(*) = 0",
                "SELECT COUNT(DISTINCT col1), BIT_AND(col1), BIT_OR(col1), MIN(col2), MAX(col2) FROM t WHERE 0",
                "SELECT COUNT(DISTINCT 62), SUM(DISTINCT 5) + 1 FROM e",
                "SELECT -71, COUNT(*) FROM t WHERE col0 IN (NULL)",
                "SELECT -71, SUM(DISTINCT col1) FROM t WHERE col0 IN (NULL)",
                "SELECT -71 AS c, SUM(DISTINCT -col0) FROM t",
                "SELECT 2 * 3, COUNT(DISTINCT col2) FROM t WHERE col1 > 15",
                "SELECT col1, COUNT(*) FROM t WHERE col1 = -5",
                "SELECT COALESCE(col2, 5), col0 + 1, SUM(col1) FROM t WHERE col1 = -5",
                "SELECT col2, COUNT(DISTINCT col1) FROM t WHERE col1 = -5",
                "SELECT -71 AS c, col1, MAX(col2) FROM t WHERE col1 < 0 ORDER BY MAX(col2)");
    }

    /** HAVING without GROUP BY and without aggregates filters rows (MySQL's extension), on every partition alike. */
    @Test
    void havingWithoutGroupingFiltersRows() throws SQLException {
        check("SELECT 1 FROM t WHERE col0 IN (1, 2, 3) HAVING 1 = 1",
                "SELECT 1 FROM t HAVING 1 = 1",
                "SELECT col1 FROM t HAVING col1 > 10",
                "SELECT col1 AS c FROM t HAVING c > 10 ORDER BY c, col0 LIMIT 3",
                "SELECT DISTINCT col1 AS c FROM t HAVING c > 10",
                "SELECT col1 FROM e HAVING col1 > 10",
                "SELECT 1 FROM t WHERE col0 IN (1, 2, 3) HAVING 1 = 1 ORDER BY 1 LIMIT 2",
                "SELECT 1 FROM t ORDER BY COUNT(*)",
                "SELECT COUNT(*) FROM t HAVING MAX(col2) > 5",
                "SELECT 1 FROM t HAVING COUNT(*) > 100",
                "SELECT t.col1 FROM t JOIN r ON r.col1 = t.col1 + 37 HAVING t.col1 > 10",
                // a column ORDER BY adds to the shards' select list is no name for HAVING (one MariaDB: 1054)
                "SELECT -58 FROM t HAVING t.col1 ORDER BY col1, col0",
                "SELECT -58 FROM t HAVING col1 > 10 ORDER BY col1, col0",
                "SELECT DISTINCT -58 FROM t HAVING col1 > 10 ORDER BY col1",
                "SELECT col1 FROM t HAVING col1 > 10 ORDER BY col2, col0",
                "SELECT col1 AS c FROM t HAVING c > 10 ORDER BY col2, col0");
    }

    /** DISTINCT aggregates of constants: the shards group by the argument's position, never by a literal read as one. */
    @Test
    void distinctAggregatesOfConstantsAnswer() throws SQLException {
        check("SELECT COUNT(DISTINCT 62) FROM t",
                "SELECT SUM(DISTINCT -5) * COUNT(*) + 79 FROM t",
                "SELECT - SUM(DISTINCT + 54) FROM t",
                "SELECT COUNT(DISTINCT 62), COUNT(*) FROM t GROUP BY col1",
                "SELECT COUNT(DISTINCT 'a') FROM t",
                "SELECT COUNT(DISTINCT NULL) FROM t",
                "SELECT SUM(DISTINCT 2.5) FROM t",
                "SELECT AVG(DISTINCT -5) FROM e",
                "SELECT COUNT(DISTINCT col1 - col1) FROM t",
                "SELECT col1, SUM(DISTINCT 3) FROM t GROUP BY col1",
                "SELECT COUNT(DISTINCT (SELECT MAX(col0) FROM r)) FROM t");
    }

    /** Names shared by an alias and a column resolve in GROUP BY, HAVING and ORDER BY as one MariaDB resolves them. */
    @Test
    void namesThatAnAliasAndAColumnShareResolveAsMySql() throws SQLException {
        check("SELECT col1 AS col2, COUNT(DISTINCT col0) AS col1 FROM t GROUP BY col1, t.col2 HAVING col2 < 150",
                "SELECT col1 AS col2 FROM t GROUP BY col1, t.col2 HAVING col2 < 150");
        check("SELECT col1 AS col0 FROM t GROUP BY col0",
                "SELECT col1 AS col0, COUNT(*) FROM t GROUP BY col0",
                "SELECT MAX(col1) AS col2, COUNT(*) FROM t GROUP BY col2",
                "SELECT col2 + 0 AS col1, COUNT(*) FROM t GROUP BY col1, col2",
                "SELECT col2 AS col1, SUM(DISTINCT col0) FROM t GROUP BY col1, col2",
                "SELECT col1, SUM(DISTINCT col1), col0 AS col1 FROM t GROUP BY col0, t.col1",
                "SELECT MIN(col2) AS col1, SUM(DISTINCT col0) FROM t GROUP BY col1",
                "SELECT SUM(DISTINCT col1) AS col2 FROM t GROUP BY col2, col1",
                "SELECT col0 + 1 AS col0 FROM t GROUP BY col0",
                "SELECT col1 AS col0, COUNT(*) FROM t GROUP BY col0 HAVING col0 > 5",
                "SELECT col1 AS col0, COUNT(*) FROM t GROUP BY col1 HAVING col0 > 10",
                "SELECT col1 AS k, COUNT(*) FROM t GROUP BY k HAVING k > 10",
                "SELECT col1 + 1 AS k, COUNT(*) FROM t GROUP BY k ORDER BY k",
                "SELECT col2 + SUM(col1) FROM t GROUP BY col2",
                "SELECT col1 AS col2 FROM t ORDER BY col2, col0",
                "SELECT col1 AS col2, col2 AS x FROM t ORDER BY col2, x, col0",
                "SELECT col1 AS col2 FROM t ORDER BY col2, t.col2, col0",
                "SELECT col1 AS col2 FROM t GROUP BY col0 HAVING col2 > 15 ORDER BY t.col2, col0",
                "SELECT col1 AS col2 FROM t HAVING col2 > 15 ORDER BY t.col2, col0",
                "SELECT COUNT(*) AS c FROM t GROUP BY c",
                "SELECT col1, COUNT(*) FROM t GROUP BY 2",
                "SELECT col1, COUNT(*) FROM t GROUP BY 3",
                "SELECT col0, col1 AS col0 FROM t GROUP BY col0",
                "SELECT col1 AS col0, col1 + 1 AS col0 FROM t GROUP BY col0",
                "SELECT cor0.col1 + cor0.col2 AS col2 FROM tab0 AS cor0 GROUP BY cor0.col1, col2 ORDER BY col2",
                "SELECT col1 AS col0, MAX(col2) FROM tab1 GROUP BY col0 ORDER BY 1, 2",
                // two GROUP BY columns HAVING's name finds, one by its name and one by the alias of its select item: 1052
                "SELECT col2 AS c2, col1 AS col2 FROM t GROUP BY col2, 2 HAVING col2 = 10",
                "SELECT col1 AS col2 FROM t GROUP BY col2, col1 HAVING col2 = 10",
                "SELECT col2 AS col1, COUNT(*) FROM t GROUP BY col1, col2 HAVING col1 = 100",
                "SELECT col1 AS c1, COUNT(*) AS col2 FROM t GROUP BY 1 HAVING col2 > 1",
                "SELECT col2 AS c2, col1 AS col2 FROM t GROUP BY col2 HAVING col2 = 100",
                "SELECT col1 AS col2, COUNT(*) FROM t GROUP BY col1, col1 HAVING col2 = 10",
                "SELECT t.col2, COALESCE(t.col1, 7) AS col2 FROM t GROUP BY 1, COALESCE(t.col1, 7) HAVING col2 > 0",
                "SELECT col1 + 0 AS col2 FROM t GROUP BY col2, col1 + 0 HAVING col2 > 0",
                "SELECT col1 + 0 AS col2 FROM t GROUP BY col2, col1 + 1 HAVING col2 > 0 ORDER BY 1",
                // a GROUP BY column is named as the first select item of that column: t.col1 beside t.col1, col1 AS col2 is col1
                "SELECT MIN(col2), t.col1, col1 AS col2 FROM t GROUP BY t.col1, col2 HAVING col2 < 300",
                "SELECT MIN(col2), col1 AS col2 FROM t GROUP BY t.col1, col2 HAVING col2 < 300",
                "SELECT MIN(col2), t.col1, col1 AS col2 FROM t GROUP BY 3, col2 HAVING col2 < 300",
                // a column under parentheses or unary pluses is a column item (MariaDB's parser drops them): 1052 beside another
                "SELECT col1, (col2) AS col1 FROM t GROUP BY col1",
                "SELECT col1, + col2 AS col1 FROM t ORDER BY col1",
                "SELECT (col2) AS col1, col1 FROM t GROUP BY col1, col2 HAVING col1 > 0",
                "SELECT col1, ((col1)) AS col1, COUNT(*) FROM t GROUP BY col1",
                "SELECT (col2) AS c, COUNT(*) FROM t GROUP BY c HAVING c > 0 ORDER BY c");
    }

    /**
     * A column in HAVING outside aggregates names a select item's column or a GROUP BY column on its own; an expression
     * spelled as a select item's is no match for its columns (one MariaDB: 1054 Unknown column in 'HAVING').
     */
    @Test
    void eachColumnInHavingResolvesOnItsOwn() throws SQLException {
        check("SELECT cor0.col0 % col1 FROM t AS cor0 HAVING cor0.col0 % col1 + SUM(cor0.col2) > -5",
                "SELECT col0 % col1 AS c0, -68 AS c1 FROM t GROUP BY c0 HAVING col0 % col1 + SUM(col2) > -5",
                "SELECT col0 % col1 FROM t GROUP BY col0 % col1 HAVING col0 % col1 > 0",
                "SELECT SUM(col2) FROM t HAVING SUM(col2) + col0 > 0",
                "SELECT col1 + 0 AS x, COUNT(*) FROM t GROUP BY col1 HAVING col1 + 0 > 10",
                "SELECT col1 + 0 AS x, COUNT(*) FROM t GROUP BY col1 HAVING x + col1 > 10",
                "SELECT col1, col2 + col1 AS s FROM t GROUP BY col1, col2 HAVING col2 + col1 > 10");
    }

    /** Integer arithmetic over merged BIT_OR/BIT_AND/BIT_XOR (BIGINT UNSIGNED) and COUNT is range-checked as MariaDB checks it (1690). */
    @Test
    void integerArithmeticOverMergedGroupsIsRangeChecked() throws SQLException {
        check("SELECT BIT_OR(col0) * -40 FROM t",
                "SELECT 0 - BIT_OR(col0) FROM t",
                "SELECT COUNT(*) - BIT_OR(col0) FROM t",
                "SELECT BIT_OR(col0) - COUNT(*) FROM t",
                "SELECT - BIT_AND(NULL) FROM t",
                "SELECT -BIT_OR(col0) FROM t",
                "SELECT BIT_OR(col0) + 1.5 FROM t",
                "SELECT (BIT_OR(col0) + 1.0) - 100 FROM t",
                "SELECT BIT_AND(NULL) - COUNT(*) FROM t",
                "SELECT BIT_AND(NULL) + COUNT(*) FROM t",
                "SELECT COUNT(*) * 9223372036854775807 FROM t",
                "SELECT col1, BIT_OR(col0) - 5 FROM t GROUP BY col1",
                "SELECT col1, BIT_XOR(col0) * 2 FROM t GROUP BY col1",
                "SELECT col1 FROM t GROUP BY col1 HAVING BIT_OR(col0) - 3 > 0",
                // HAVING keeps no group: the item that would fail is never computed
                "SELECT BIT_XOR(NULL) + -72 FROM t HAVING BIT_XOR(col2) > 100000",
                "SELECT col1, BIT_OR(col0) - 100 FROM t GROUP BY col1 HAVING COUNT(*) > 100",
                "SELECT col1, BIT_OR(col0) - 100 AS x FROM t GROUP BY col1 HAVING x > 0",
                // an item is computed for the rows sent only (and where HAVING or ORDER BY reads it, for the rows they read)
                "SELECT -27 - BIT_XOR(col0) FROM t ORDER BY 1 LIMIT 2 OFFSET 3",
                "SELECT -27 - BIT_XOR(col0) FROM t LIMIT 0",
                "SELECT 'x' AS a, BIT_OR(col0) - 100 FROM t HAVING COUNT(*) > 1 LIMIT 1 OFFSET 1",
                "SELECT col1, 8 - BIT_OR(col0) FROM t GROUP BY col1 ORDER BY col1 LIMIT 1",
                "SELECT col1, 8 - BIT_OR(col0) FROM t GROUP BY col1 ORDER BY col1 LIMIT 2",
                "SELECT col1, 8 - BIT_OR(col0) FROM t GROUP BY col1 ORDER BY BIT_OR(col0) LIMIT 2",
                "SELECT col1, 8 - BIT_OR(col0), BIT_OR(col0) + 0 AS y FROM t GROUP BY col1 HAVING y < 8",
                "SELECT col1, 8 - BIT_OR(col0), BIT_OR(col0) + 0 AS y FROM t GROUP BY col1 ORDER BY y LIMIT 2",
                "SELECT col1, 8 - BIT_OR(col0), BIT_OR(col0) + 0 AS y FROM t GROUP BY col1 ORDER BY y DESC LIMIT 2 OFFSET 4",
                // groups that each live on one partition (col0 routes t): a shard's first groups are not those MariaDB sends
                "SELECT col0, 8 - BIT_OR(col0) FROM t GROUP BY col0 ORDER BY col0 LIMIT 3",
                "SELECT col0, 8 - BIT_OR(col0) FROM t GROUP BY col0 ORDER BY col0 DESC LIMIT 3 OFFSET 6",
                "SELECT col0, 8 - BIT_OR(col0) AS x FROM t GROUP BY col0 HAVING x < 5",
                "SELECT col0, 8 - BIT_OR(col0) FROM t GROUP BY col0 ORDER BY col0 LIMIT 9",
                // DISTINCT over rows that hold every group key is dropped (the rows are distinct): items for the rows sent only
                "SELECT DISTINCT col1, 8 - BIT_OR(col0) FROM t GROUP BY col1 ORDER BY col1 LIMIT 1",
                "SELECT DISTINCT col1, col2, 8 - BIT_OR(col0) FROM t GROUP BY col1, col2 ORDER BY col1, col2 LIMIT 1",
                "SELECT DISTINCT col1 AS k, 8 - BIT_OR(col0) FROM t GROUP BY k HAVING COUNT(*) >= 1 ORDER BY k LIMIT 1",
                "SELECT DISTINCT col1, 8 - BIT_OR(col0) FROM t GROUP BY col1, col2 ORDER BY col1 LIMIT 1",
                // SUM of integers is a DECIMAL, DISTINCT too: decimal arithmetic with an unsigned BIT_AND, no range check
                "SELECT SUM(DISTINCT 1) - BIT_AND(-95) FROM t",
                "SELECT SUM(DISTINCT col1) - BIT_OR(col0) - 100 FROM t",
                "SELECT col1, SUM(DISTINCT col0) - BIT_OR(col0) - 20 FROM t GROUP BY col1");
    }

    /** An IN subquery that runs first and finds no row is false (NOT IN: true) for every row, its left side still a name MariaDB resolves. */
    @Test
    void anEmptyInSubqueryKeepsItsLeftSide() throws SQLException {
        check("SELECT 59 FROM t HAVING col1 IN (SELECT col0 FROM e)",
                "SELECT COUNT(*) FROM t WHERE nosuch IN (SELECT col0 FROM e)",
                "SELECT col0 FROM t WHERE col1 IN (SELECT col0 FROM e)",
                "SELECT col0, col1 NOT IN (SELECT col0 FROM e) FROM t ORDER BY col0",
                "SELECT col0, col2 IN (SELECT col0 FROM e), (col2 IN (SELECT col0 FROM e)) IS NULL FROM t ORDER BY col0",
                "SELECT col0 FROM t WHERE col2 NOT IN (SELECT col0 FROM e) ORDER BY col0");
    }

    /** MIN, MAX, SUM and AVG of a division keep the quotient's hidden digits where MariaDB computes on with them. */
    @Test
    void extremesOfADivisionComputeOnWithTheirHiddenDigits() throws SQLException {
        check("SELECT -70 + AVG(col2 / -90) FROM t",
                "SELECT -70 + AVG(col2 / -90) FROM t HAVING COUNT(*) > 0",
                "SELECT -70 + AVG(col2 / -90) AS x FROM t HAVING x < 0",
                "SELECT -81 - SUM(NULL) - 11, -61 AS s, -70 + AVG(col2 / -90) FROM t HAVING s < 0",
                "SELECT col1, SUM(col2 / -90) * 1000 FROM t GROUP BY col1",
                "SELECT col1 FROM t GROUP BY col1 HAVING AVG(col2 / 7) * 100000 > 1428571",
                "SELECT MAX(1 / col1) / SUM(col1) FROM t WHERE col1 = 30",
                "SELECT MAX(1 / col1) / SUM(col1) FROM t WHERE col1 IN (30, 40)",
                "SELECT MAX(col2 / 7) * 3 FROM t",
                "SELECT MIN(col2 / 3) * 3 FROM t WHERE col2 > 0",
                "SELECT col1, MAX(col2 / 3) * 3 FROM t GROUP BY col1",
                "SELECT col1 FROM t GROUP BY col1 HAVING MAX(col2 / 3) > 33.33333",
                "SELECT MAX(col2 / 7) FROM t GROUP BY col1",
                "SELECT col1, MAX(col2 / 7 + COALESCE(col1, 0) / 1000000) AS m FROM t GROUP BY col1 ORDER BY m, col1 DESC",
                "SELECT col1, MIN(col2 / 7 + COALESCE(col1, 0) / 1000000) AS m FROM t GROUP BY col1 ORDER BY 2 DESC, 1",
                "SELECT DISTINCT MAX(col2 / 7 + COALESCE(col1, 0) / 1000000) AS m FROM t GROUP BY col1 ORDER BY m");
    }

    /**
     * AVG(DISTINCT ...) inside an expression: computed on the quotient's hidden digits, except where MariaDB sorts the
     * groups again or makes them DISTINCT, which reads the average back rounded to its scale (2.50000 / 6 is 0.416666666).
     */
    @Test
    void averagesOfDistinctValuesComputeOnAsMariaDbSortsThem() throws SQLException {
        check("SELECT col1, AVG(DISTINCT 2.5) / 6 FROM t GROUP BY col1 ORDER BY 2, 1",
                "SELECT col1, AVG(DISTINCT 2.5) / 6 FROM t GROUP BY col1 ORDER BY col1",
                "SELECT col1, AVG(DISTINCT 2.5) / 6 FROM t GROUP BY col1 ORDER BY col1 DESC",
                "SELECT DISTINCT AVG(DISTINCT 2.5) / 6 FROM t GROUP BY col1",
                "SELECT col1 FROM t GROUP BY col1 HAVING AVG(DISTINCT 2.5) / 6 < 0.4166666665 ORDER BY COUNT(*), col1",
                "SELECT col1 FROM t GROUP BY col1 HAVING AVG(DISTINCT 2.5) / 6 < 0.4166666665 ORDER BY col1",
                "SELECT AVG(DISTINCT 2.5) / 6 FROM t ORDER BY 1");
    }

    /**
     * Set operations whose branches' types differ, run by MariaDB over the branches' rows: each branch's rows stored in
     * the set operation's own types (a NULL branch takes the other's, a DECIMAL wide enough for both), labelled as the
     * first branch's columns, repeated names too.
     */
    @Test
    void setOperationsOfDifferentTypesAnswerInTheirOwnTypes() throws SQLException {
        check("SELECT NULL FROM t UNION ALL SELECT col1 FROM t",
                "SELECT AVG(ABS(2)) FROM r UNION ALL SELECT SUM(DISTINCT -46) FROM r",
                "SELECT AVG(ABS(2)) FROM t UNION ALL SELECT SUM(DISTINCT -46) FROM tab0",
                "SELECT col1 FROM t UNION SELECT 'a' FROM tab0",
                "SELECT col1 / 3 FROM t UNION ALL SELECT col2 FROM tab1",
                "SELECT 1.5 FROM t UNION SELECT col0 FROM tab0 ORDER BY 1",
                "SELECT col1 AS a, col2 AS a FROM t UNION ALL SELECT 'x', 2.5 FROM tab1",
                "SELECT CONCAT(col1, 'a') FROM t UNION SELECT col2 FROM tab2 ORDER BY 1",
                "SELECT col1 FROM t UNION ALL SELECT 99999999999 FROM tab0",
                "SELECT COUNT(*) FROM t UNION ALL SELECT -1.25 FROM tab1",
                "SELECT DATE '2024-01-10' + INTERVAL col0 DAY AS d FROM t UNION ALL SELECT col1 FROM tab0 ORDER BY d, 1",
                "SELECT CAST('2024-01-10 10:00:00.5' AS DATETIME(1)) FROM t UNION SELECT col1 FROM tab0 ORDER BY 1 LIMIT 3",
                "SELECT col1 AS x FROM t UNION SELECT 'y' FROM tab0 ORDER BY x DESC LIMIT 2 OFFSET 1",
                "SELECT col1 + 1 AS x FROM t UNION SELECT 0.5 FROM tab0 ORDER BY x + 1",
                "SELECT col1 FROM t INTERSECT SELECT col2 / 10 FROM tab0",
                "SELECT col1 FROM t EXCEPT SELECT NULL FROM tab0 ORDER BY 1",
                "SELECT col1 FROM t UNION SELECT col2 FROM tab0 UNION ALL SELECT 'z' FROM tab1",
                "(SELECT COUNT(*) FROM t) UNION ALL (SELECT (SELECT sq.col2 / 4 FROM tab1 AS sq WHERE sq.col0 = 51) FROM tab2) ORDER BY 1",
                "SELECT -3.1 FROM t UNION SELECT MAX(DISTINCT 58) FROM t",
                "(SELECT COUNT(NULL), SUM(3) FROM t) UNION ALL (SELECT BIT_AND(-61), COUNT(col1) FROM tab0) UNION ALL (SELECT MAX(CONCAT(col2, 'x')), MAX(col0) FROM tab1) ORDER BY 2, 1 DESC",
                "(SELECT SUM(col1) FROM e) UNION ALL (SELECT COUNT(*) FROM t) UNION ALL (SELECT (SELECT sq.col2 / 4 FROM tab1 AS sq WHERE sq.col0 = 51) FROM tab2) ORDER BY 1",
                "SELECT AVG(col1) FROM t UNION SELECT col2 / 3 FROM tab0",
                "SELECT AVG(col1), 'x' FROM t UNION ALL SELECT 'y', col2 FROM tab0",
                // a branch's item the router computes over merged groups keeps hidden digits too (typed by its first value)
                "SELECT COUNT(col1) / SUM(col1) FROM t UNION ALL SELECT DATE '2024-02-11' FROM tab0",
                "SELECT BIT_XOR(col0), 4 - AVG(col1), COUNT(DISTINCT -76) FROM t UNION SELECT col2, col2, 51 FROM tab1");
    }

    /** Expressions the router weighs or sorts by are syntax-tree nodes in the shard SQL, whatever text they have. */
    @Test
    void expressionsTheRouterWeighsAnswer() throws SQLException {
        check("SELECT DISTINCT + cor0.col2 + + col2 + - cor0.col2 * + ( - ( + cor0.col1 ) ) * - col2 AS col2 FROM tab1 AS cor0",
                "SELECT ALL - cor0.col1 * cor0.col1 + COALESCE ( cor0.col2, cor0.col2 ) AS col2 FROM tab0 AS cor0 GROUP BY cor0.col1, col2",
                "SELECT DISTINCT + cor0.col2 + + col2 + - cor0.col2 * + ( - ( + cor0.col1 ) ) * - col2 AS col2 FROM tab1 AS cor0 ORDER BY 1",
                "SELECT DISTINCT - ( + col1 ) AS x, CONCAT('a ', - col2) FROM tab2 ORDER BY 1, 2",
                "SELECT CONCAT(- col1, ' ') AS s, COUNT(*) FROM t GROUP BY s ORDER BY s",
                "SELECT MIN(CONCAT(- col1, 'x')), MAX(CONCAT('y', + col2)) FROM t",
                "SELECT DISTINCT + cor0.col2 + + col2 AS c FROM tab1 AS cor0 UNION SELECT - col1 FROM tab0",
                "SELECT CONCAT(- col1, '') AS s FROM t UNION SELECT CONCAT(+ col2, '') FROM tab0 ORDER BY 1",
                "SELECT + 6, (6), + (col1), + 6.50, - 6, + - 6, + col1 + 1 FROM t WHERE col0 = 1",
                "SELECT DISTINCT + 6, (7), + (col1) FROM t");
    }

    /**
     * DISTINCT over a constant scalar subquery: the shards get DISTINCT as DISTINCT, and are not told to sort
     * by the constant, so the subquery is evaluated only for rows that match, as on one MariaDB.
     */
    @Test
    void distinctOverAConstantSubqueryIsEvaluatedOnlyForMatchingRows() throws SQLException {
        check("SELECT DISTINCT (SELECT col0 FROM r WHERE col0 > 10) FROM t WHERE col1 IS NULL AND col2 = 5",
                "SELECT DISTINCT (SELECT col0 FROM r WHERE col0 > 10) FROM e",
                "SELECT DISTINCT (SELECT col0 FROM r WHERE col0 > 10) FROM t",
                "SELECT DISTINCT (SELECT col0 FROM r WHERE col0 > 70) FROM t WHERE col1 = 10",
                "SELECT DISTINCT (SELECT col0 FROM r WHERE col0 > 70) + 1, col1 FROM t ORDER BY 2",
                "SELECT DISTINCT (SELECT MAX(col0) FROM r), col1 FROM t",
                "SELECT DISTINCT (SELECT col0 FROM r WHERE col0 > 10), col1 FROM t WHERE col2 = 5");
    }

    /** The same shapes prepared: parameters in WHERE, HAVING and LIMIT keep their places in the shard SQL. */
    @Test
    void preparedShapesBindTheirParameters() throws SQLException {
        var problems = new ArrayList<String>();
        for (var side : sides.entrySet()) {
            prepared(side, problems, "SELECT DISTINCT col1 FROM t WHERE col0 > ? GROUP BY col0 ORDER BY col1 LIMIT ?", 2, 3);
            prepared(side, problems, "SELECT col1 FROM t WHERE col0 > ? HAVING col1 > ?", 1, 10);
            prepared(side, problems, "SELECT DISTINCT col1 FROM t HAVING col1 > ? ORDER BY col1 LIMIT ?, ?", 5, 1, 2);
            prepared(side, problems, "SELECT col1, COUNT(*) FROM t GROUP BY col1 HAVING COUNT(*) > ? ORDER BY col1", 1);
            prepared(side, problems, "SELECT DISTINCT COUNT(*) FROM t WHERE col2 > ? GROUP BY col1", 50);
            prepared(side, problems, "SELECT -71 AS c, SUM(DISTINCT col1) FROM t WHERE col0 > ?", 100);
            prepared(side, problems, "SELECT DISTINCT COUNT(*) FROM t GROUP BY col1 HAVING COUNT(*) > ? ORDER BY 1 LIMIT ?", 0, 2);
            prepared(side, problems, "SELECT col1 AS col0, COUNT(*) FROM t WHERE col2 < ? GROUP BY col0 HAVING col0 > ?", 1000, 3);
            // parameters on both sides of HAVING's IN: bound in the order the text has them (1 IN (COUNT(*), 3): the groups of one row)
            prepared(side, problems, "SELECT col1, COUNT(*) FROM t GROUP BY col1 HAVING ? IN (COUNT(*), ?) ORDER BY col1", 1, 3);
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    // ---- comparing ---------------------------------------------------------------------------------

    private void check(String... statements) throws SQLException {
        var problems = new ArrayList<String>();
        for (var side : sides.entrySet()) {
            for (String sql : statements) {
                String problem = compare(answer(side.getValue().lutra, sql, List.of()), answer(side.getValue().reference, sql, List.of()), ordered(sql));
                if (problem != null) problems.add("[" + side.getKey() + "] " + sql + "\n    " + problem);
            }
        }
        assertTrue(problems.isEmpty(), problems.size() + " statements differ:\n" + String.join("\n", problems));
    }

    private static void prepared(Map.Entry<String, Differential> side, List<String> problems, String sql, Object... params) throws SQLException {
        var values = List.of(params);
        String problem = compare(answer(side.getValue().lutra, sql, values), answer(side.getValue().reference, sql, values), ordered(sql));
        if (problem != null) problems.add("[" + side.getKey() + "] " + sql + " " + values + "\n    " + problem);
    }

    /** Whether the statement's order is its answer's: an ORDER BY that every statement here makes total. */
    private static boolean ordered(String sql) {
        return sql.toUpperCase().contains("ORDER BY");
    }

    /** Labels and rows as text, or the error ("error SQLSTATE code", "refused ..."). */
    private record Answer(List<String> labels, List<String> rows, String error) {}

    private static Answer answer(Connection c, String sql, List<Object> params) throws SQLException {
        try (PreparedStatement st = c.prepareStatement(sql)) {
            for (int i = 0; i < params.size(); i++) st.setObject(i + 1, params.get(i));
            try (ResultSet rs = st.executeQuery()) {
                var md = rs.getMetaData();
                var labels = new ArrayList<String>();
                for (int i = 1; i <= md.getColumnCount(); i++) labels.add(md.getColumnLabel(i));
                var rows = new ArrayList<String>();
                while (rs.next()) {
                    var row = new StringBuilder();
                    for (int i = 1; i <= labels.size(); i++) row.append(i > 1 ? " | " : "").append(rs.getString(i));
                    rows.add(row.toString());
                }
                return new Answer(labels, rows, null);
            }
        } catch (SQLException e) {
            if (Refusal.is(e)) return new Answer(null, null, "refused: " + e.getMessage());
            return new Answer(null, null, "error " + e.getSQLState() + " " + e.getErrorCode() + ": " + e.getMessage());
        }
    }

    private static String compare(Answer lutra, Answer mariadb, boolean ordered) {
        if (lutra.error() != null || mariadb.error() != null) {
            boolean sameError = lutra.error() != null && mariadb.error() != null && !lutra.error().startsWith("refused")
                    && lutra.error().split(":")[0].equals(mariadb.error().split(":")[0]);
            return sameError ? null : "lutra " + describe(lutra) + " / mariadb " + describe(mariadb);
        }
        if (!lutra.labels().equals(mariadb.labels())) return "labels: lutra " + lutra.labels() + " / mariadb " + mariadb.labels();
        var l = new ArrayList<>(lutra.rows());
        var m = new ArrayList<>(mariadb.rows());
        if (!ordered) {
            l.sort(null);
            m.sort(null);
        }
        return l.equals(m) ? null : "lutra " + l + " / mariadb " + m;
    }

    private static String describe(Answer a) {
        return a.error() != null ? a.error() : a.rows().toString();
    }
}
