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
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Statements of sqllogictest's select1–select5 shapes ({@link SqlLogicShapes}) through Lutra on four
 * partitions and on one MariaDB holding the same rows: selects whose subqueries are correlated
 * with the outer row over the same split table (hash, lookup and range placed, and across two of
 * them), and inner joins of up to two dozen ten-row tables placed by hash, lookup, range, hash on a
 * non-key column and replicated. Every answer must be one MariaDB's (labels, rows; in order where
 * ORDER BY orders every column) or a refusal; the refused share of each kind is printed, and must
 * stay under 5%.
 *
 * <p>Seed and size: {@code -Dlutra.fallback.seed=N} (default: new each run, printed),
 * {@code -Dlutra.fallback.statements=N} (correlated selects, default 450),
 * {@code -Dlutra.fallback.joins=N} (deep joins, default 60), {@code -Dlutra.fallback.depth=N} (deepest join, default 24; at
 * most {@link #JOIN_TABLES}). A longer run: {@code -Dlutra.fallback.statements=20000 -Dlutra.fallback.joins=2000 -Dlutra.fallback.depth=40}.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FallbackDifferentialIT {
    static final int JOIN_TABLES = 40;
    private static final List<String> SPLIT = List.of("s_hash", "s_lookup", "s_range");

    Differential differential;
    Connection lutra;
    Connection reference;
    long seed;

    static String schema() {
        var s = new StringBuilder("""
                CREATE TABLE s_hash (a INT, b INT, c INT, d INT, e INT) PARTITION BY hash(a) ON (p0, p1, p2, p3);
                CREATE TABLE s_lookup (a INT NOT NULL, b INT, c INT, d INT, e INT) PARTITION BY lookup(a) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(a);
                CREATE TABLE s_range (a INT, b INT, c INT, d INT, e INT) PARTITION BY range(c) ON (p0 < 140, p1 < 180, p2 < 220, p3);
                CREATE TABLE typed (id INT PRIMARY KEY, k INT, ti TINYINT, su SMALLINT UNSIGNED, bu BIGINT UNSIGNED, de DECIMAL(12,4), f FLOAT,
                  dbl DOUBLE, bits BIT(5), flag BOOLEAN, dt DATE, dtm DATETIME(6), tm TIME(3), ts TIMESTAMP(2) NULL, yr YEAR,
                  cb CHAR(5) COLLATE utf8mb4_bin, ci VARCHAR(20) COLLATE utf8mb4_general_ci, tx TEXT, bl BLOB, en ENUM('x','y','z'),
                  st SET('p','q','r'), js JSON, hidden INT INVISIBLE, twice INT AS (k * 2) VIRTUAL, KEY (k))
                  PARTITION BY hash(id) ON (p0, p1, p2, p3);
                CREATE TABLE stock (s_i_id INT NOT NULL, s_w_id INT NOT NULL, s_quantity INT, PRIMARY KEY (s_w_id, s_i_id))
                  PARTITION BY hash(s_w_id) ON (p0, p1, p2, p3);
                CREATE TABLE order_line (ol_o_id INT NOT NULL, ol_d_id INT NOT NULL, ol_w_id INT NOT NULL, ol_number INT NOT NULL, ol_i_id INT,
                  PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)) PARTITION BY hash(ol_w_id) ON (p0, p1, p2, p3);
                """);
        for (int n = 1; n <= JOIN_TABLES; n++) {
            String placement = switch (n % 5) {
                case 0 -> "PARTITION BY hash(a%d) ON (p0, p1, p2, p3)".formatted(n);
                case 1 -> "PARTITION BY lookup(a%d) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(a%d)".formatted(n, n);
                case 2 -> "PARTITION BY range(a%d) ON (p0 < 4, p1 < 6, p2 < 9, p3)".formatted(n);
                case 3 -> "PARTITION BY hash(b%d) ON (p0, p1, p2, p3)".formatted(n);
                default -> "REPLICATED";
            };
            s.append("CREATE TABLE t%1$d (a%1$d INT PRIMARY KEY, b%1$d INT, x%1$d VARCHAR(40)) %2$s;\n".formatted(n, placement));
        }
        return s.toString();
    }

    @BeforeAll
    void start(Shards shards) throws Exception {
        seed = Long.getLong("lutra.fallback.seed", System.nanoTime());
        System.out.println("FallbackDifferentialIT seed " + seed + " (replay with -Dlutra.fallback.seed=" + seed + ")");
        // the statement timeout: a join that runs past it fails here (one MariaDB answers each in milliseconds)
        var limits = new org.lutra.config.RouterConfig.Limits(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10_000);
        differential = new Differential(shards, "fallback", schema(), null, limits);
        lutra = differential.lutra;
        reference = differential.reference;
        var data = new SqlLogicShapes(seed);
        both("INSERT INTO s_hash VALUES " + String.join(",", data.fiveColumnRows(true)));
        both("INSERT INTO s_lookup VALUES " + String.join(",", data.fiveColumnRows(false)));
        both("INSERT INTO s_range VALUES " + String.join(",", data.fiveColumnRows(true)));
        for (int n = 1; n <= JOIN_TABLES; n++) both("INSERT INTO t" + n + " VALUES " + String.join(",", data.tenRows(n)));
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    private void both(String sql) throws SQLException {
        differential.both(sql);
    }

    @Test
    void selfCorrelatedStatementsAnswerAsOneMariaDb() throws SQLException {
        var shapes = new SqlLogicShapes(seed + 1);
        int count = Integer.getInteger("lutra.fallback.statements", 450);
        var tally = new Tally("self-correlated selects (select1-3 shapes)");
        for (int i = 0; i < count && tally.wrong.size() < 5; i++) {
            String table = SPLIT.get(shapes.nextInt(SPLIT.size()));
            // about one in ten reads another split table in its subqueries: placements mixed
            String inner = shapes.nextInt(10) == 0 ? SPLIT.get(shapes.nextInt(SPLIT.size())) : table;
            var statement = shapes.correlated(table, inner);
            tally.add(statement, compare(statement));
        }
        tally.report();
    }

    @Test
    void deepJoinsAnswerAsOneMariaDb() throws SQLException {
        var shapes = new SqlLogicShapes(seed + 2);
        int count = Integer.getInteger("lutra.fallback.joins", 60);
        int deepest = Math.min(JOIN_TABLES, Integer.getInteger("lutra.fallback.depth", 24));
        var tally = new Tally("joins of 2-" + deepest + " ten-row tables (select5 shapes)");
        for (int i = 0; i < count && tally.wrong.size() < 5; i++) {
            var statement = shapes.deepJoin(JOIN_TABLES, 2 + shapes.nextInt(deepest - 1));
            tally.add(statement, compare(statement));
        }
        tally.report();
    }

    /**
     * Copies keep each column's type: comparisons, collations and the values returned are the table's. Through
     * Lutra the correlated statements read copies; every answer, with each column's type name and table, is one
     * MariaDB's.
     */
    @Test
    void copiesKeepTypesCollationsAndHiddenColumns() throws SQLException {
        String columns = "(id, k, ti, su, bu, de, f, dbl, bits, flag, dt, dtm, tm, ts, yr, cb, ci, tx, bl, en, st, js, hidden)";
        both("INSERT INTO typed " + columns + " VALUES"
                + " (1, 1, -128, 65535, 18446744073709551615, 12345678.1234, 1234567.0, 0.1, b'10101', TRUE, '2024-02-29',"
                + " '2024-01-01 12:34:56.123456', '-838:59:59.000', '2024-03-31 02:30:00.25', 1999, 'a', 'abc', 'long text', x'00ff10', 'y', 'p,r', '{\"a\": 1}', 7),"
                + " (2, 1, 127, 0, 0, -0.0001, 0.1, 1e-300, b'00000', FALSE, '1000-01-01', '2024-01-01 12:34:56.123455', '12:00:00.5',"
                + " '1970-01-01 00:00:01', 2155, 'A', 'ABC', '', x'', 'x', '', '[]', NULL),"
                + " (3, 2, 0, 1, 1, 0, -3.4e38, 0.30000000000000004, b'11111', NULL, '9999-12-31', '9999-12-31 23:59:59.999999', '838:59:59.999',"
                + " '2038-01-19 03:14:07.99', 1901, 'a ', 'abc ', NULL, NULL, 'z', 'q', NULL, -1),"
                + " (4, 2, NULL, NULL, NULL, NULL, 0.1, 0.1, NULL, TRUE, NULL, NULL, NULL, NULL, NULL, 'b', 'Äbc', 'x', x'00ff10', NULL, 'p,q,r', '{\"a\": 1}', 3),"
                + " (5, 3, 5, 5, 5, 12345678.1234, 1234567.0, 0.3, b'10101', FALSE, '2024-02-29', '2024-01-01 12:34:56.123456', '-00:00:00.001',"
                + " '2024-03-31 02:30:00.25', 1999, 'B', 'abd', 'long text', x'00', 'y', 'r,p', '{\"a\":1}', 7)");
        var mismatches = new ArrayList<String>();
        for (String sql : List.of(
                "SELECT t.*, (SELECT COUNT(*) FROM typed x WHERE x.ci = t.ci) AS same_ci FROM typed t",
                "SELECT id, hidden, twice, (SELECT COUNT(*) FROM typed x WHERE x.f = t.f) AS same_f FROM typed t",
                "SELECT id FROM typed t WHERE EXISTS (SELECT 1 FROM typed x WHERE x.cb = t.cb AND x.id <> t.id)",
                "SELECT id, (SELECT COUNT(*) FROM typed x WHERE x.ci < t.ci) AS below FROM typed t ORDER BY ci, id",
                "SELECT id, (SELECT MAX(x.dtm) FROM typed x WHERE x.dtm < t.dtm) AS earlier FROM typed t",
                "SELECT id, (SELECT MIN(x.tm) FROM typed x WHERE x.tm > t.tm) AS later, (SELECT COUNT(*) FROM typed x WHERE x.ts = t.ts) AS same_ts FROM typed t",
                "SELECT id, (SELECT COUNT(*) FROM typed x WHERE x.dbl = t.dbl) AS d, (SELECT COUNT(*) FROM typed x WHERE x.de = t.de) AS e FROM typed t",
                "SELECT id, (SELECT COUNT(*) FROM typed x WHERE x.bits = t.bits) AS b, (SELECT COUNT(*) FROM typed x WHERE x.en < t.en) AS en FROM typed t",
                "SELECT id, (SELECT COUNT(*) FROM typed x WHERE x.st = t.st) AS s, (SELECT COUNT(*) FROM typed x WHERE x.js = t.js) AS j FROM typed t",
                "SELECT id, (SELECT COUNT(*) FROM typed x WHERE x.bl = t.bl) AS b, (SELECT COUNT(*) FROM typed x WHERE x.yr = t.yr) AS y, bu + 0 FROM typed t",
                "SELECT t.ci, t.cb, GROUP_CONCAT(t.id ORDER BY t.id) FROM typed t WHERE t.k IN (SELECT x.k FROM typed x WHERE x.id <> t.id) GROUP BY t.ci, t.cb",
                "SELECT u.a5, v.x6 FROM t5 u JOIN t6 v ON v.a6 = u.b5 WHERE EXISTS (SELECT 1 FROM t7 w WHERE w.a7 = v.b6)")) {
            String problem = compareWithMetadata(sql);
            if (problem != null) mismatches.add(sql + "\n    " + problem);
        }
        assertTrue(mismatches.isEmpty(), String.join("\n", mismatches));
    }

    /** Inside a transaction each table is read in the transaction's snapshot of its partitions, its own writes included. */
    @Test
    void insideTransactionsTheCopiesHoldTheTransactionsRows() throws Exception {
        String sql = "SELECT a, b, (SELECT count(*) FROM s_hash AS x WHERE x.b < s_hash.b) AS below FROM s_hash WHERE a > 0 ORDER BY 1, 2, 3";
        try (Connection otherLutra = differential.router.connect(); Connection otherReference = differential.newReference()) {
            for (Connection c : List.of(lutra, reference)) c.setAutoCommit(false);
            try {
                for (Connection c : List.of(lutra, reference)) {
                    try (var st = c.createStatement()) {
                        st.executeUpdate("INSERT INTO s_hash VALUES (901, 1, 2, 3, 4), (902, 500, 2, 3, 4)");
                    }
                }
                assertNull(compare(lutra, reference, sql, true), sql);
                // a row another session commits now is not in this transaction's snapshots
                for (Connection c : List.of(otherLutra, otherReference)) {
                    try (var st = c.createStatement()) {
                        st.executeUpdate("INSERT INTO s_hash VALUES (903, 2, 2, 3, 4)");
                    }
                }
                assertNull(compare(lutra, reference, sql, true), sql);
            } finally {
                for (Connection c : List.of(lutra, reference)) {
                    c.rollback();
                    c.setAutoCommit(true);
                }
                for (Connection c : List.of(otherLutra, otherReference)) {
                    try (var st = c.createStatement()) {
                        st.executeUpdate("DELETE FROM s_hash WHERE a = 903");
                    }
                }
            }
            assertNull(compare(lutra, reference, sql, true), sql);
        }
    }

    /** The statement runs with the session's variables, on the copies as in the reads that fill them. */
    @Test
    void sessionVariablesReachTheCopies() throws SQLException {
        try {
            for (Connection c : List.of(lutra, reference)) {
                try (var st = c.createStatement()) {
                    st.execute("SET @lim = 160");
                    st.execute("SET time_zone = '+05:00'");
                }
            }
            for (String sql : List.of(
                    "SELECT a, (SELECT count(*) FROM s_hash AS x WHERE x.b < @lim AND x.c > s_hash.c) AS n FROM s_hash ORDER BY 1, 2",
                    "SELECT x5, x6 FROM t5, t6 WHERE a5 = @lim - 157 AND b5 = a6",
                    "SELECT id, ts, UNIX_TIMESTAMP(ts), (SELECT COUNT(*) FROM typed x WHERE x.ts < t.ts) AS n FROM typed t ORDER BY id")) {
                assertNull(compare(lutra, reference, sql, sql.contains("ORDER BY")), sql);
            }
        } finally {
            for (Connection c : List.of(lutra, reference)) {
                try (var st = c.createStatement()) {
                    st.execute("SET time_zone = DEFAULT");
                }
            }
        }
    }

    /** Shapes the specialised plans refuse over several partitions, answered over copies of their tables. */
    @Test
    void otherShapesAnswerOverCopies() {
        var mismatches = new ArrayList<String>();
        for (String sql : List.of(
                "SELECT a, (SELECT MAX(x.b) FROM s_hash x WHERE x.a < s_hash.a) AS m FROM s_hash ORDER BY a, m LIMIT 5",
                "SELECT h.a, r.b FROM s_hash h JOIN s_range r ON r.a = (SELECT MIN(x.a) FROM s_lookup x WHERE x.b > h.b) ORDER BY 1, 2",
                "SELECT (SELECT COUNT(*) FROM s_range x WHERE x.c < h.c) AS n, COUNT(*) FROM s_hash h GROUP BY (SELECT COUNT(*) FROM s_range x WHERE x.c < h.c)",
                "SELECT a FROM s_hash h ORDER BY (SELECT COUNT(*) FROM s_lookup x WHERE x.d > h.d), a",
                "WITH c AS (SELECT a, b FROM s_hash WHERE b > 150), d AS (SELECT a FROM c WHERE a < 200) SELECT COUNT(*), SUM(a) FROM d",
                "WITH c (p, q) AS (SELECT a, b FROM s_range) SELECT p, q FROM c WHERE q > (SELECT AVG(b) FROM s_range) ORDER BY p, q",
                "WITH RECURSIVE r (n, v) AS (SELECT 1, MIN(a) FROM s_hash UNION ALL SELECT n + 1, (SELECT MIN(a) FROM s_hash x WHERE x.a > r.v) FROM r WHERE n < 8)"
                        + " SELECT n, v FROM r ORDER BY n",
                "SELECT d.a, d.n FROM (SELECT a, b AS n FROM s_lookup) d WHERE d.n > (SELECT AVG(b) FROM s_hash) AND EXISTS (SELECT 1 FROM s_range r WHERE r.a = d.a)",
                "SELECT a FROM s_hash WHERE b > ALL (SELECT b FROM s_range x WHERE x.c < s_hash.c) INTERSECT SELECT a FROM s_lookup",
                "SELECT x1, x2, ROW_NUMBER() OVER (ORDER BY x1) FROM t1 LEFT JOIN t2 ON a2 = b1 WHERE a1 > 3",
                "SELECT a1, (SELECT COUNT(*) FROM t3 WHERE b3 = t1.b1) AS c FROM t1 RIGHT JOIN t2 ON a2 = b1 ORDER BY 1, 2")) {
            String problem = compare(lutra, reference, sql, sql.contains("ORDER BY"));
            if (problem != null) mismatches.add(sql + "\n    " + (REFUSED.equals(problem) ? "refused: " + lastRefusal : problem));
        }
        assertTrue(mismatches.isEmpty(), String.join("\n", mismatches));
    }

    /** Copies would lock nothing: a locking read that must be copied is refused, naming why. */
    @Test
    void lockingReadsThatMustBeCopiedAreRefused() throws SQLException {
        for (String sql : List.of("SELECT a FROM s_hash WHERE EXISTS (SELECT 1 FROM s_hash AS x WHERE x.b < s_hash.b) FOR UPDATE",
                "SELECT x5 FROM t5, t6, t7 WHERE b5 = a6 AND b6 = a7 LOCK IN SHARE MODE")) {
            var e = query(lutra, sql).error();
            assertNotNull(e, sql);
            org.lutra.Refusals.assertRefusal(e, sql);
            assertTrue(e.getMessage().contains("locking reads"), e.getMessage());
        }
    }

    /** Keys replicated on several partitions, and keys moved, are read once each into the copies. */
    @Test
    void replicatedAndMovedKeysAreCopiedOnce() throws SQLException {
        var shapes = new SqlLogicShapes(seed + 3);
        try (var st = lutra.createStatement()) {
            st.executeUpdate("ALTER TABLE s_lookup SET PARTITION = (p1, p3) WHERE a % 3 = 0");
            st.executeUpdate("ALTER TABLE s_lookup SET PARTITION = p2 WHERE a % 3 = 1");
            st.executeUpdate("ALTER TABLE t1 SET PARTITION = (p0, p2) WHERE a1 % 2 = 0");
            var tally = new Tally("self-correlated selects and joins with replicated and moved keys");
            for (int i = 0; i < 60 && tally.wrong.size() < 5; i++) {
                var statement = i % 4 == 3 ? shapes.deepJoin(10, 3 + shapes.nextInt(6)) : shapes.correlated("s_lookup", "s_lookup");
                tally.add(statement, compare(statement));
            }
            tally.report();
        } finally {
            try (var st = lutra.createStatement()) {
                st.executeUpdate("ALTER TABLE s_lookup SET PARTITION = p0 WHERE a % 3 = 0");
                st.executeUpdate("ALTER TABLE t1 SET PARTITION = p0 WHERE a1 % 2 = 0");
            }
        }
    }

    /**
     * TPC-C's StockLevel: both tables placed by warehouse, the join not on the warehouse columns, but the constants put
     * both tables' rows on one partition: the statement goes there whole. Other warehouses: the tables are copied.
     */
    @Test
    void stockLevelRunsWholeWhereItsWarehouseIs() throws SQLException {
        var rows = new ArrayList<String>();
        for (int w = 1; w <= 4; w++) for (int i = 1; i <= 200; i++) rows.add("(" + i + ", " + w + ", " + (10 + (i * 7 + w) % 20) + ")");
        both("INSERT INTO stock VALUES " + String.join(", ", rows));
        rows.clear();
        for (int w = 1; w <= 4; w++) {
            for (int d = 1; d <= 2; d++) {
                for (int o = 2970; o <= 3005; o++) for (int n = 1; n <= 5; n++) rows.add("(" + o + ", " + d + ", " + w + ", " + n + ", " + (1 + (o * n + d) % 200) + ")");
            }
        }
        both("INSERT INTO order_line VALUES " + String.join(", ", rows));
        String stockLevel = "SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = %d AND ol_d_id = 1 AND ol_o_id < 3000 AND ol_o_id >= 2980"
                + " AND s_w_id = %d AND s_i_id = ol_i_id AND s_quantity < 15";
        for (int w = 1; w <= 4; w++) {
            String sql = stockLevel.formatted(w, w);
            assertNull(compare(lutra, reference, sql, true), sql);
            var explained = Differential.rows(lutra, "EXPLAIN ROUTE " + sql);
            var sent = explained.stream().filter(line -> !line.get(1).isEmpty()).toList();
            assertEquals(1, sent.size(), "one partition answers " + sql + ":\n" + explained);
            assertTrue(sent.getFirst().get(2).contains("FROM order_line, stock WHERE"), "the whole statement: " + sent);
            assertNull(compare(lutra, reference, stockLevel.formatted(w, w % 4 + 1), true), "warehouses " + w + " and " + (w % 4 + 1));
        }
        String prepared = stockLevel.replace("%d", "?");
        try (var l = lutra.prepareStatement(prepared); var r = reference.prepareStatement(prepared)) {
            for (int w = 1; w <= 4; w++) {
                for (var ps : List.of(l, r)) {
                    ps.setInt(1, w);
                    ps.setInt(2, w);
                }
                try (var lr = l.executeQuery(); var rr = r.executeQuery()) {
                    assertTrue(lr.next() && rr.next());
                    assertEquals(rr.getLong(1), lr.getLong(1), "warehouse " + w);
                }
            }
        }
    }

    /** What one kind of statement gave: answered alike, refused, or wrong (the test fails on any). */
    private static final class Tally {
        final String kind;
        int answered;
        int failedAlike;
        int refused;
        final List<String> wrong = new ArrayList<>();

        Tally(String kind) {
            this.kind = kind;
        }

        void add(SqlLogicShapes.Statement statement, String problem) {
            if (problem == BOTH_FAILED) failedAlike++;
            else if (problem == null) answered++;
            else if (problem.equals(REFUSED)) refused++;
            else wrong.add(statement.sql() + "\n    " + problem);
            if (REFUSED.equals(problem) && refused <= 3) System.out.println("  refused: " + statement.sql().replace('\n', ' ') + "\n    " + lastRefusal);
        }

        void report() {
            int all = answered + failedAlike + refused + wrong.size();
            System.out.printf("FallbackDifferentialIT %s: %d statements, %d refused (%.1f%%), %d answered as one MariaDB, %d failed as on"
                    + " one MariaDB, %d wrong%n", kind, all, refused, 100.0 * refused / Math.max(1, all), answered, failedAlike, wrong.size());
            assertTrue(wrong.isEmpty(), "Lutra and one MariaDB disagree:\n" + String.join("\n", wrong));
            assertTrue(refused * 20 < all, kind + ": " + refused + " of " + all + " refused, 5% or more");
        }
    }

    // ---- comparing ---------------------------------------------------------------------------------

    private static final String REFUSED = "refused";
    /** The message of the last refusal, printed for the first few of each kind. */
    private static String lastRefusal;
    /** Both failed (the same statement is an error on one MariaDB): agreed, but counted apart. */
    private static final String BOTH_FAILED = "both failed";

    private record Answer(List<String> labels, List<List<String>> rows, int[] types, SQLException error) {}

    /** Null when both answer alike, REFUSED when Lutra refused, BOTH_FAILED when both failed, else what differs. */
    private String compare(SqlLogicShapes.Statement statement) {
        return compare(lutra, reference, statement.sql(), statement.ordered());
    }

    static String compare(Connection lutra, Connection reference, String sql, boolean ordered) {
        Answer l = query(lutra, sql);
        if (l.error() != null && Refusal.is(l.error())) {
            lastRefusal = l.error().getMessage();
            return REFUSED;
        }
        Answer r = query(reference, sql);
        if (l.error() != null || r.error() != null) {
            return l.error() != null && r.error() != null ? BOTH_FAILED : "errors differ: lutra " + describe(l) + " / mariadb " + describe(r);
        }
        if (!l.labels().equals(r.labels())) return "labels differ: lutra " + l.labels() + " / mariadb " + r.labels();
        var lr = new ArrayList<>(l.rows());
        var rr = new ArrayList<>(r.rows());
        if (!ordered) {
            lr.sort(ROWS);
            rr.sort(ROWS);
        }
        if (lr.size() != rr.size()) return "row counts differ: lutra " + lr.size() + " / mariadb " + rr.size() + "\n    lutra   " + head(lr) + "\n    mariadb " + head(rr);
        for (int i = 0; i < lr.size(); i++) {
            if (!sameRow(lr.get(i), rr.get(i), r.types())) return "row " + i + " differs: lutra " + lr.get(i) + " / mariadb " + rr.get(i);
        }
        return null;
    }

    /** As {@link #compare}, ordered by the statement, with each column's type name and table (Connector/J's getTableName) compared too. */
    private String compareWithMetadata(String sql) throws SQLException {
        String problem = compare(lutra, reference, sql, sql.contains("ORDER BY"));
        if (problem != null) return problem;
        try (var l = lutra.createStatement(); var lr = l.executeQuery(sql); var r = reference.createStatement(); var rr = r.executeQuery(sql)) {
            for (int i = 1; i <= rr.getMetaData().getColumnCount(); i++) {
                String mine = lr.getMetaData().getColumnTypeName(i) + " of " + lr.getMetaData().getTableName(i);
                String theirs = rr.getMetaData().getColumnTypeName(i) + " of " + rr.getMetaData().getTableName(i);
                if (!mine.equals(theirs)) return "column " + i + ": lutra " + mine + " / mariadb " + theirs;
            }
        }
        return null;
    }

    private static final java.util.Comparator<List<String>> ROWS = (a, b) -> String.valueOf(a).compareTo(String.valueOf(b));

    private static String head(List<List<String>> rows) {
        return rows.size() <= 8 ? rows.toString() : rows.subList(0, 8) + " ... (" + rows.size() + " rows)";
    }

    private static boolean sameRow(List<String> a, List<String> b, int[] types) {
        for (int c = 0; c < a.size(); c++) {
            if (Objects.equals(a.get(c), b.get(c))) continue;
            boolean approximate = types[c] == Types.DOUBLE || types[c] == Types.FLOAT || types[c] == Types.REAL;
            if (!approximate || a.get(c) == null || b.get(c) == null) return false;
            double x = Double.parseDouble(a.get(c));
            double y = Double.parseDouble(b.get(c));
            if (Math.abs(x - y) > 1e-9 * Math.max(1, Math.max(Math.abs(x), Math.abs(y)))) return false;
        }
        return true;
    }

    static Answer query(Connection c, String sql) {
        try (var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            var md = rs.getMetaData();
            int n = md.getColumnCount();
            var labels = new ArrayList<String>();
            int[] types = new int[n];
            for (int i = 1; i <= n; i++) {
                labels.add(md.getColumnLabel(i));
                types[i - 1] = md.getColumnType(i);
            }
            var rows = new ArrayList<List<String>>();
            while (rs.next()) {
                var row = new ArrayList<String>(n);
                for (int i = 1; i <= n; i++) row.add(rs.getString(i));
                rows.add(row);
            }
            return new Answer(labels, rows, types, null);
        } catch (SQLException e) {
            return new Answer(null, null, null, e);
        }
    }

    private static String describe(Answer a) {
        return a.error() == null ? "ok" : a.error().getSQLState() + " " + a.error().getErrorCode() + " " + a.error().getMessage();
    }
}
