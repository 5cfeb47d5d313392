package org.lutra.it.rqg;

import org.junit.jupiter.api.Test;

import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The known-failure classes must be narrow: each takes its own shape, and a failure of another shape stays new. */
class KnownFailuresTest {
    private static Outcome.Rows rows(String... rows) {
        var out = new ArrayList<List<String>>();
        for (String r : rows) out.add(Arrays.stream(r.split("\\|", -1)).map(v -> v.equals("NULL") ? null : v).toList());
        int width = out.isEmpty() ? 1 : out.getFirst().size();
        var labels = new ArrayList<String>();
        for (int i = 0; i < width; i++) labels.add("c" + i);
        return new Outcome.Rows(labels, labels.stream().map(l -> Types.VARCHAR).toList(), out);
    }

    private static String classOf(String sql, Outcome lutra, Outcome reference) {
        var shrunk = new Shrinker.Shrunk(new Query.Verbatim(sql, false, Set.of()), Comparer.compare(lutra, reference, false), lutra, reference);
        var k = KnownFailures.classify(shrunk, null, null);
        return k == null ? null : k.name();
    }

    private static final String DERIVED = "SELECT DISTINCT * FROM (SELECT AVG(50) AS c1 FROM th GROUP BY a LIMIT 18446744073709551615) AS d0";
    private static final String WITHOUT_DISTINCT = "SELECT AVG(50) FROM th GROUP BY a";

    /**
     * SELECT DISTINCT AVG(50) FROM th GROUP BY a, judged with MariaDB's answers to its derived form ({@code derived}) and to
     * the statement without DISTINCT ({@code withoutDistinct}).
     */
    private static String distinctOverGroups(Outcome lutra, Outcome reference, Outcome derived, Outcome withoutDistinct) {
        var select = new Query.Select(null, true, List.of(new Query.Item(Expr.aggregate("AVG(50)"), null)), "th", List.of(), List.of(),
                List.of(Expr.leaf("a")), List.of(), List.of(), 0, null, Set.of());
        var shrunk = new Shrinker.Shrunk(select, Comparer.compare(lutra, reference, false), lutra, reference);
        var k = KnownFailures.classify(shrunk, null, sql -> switch (sql) {
            case DERIVED -> derived;
            case WITHOUT_DISTINCT -> withoutDistinct;
            default -> throw new AssertionError("asked " + sql);
        });
        return k == null ? null : k.name();
    }

    @Test
    void mariaDbsOwnDistinctOverGroupsIsKnownOnlyWhereItsDerivedFormOrItsRowsWithoutDistinctAnswerAsLutra() {
        assertEquals("mariadb-distinct-over-aggregates-of-groups",
                distinctOverGroups(rows("50.0000"), rows("50.0000", "50.0000"), rows("50.0000"), rows("50.0000", "51.0000")));
        assertEquals("mariadb-distinct-over-aggregates-of-groups",
                distinctOverGroups(rows("50.0000"), rows("50.0000", "50.0000"), rows("0.9999"), rows("50.0000", "50.0000")),
                "MariaDB's derived table wrong too: Lutra's rows are the distinct ones of the statement's rows without DISTINCT");
        assertNull(distinctOverGroups(rows("50.0000"), rows("50.0000", "50.0000"), rows("50.0000", "50.0000"), rows("50.0000", "51.0000")),
                "a row of the statement's missing: Lutra's answer is new");
        assertNull(distinctOverGroups(rows("51.0000"), rows("50.0000", "50.0000"), rows("50.0000"), rows("50.0000", "50.0000")),
                "a value nobody answered is new");
        assertNull(distinctOverGroups(rows("50.0000", "50.0000"), rows("50.0000"), rows("0.9999"), rows("50.0000", "50.0000")),
                "Lutra's rows twice under DISTINCT is new");
    }

