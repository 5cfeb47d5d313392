package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.protocol.Refusal;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Differential test of the whole query path: random statements ({@link QueryGenerator}) run
 * through Lutra on four partitions (tables placed by hash, range, lookup with a SAME AS child,
 * replicated) and on one plain MariaDB database holding the same rows; every answer must match
 * (in order where ORDER BY fixes it), or Lutra must refuse ({@link Refusal}). A mismatch is shrunk to a
 * minimal statement and the test fails listing them; keep each in
 * {@code src/test/resources/rqg/regressions.sql}, which {@link #regressionsStillHold} replays.
 *
 * <p>Seed and size: {@code -Dlutra.rqg.seed=N} (default: a new one each run, printed),
 * {@code -Dlutra.rqg.queries=N} (default 5,000; a longer run: {@code ./mvnw verify -Dlutra.rqg.queries=50000}).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RandomQueryIT {
    private static final String COLUMNS = "id INT PRIMARY KEY, a INT, b DECIMAL(10,2), s VARCHAR(20) COLLATE utf8mb4_general_ci, d DATE";
    static final String SCHEMA = """
            CREATE TABLE t_hash (%1$s) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE t_range (%1$s) PARTITION BY range(id) ON (p0 < 25, p1 < 50, p2 < 75, p3);
            CREATE TABLE t_lookup (%1$s) PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE t_child (id INT PRIMARY KEY, pid INT, a INT, b DECIMAL(10,2), s VARCHAR(20) COLLATE utf8mb4_general_ci, d DATE)
              PARTITION BY lookup(pid) SAME AS t_lookup;
            CREATE TABLE t_rep (%1$s) REPLICATED;
            """.formatted(COLUMNS);
    private static final List<String> DATA_TABLES = List.of("t_hash", "t_range", "t_lookup", "t_child", "t_rep");

    Differential differential;
    TestRouter router;
    Connection lutra;
    /** Connector/J at the router's MySQL listener: a share of the reads run through it too. */
    Connection mysql;
    private int reads;
    Connection reference;
    long seed;

    /** Outcome of one statement on one side: rows (labels first) or an error. */
    record Answer(List<String> labels, List<List<String>> rows, int[] types, long count, SQLException error) {}

    @BeforeAll
    void start(Shards shards) throws Exception {
        seed = Long.getLong("lutra.rqg.seed", System.nanoTime());
        System.out.println("RandomQueryIT seed " + seed + " (replay with -Dlutra.rqg.seed=" + seed + ")");
        differential = new Differential(shards, "rqg", SCHEMA);
        router = differential.router;
        lutra = differential.lutra;
        reference = differential.reference;
        mysql = router.connectMysql("");
        load(new SplittableRandom(seed));
    }

    private void load(SplittableRandom r) throws SQLException {
        for (String table : DATA_TABLES) {
            int n = table.equals("t_child") ? 150 : 110;
            var rows = new ArrayList<String>();
            for (int id = 0; id < n; id++) {
                String a = r.nextInt(7) == 0 ? "NULL" : String.valueOf(r.nextInt(20));
                String b = r.nextInt(7) == 0 ? "NULL" : r.nextInt(100) + "." + (r.nextInt(4) * 25);
                String s = r.nextInt(7) == 0 ? "NULL" : "'" + QueryGenerator.WORDS.get(r.nextInt(QueryGenerator.WORDS.size())) + "'";
                String d = r.nextInt(7) == 0 ? "NULL" : "'202" + r.nextInt(3) + "-0" + (1 + r.nextInt(9)) + "-1" + r.nextInt(10) + "'";
                String pid = table.equals("t_child") ? (r.nextInt(10) == 0 ? 200 + r.nextInt(5) : r.nextInt(110)) + ", " : "";
                rows.add("(" + id + ", " + pid + a + ", " + b + ", " + s + ", " + d + ")");
            }
            for (int from = 0; from < rows.size(); from += 50) {
                String sql = "INSERT INTO " + table + " VALUES " + String.join(", ", rows.subList(from, Math.min(rows.size(), from + 50)));
                assertEquals(reference.createStatement().executeUpdate(sql), lutra.createStatement().executeUpdate(sql), sql);
            }
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (mysql != null) mysql.close();
        if (differential != null) differential.close();
    }

    @Test
    void randomStatementsAnswerAsOneMariaDb() throws SQLException {
        randomStatements("RandomQueryIT", Integer.getInteger("lutra.rqg.queries", 5000), seed);
    }

    /**
     * The same generator while some keys of t_lookup, with their t_child rows, live on several partitions
     * ({@code SET PARTITION = (p1, p3)}): scans, co-located joins and subqueries must leave the copies out,
     * and writes must reach every copy and count it once.
     */
    @Test
    void randomStatementsWhileKeysAreReplicatedAnswerAsOneMariaDb() throws SQLException {
        String replicated = "id % 9 = 0 OR id % 9 = 4";
        try (var st = lutra.createStatement()) {
            st.executeUpdate("ALTER TABLE t_lookup SET PARTITION = (p1, p3) WHERE id % 9 = 0");
            st.executeUpdate("ALTER TABLE t_lookup SET PARTITION = (p2, p0, p1) WHERE id % 9 = 4");
            randomStatements("RandomQueryIT (replicated keys)", Integer.getInteger("lutra.rqg.queries", 5000) / 2, seed + 1);
        } finally {
            try (var st = lutra.createStatement()) {
                st.executeUpdate("ALTER TABLE t_lookup SET PARTITION = p0 WHERE " + replicated);
            }
        }
    }

    private void randomStatements(String name, int count, long seed) throws SQLException {
        var generator = new QueryGenerator(seed);
        var accepted = new TreeMap<String, int[]>(); // feature -> {accepted, refused}
        var mismatches = new ArrayList<String>();
        long t0 = System.nanoTime();
        for (int i = 0; i < count && mismatches.size() < 5; i++) {
            QueryGenerator.Query q = generator.next();
            String problem = check(q);
            var tally = accepted.computeIfAbsent(q.feature(), k -> new int[2]);
            if (problem == null) {
                tally[0]++;
            } else if (problem.equals(REFUSED)) {
                tally[1]++;
            } else {
                QueryGenerator.Query minimal = shrink(q);
                mismatches.add(minimal.sql() + "\n    " + check(minimal) + "\n    (found as: " + q.sql() + ")");
            }
        }
        System.out.printf("%s: %d statements in %.1f s (seed %d)%n", name, count, (System.nanoTime() - t0) / 1e9, seed);
        System.out.println("  feature              answered  refused");
        accepted.forEach((f, t) -> System.out.printf("  %-20s %8d %8d%n", f, t[0], t[1]));
        assertTrue(mismatches.isEmpty(), "Lutra and one MariaDB disagree (seed " + seed + "):\n" + String.join("\n", mismatches));
    }

    @Test
    void regressionsStillHold() throws IOException, SQLException {
        var mismatches = new ArrayList<String>();
        try (InputStream in = Objects.requireNonNull(getClass().getResourceAsStream("/rqg/regressions.sql"))) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                String sql = line.strip();
                if (sql.isEmpty() || sql.startsWith("--")) continue;
                boolean ordered = sql.toUpperCase().contains("ORDER BY");
                String problem = compare(sql, ordered, sql.toUpperCase().startsWith("UPDATE") || sql.toUpperCase().startsWith("DELETE") ? table(sql) : null);
                if (problem != null && !problem.equals(REFUSED)) mismatches.add(sql + "\n    " + problem);
            }
        }
        assertTrue(mismatches.isEmpty(), String.join("\n", mismatches));
    }

    /** Select items holding comments, on one partition and across several, in select-list subqueries too, some over several lines. */
    static final List<String> COMMENTED_LABELS = List.of(
            "SELECT a /* c */ + 1, id FROM t_hash WHERE id = 3",
            "SELECT /* lead */ a+1, /* lead2 */ id FROM t_hash WHERE id = 3",
            "SELECT a+1 /* trailing */, id FROM t_hash WHERE id = 3",
            "SELECT abs(a /* c */ - 5), COUNT(*) FROM t_hash GROUP BY abs(a /* c */ - 5)",
            "SELECT id, (SELECT MAX(a) FROM t_rep WHERE s = 'x' /* c */) FROM t_hash WHERE id = 3",
            "SELECT id, (SELECT MAX(a) /* m */ FROM t_rep) AS m, (SELECT COUNT(*) FROM t_rep WHERE a > 3 /* c */) FROM t_hash WHERE id < 9 ORDER BY id",
            "SELECT id, (SELECT /* x */ COUNT(*) FROM t_rep) FROM t_hash ORDER BY id",
            "SELECT id, /* s */ (SELECT MIN(a) FROM t_hash) FROM t_range ORDER BY id",
            "SELECT a # hash\n+ 1, id FROM t_hash WHERE id = 3",
            "SELECT a -- dash\n+ 1, id FROM t_hash WHERE id = 3",
            "SELECT a+/*! 1 + */ 2, id FROM t_hash WHERE id = 3",
            "SELECT COUNT(*) /* n */, SUM(a) /* s */ FROM t_hash",
            "SELECT 'x' /* c */, 1 /* one */, id FROM t_hash WHERE id = 3",
            "SELECT a\n  + 1, id FROM t_hash WHERE id = 3",
            "SELECT id, (SELECT COUNT(*)\n FROM t_rep /* two\nlines */) FROM t_hash ORDER BY id");

    @Test
    void labelsOfItemsWithCommentsAreMariaDbs() {
        var mismatches = new ArrayList<String>();
        for (String sql : COMMENTED_LABELS) {
            Answer l = query(lutra, sql);
            Answer r = query(reference, sql);
            if (r.error() != null) mismatches.add(sql + "\n    mariadb: " + r.error().getMessage());
            else if (l.error() != null) mismatches.add(sql + "\n    lutra: " + l.error().getMessage());
            else if (!l.labels().equals(r.labels())) mismatches.add(sql + "\n    lutra " + l.labels() + " / mariadb " + r.labels());
        }
        assertTrue(mismatches.isEmpty(), String.join("\n", mismatches));
    }

    private static String table(String dml) {
        var m = java.util.regex.Pattern.compile("(?i)(?:UPDATE|DELETE\\s+FROM)\\s+(\\w+)").matcher(dml);
        return m.find() ? m.group(1) : null;
    }

    // ---- comparing ---------------------------------------------------------------------------------

    private static final String REFUSED = "refused";

    /** Null when both agree, REFUSED when Lutra refused, else what differs. */
    private String check(QueryGenerator.Query q) throws SQLException {
        boolean write = q.kind.equals("update") || q.kind.equals("delete");
        return compare(q.sql(), q.ordered(), write ? q.from : null);
    }

    private String compare(String sql, boolean ordered, String writtenTable) throws SQLException {
        if (writtenTable != null) {
            Answer l = update(lutra, sql);
            if (l.error() != null && Refusal.is(l.error())) return REFUSED;
            Answer r = update(reference, sql);
            if ((l.error() == null) != (r.error() == null)) return "errors differ: lutra " + describe(l) + " / mariadb " + describe(r);
            if (l.error() == null && l.count() != r.count()) return "update counts differ: lutra " + l.count() + " / mariadb " + r.count();
            return compare("SELECT * FROM " + writtenTable + " ORDER BY id", true, null);
        }
        Answer l = query(lutra, sql);
        boolean viaMysql = mysql != null && reads++ % 4 == 0; // a share of the reads also through Connector/J at the MySQL listener
        Answer m = viaMysql ? query(mysql, sql) : null;
        if (m != null && ((m.error() != null) != (l.error() != null) || m.error() != null && m.error().getErrorCode() != l.error().getErrorCode())) {
            return "the MySQL listener answers otherwise than the Lutra driver: " + describe(m) + " / lutra " + describe(l);
        }
        if (l.error() != null && Refusal.is(l.error())) return REFUSED;
        Answer r = query(reference, sql);
        if (l.error() != null || r.error() != null) {
            return l.error() != null && r.error() != null ? null : "errors differ: lutra " + describe(l) + " / mariadb " + describe(r);
        }
        if (m != null) {
            String problem = sameAnswer(m, r, ordered);
            if (problem != null) return "through the MySQL listener (Connector/J): " + problem;
        }
        return sameAnswer(l, r, ordered);
    }

    /** Null when the two answers have the same labels and rows (floating-point values within 1e-9), else what differs. */
    private static String sameAnswer(Answer l, Answer r, boolean ordered) {
        if (!l.labels().equals(r.labels())) return "labels differ: lutra " + l.labels() + " / mariadb " + r.labels();
        var lr = new ArrayList<>(l.rows());
        var rr = new ArrayList<>(r.rows());
        if (!ordered) {
            lr.sort(ROWS);
            rr.sort(ROWS);
        }
        if (lr.size() != rr.size()) return "row counts differ: lutra " + lr.size() + " / mariadb " + rr.size() + "\n    lutra   " + head(lr) + "\n    mariadb " + head(rr);
        for (int i = 0; i < lr.size(); i++) {
            if (!sameRow(lr.get(i), rr.get(i), r.types())) {
                return "row " + i + " differs: lutra " + lr.get(i) + " / mariadb " + rr.get(i) + "\n    lutra   " + head(lr) + "\n    mariadb " + head(rr);
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
            String x = a.get(c);
            String y = b.get(c);
            if (Objects.equals(x, y)) continue;
            boolean approximate = types[c] == Types.DOUBLE || types[c] == Types.FLOAT || types[c] == Types.REAL;
            if (approximate && x != null && y != null) {
                double dx = Double.parseDouble(x);
                double dy = Double.parseDouble(y);
                if (Math.abs(dx - dy) <= 1e-9 * Math.max(1, Math.max(Math.abs(dx), Math.abs(dy)))) continue;
            }
            return false;
        }
        return true;
    }

    /**
     * One statement per connection for every query: through Lutra each execution names the columns
     * of the previous one (Execute.known_columns), so random shapes one after another check that the
     * router's "same columns" answer is given exactly when they are the same.
     */
    private static final java.util.Map<Connection, java.sql.Statement> STATEMENTS = new java.util.IdentityHashMap<>();

    private static java.sql.Statement statement(Connection c) throws SQLException {
        var st = STATEMENTS.get(c);
        if (st == null || st.isClosed()) {
            st = c.createStatement();
            STATEMENTS.put(c, st);
        }
        return st;
    }

    private static Answer query(Connection c, String sql) {
        try (var rs = statement(c).executeQuery(sql)) {
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
            return new Answer(labels, rows, types, 0, null);
        } catch (SQLException e) {
            return new Answer(null, null, null, 0, e);
        }
    }

    private static Answer update(Connection c, String sql) {
        try (var st = c.createStatement()) {
            return new Answer(null, null, null, st.executeUpdate(sql), null);
        } catch (SQLException e) {
            return new Answer(null, null, null, 0, e);
        }
    }

    private static String describe(Answer a) {
        return a.error() == null ? "ok" : a.error().getSQLState() + " " + a.error().getMessage();
    }

    // ---- shrinking ---------------------------------------------------------------------------------

    /** Drops parts of {@code q} while the statement still mismatches (and is not refused). */
    private QueryGenerator.Query shrink(QueryGenerator.Query q) throws SQLException {
        boolean progress = true;
        while (progress) {
            progress = false;
            for (QueryGenerator.Query candidate : smaller(q)) {
                String problem;
                try {
                    problem = check(candidate);
                } catch (SQLException | RuntimeException e) {
                    continue;
                }
                if (problem != null && !problem.equals(REFUSED)) {
                    q = candidate;
                    progress = true;
                    break;
                }
            }
        }
        return q;
    }

    private static List<QueryGenerator.Query> smaller(QueryGenerator.Query q) {
        var out = new ArrayList<QueryGenerator.Query>();
        for (int i = 0; i < q.where.size(); i++) {
            var c = q.copy();
            c.where.remove(i);
            out.add(c);
        }
        if (q.limit != null) {
            var c = q.copy();
            c.limit = null;
            out.add(c);
        }
        if (q.limit == null && !q.orderBy.isEmpty()) {
            var c = q.copy();
            c.orderBy.clear();
            out.add(c);
        }
        if (q.having != null) {
            var c = q.copy();
            c.having = null;
            out.add(c);
        }
        if (q.distinct) {
            var c = q.copy();
            c.distinct = false;
            out.add(c);
        }
        if (q.items.size() > 1) {
            for (int i = 0; i < q.items.size(); i++) {
                if (q.groupBy.contains(q.items.get(i))) continue;
                var c = q.copy();
                c.items.remove(i);
                out.add(c);
            }
        }
        return out;
    }

}