    @Test
    void aReproducerGivenAsTextHasItsDerivedFormAskedWithItsLimitOutside() {
        var asked = new ArrayList<String>();
        String sql = "SELECT DISTINCT 'Date' AS s FROM th LIMIT 5 OFFSET 3";
        var shrunk = new Shrinker.Shrunk(new Query.Verbatim(sql, false, Set.of()), Comparer.Verdict.DIFFERENT_ROWS, rows(), rows("Date"));
        var k = KnownFailures.classify(shrunk, null, q -> {
            asked.add(q);
            return rows();
        });
        assertEquals("mariadb-distinct-of-equal-rows-ignores-offset", k.name());
        assertEquals(List.of("SELECT DISTINCT * FROM (SELECT 'Date' AS s FROM th LIMIT 18446744073709551615) AS d0 LIMIT 5 OFFSET 3"), asked);
    }

    @Test
    void mariaDbsOwnWrongAnswersSeenOnBothSidesAreKnownByTheirShape() {
        assertEquals("mariadb-any-all-comparison-is-null-answers-0",
                KnownFailures.classifyShared("tlp-where fails on Lutra and on MariaDB alike:\n  SELECT a FROM th WHERE (id >= ALL (SELECT sq.a FROM tc AS sq)) IS NULL").name());
        assertNull(KnownFailures.classifyShared("tlp-where fails on Lutra and on MariaDB alike:\n  SELECT a FROM th WHERE (id IN (SELECT sq.a FROM tc AS sq)) IS NULL"),
                "IN answers NULL right: new");
        assertNull(KnownFailures.classifyShared("norec fails on Lutra and on MariaDB alike:\n  SELECT COUNT(*) FROM th WHERE id > ANY (SELECT a FROM tc)"),
                "only TLP's IS NULL part shows it");
    }

    @Test
    void errorsAreKnownByTheirMessageAndShape() {
        var internal = new Outcome.Error("HY000", 0, "internal router error (incident 1a2b [java.lang.RuntimeException: 'Invalid column name: WEIGHT_STRING(a + 1 AS CHAR(512))'])");
        assertNull(classOf("SELECT DISTINCT a + 1 FROM th", internal, rows("1")), "an internal error is new");
        assertNull(classOf("SELECT DISTINCT a + 1 FROM th", internal, new Outcome.Error("42000", 1064, "syntax")),
                "an internal error is a failure even where MariaDB fails too, and new");
        var parse = new Outcome.Error("42000", 1064, "You have an error in your SQL syntax: Encountered: \"-\"");
        assertEquals("parser-rejects-what-mariadb-reads", classOf("SELECT SUBSTRING(k IN (-2.2), 1) FROM th", parse, rows("1")));
        assertNull(classOf("SELECT SUBSTRING(k IN (-2.2), 1) FROM th", new Outcome.Error("42000", 1064, "You have an error in your SQL syntax"), rows("1")),
                "a syntax error of the shard's, not of the router's parser, is new");
        var unknown = new Outcome.Error("42S22", 1054, "Unknown column 'k' in 'IN/ALL/ANY'");
        assertNull(classOf("SELECT 59 FROM tl HAVING k IN (SELECT sq.id FROM te AS sq)", rows(), unknown), "fixed: no longer a known failure");
        var having = new Outcome.Error("42S22", 1054, "Unknown column 'th.s' in 'HAVING'");
        assertNull(classOf("SELECT -58 FROM th HAVING th.s ORDER BY s", rows(), having), "fixed: no longer a known failure");
    }

    @Test
    void numbersThatDifferInTheirLastDigitsAreKnownOnlyWithASubquery() {
        assertEquals("subquery-value-bound-with-fewer-digits", classOf("SELECT AVG((SELECT AVG(sq.a) FROM th AS sq)) FROM tp",
                rows("4.27272727"), rows("4.27272728")));
        assertNull(classOf("SELECT AVG(a) / AVG(-5.5) FROM th", rows("-0.01690909"), rows("-0.01691332")),
                "arithmetic over merged aggregates keeps MariaDB's digits: a difference is new");
        assertNull(classOf("SELECT AVG((SELECT AVG(sq.a) FROM th AS sq)) FROM tp", rows("5.27272727"), rows("4.27272728")), "a value far off is new");
    }

    @Test
    void signaturesReadTheStatement() {
        assertEquals("SELECT a FROM th WHERE  AND b", Signatures.withoutSubqueries("SELECT a FROM th WHERE (SELECT 1) AND b"));
    }
}
