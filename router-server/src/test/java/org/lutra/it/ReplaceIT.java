package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/**
 * {@code REPLACE} through Lutra over four partitions and on one plain MariaDB holding the same rows: random
 * statements (VALUES of one to five rows, SET, SELECT, PreparedStatement batches; and INSERT [IGNORE] ... SET)
 * whose rows overlap the rows there are on the primary key, on a second unique key (one new row may replace two rows: count 3) or on both,
 * and each other, and statements run again (rows written unchanged, which MariaDB updates in place and counts
 * 1). After each statement the update counts (or both errors), LAST_INSERT_ID(), and the written table, whole,
 * must agree. Tables placed by hash, range, lookup and SAME AS (with two unique keys, and with one: the router's
 * upsert form), replicated, with a non-unique secondary lookup (read back by it), and with AUTO_INCREMENT ids
 * (compared under the mapping of Lutra's ids to MariaDB's that getGeneratedKeys reports). And the REPLACEs the
 * router refuses, which leave the table as it was.
 *
 * <p>Seed and size: {@code -Dlutra.replace.seed=N}, {@code -Dlutra.replace.statements=N} (default 400).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplaceIT {
    private static final String KEYED = "k INT NOT NULL, seq INT NOT NULL, u INT, a INT, s VARCHAR(10) COLLATE utf8mb4_general_ci,"
            + " PRIMARY KEY (k, seq), UNIQUE KEY k_u (k, u)";
    static final String SCHEMA = """
            CREATE TABLE r_hash (%1$s) PARTITION BY hash(k) ON (p0, p1, p2, p3);
            CREATE TABLE r_range (%1$s) PARTITION BY range(k) ON (p0 < 8, p1 < 16, p2 < 24, p3);
            CREATE TABLE r_lookup (%1$s) PARTITION BY lookup(k) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(k);
            CREATE TABLE r_child (%1$s) PARTITION BY lookup(k) SAME AS r_lookup;
            CREATE TABLE r_single (k INT NOT NULL, seq INT NOT NULL, u INT, a INT, s VARCHAR(10) COLLATE utf8mb4_general_ci, PRIMARY KEY (k, seq))
              PARTITION BY lookup(k) SAME AS r_lookup;
            CREATE TABLE r_gen (k INT NOT NULL PRIMARY KEY, a INT, twice INT AS (a * 2)) PARTITION BY lookup(k) SAME AS r_lookup;
            CREATE TABLE r_rep (k INT NOT NULL PRIMARY KEY, u INT, a INT, s VARCHAR(10), UNIQUE KEY (u)) REPLICATED;
            CREATE TABLE r_tagged (k INT NOT NULL PRIMARY KEY, tag INT, a INT, KEY (tag)) PARTITION BY hash(k) ON (p0, p1, p2, p3);
            CREATE TABLE r_auto (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, a INT, s VARCHAR(10)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE r_mail (k INT NOT NULL PRIMARY KEY, email VARCHAR(40), UNIQUE KEY (email)) PARTITION BY hash(k) ON (p0, p1, p2, p3);
            CREATE TABLE r_nick (k INT NOT NULL PRIMARY KEY, nick VARCHAR(20) COLLATE utf8mb4_bin, UNIQUE KEY (nick)) PARTITION BY hash(k) ON (p0, p1, p2, p3);
            CREATE TABLE r_prefix (name VARCHAR(20) COLLATE utf8mb4_bin NOT NULL PRIMARY KEY, n INT, UNIQUE KEY (name(2), n))
              PARTITION BY hash(name) ON (p0, p1, p2, p3);
            """.formatted(KEYED);
    static final List<String> KEYED_TABLES = List.of("r_hash", "r_range", "r_lookup", "r_child", "r_single");
    static final List<String> WORDS = List.of("ann", "Bob", "bob", "cid", "dee");

    Differential differential;
    Connection lutra;
    Connection reference;
    long seed;
    /** How many one-row REPLACEs (SET) counted 0..3 on the reference: 2 replaced a row, 3 two rows. */
    final int[] oneRowCounts = new int[4];
    /** r_auto's ids: Lutra's → the reference's, as getGeneratedKeys reported them at the same place. */
    final Map<Long, Long> toReference = new HashMap<>();

    @BeforeAll
    void start(Shards shards) throws Exception {
        seed = Long.getLong("lutra.replace.seed", System.nanoTime());
        System.out.println("ReplaceIT seed " + seed + " (replay with -Dlutra.replace.seed=" + seed + ")");
        differential = new Differential(shards, "replaceit", SCHEMA);
        lutra = differential.lutra;
        reference = differential.reference;
        try (var st = lutra.createStatement()) {
            st.execute("CREATE SECONDARY LOOKUP r_tagged_tag ON r_tagged (tag)");
            st.execute("CREATE SECONDARY LOOKUP r_nick_nick ON r_nick (nick) UNIQUE");
        }
        var r = new SplittableRandom(seed);
        for (String table : KEYED_TABLES) {
            var rows = new ArrayList<String>();
            for (int k = 0; k < 30; k += 1 + r.nextInt(2)) {
                for (int seq = 0; seq < 3; seq++) rows.add("(" + k + ", " + seq + ", " + (seq == 2 ? "NULL" : seq) + ", " + r.nextInt(100) + ", 'x')");
            }
            differential.both("INSERT INTO " + table + " VALUES " + String.join(", ", rows));
        }
        differential.both("INSERT INTO r_rep VALUES (1, 1, 1, 'a'), (2, 2, 2, 'b'), (3, NULL, 3, 'c')");
        differential.both("INSERT INTO r_tagged VALUES (1, 1, 1), (2, 1, 2), (3, 2, 3)");
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    @Test
    void randomReplacesWriteWhatOneMariaDbWrites() throws SQLException {
        var r = new SplittableRandom(seed + 1);
        int statements = Integer.getInteger("lutra.replace.statements", 400);
        var mismatches = new ArrayList<String>();
        var refused = new ArrayList<String>();
        String last = null, lastTable = null;
        for (int i = 0; i < statements && mismatches.size() < 3; i++) {
            String problem;
            String sql;
            switch (r.nextInt(11)) {
                case 10 -> {
                    // again: its rows are there as it wrote them
                    sql = last == null ? "REPLACE INTO r_tagged SELECT * FROM r_tagged" : last;
                    problem = compareWrite(sql, last == null ? "r_tagged" : lastTable);
                }
                case 0 -> {
                    sql = "prepared batch on " + pick(r, KEYED_TABLES);
                    problem = compareBatch(r, sql.substring(sql.lastIndexOf(' ') + 1));
                }
                case 1 -> {
                    sql = replicated(r);
                    problem = compareWrite(sql, "r_rep");
                    last = sql;
                    lastTable = "r_rep";
                }
                case 2 -> {
                    sql = tagged(r);
                    problem = compareWrite(sql, "r_tagged");
                    if (problem == null) problem = compareByTag();
                    last = sql;
                    lastTable = "r_tagged";
                }
                case 3 -> {
                    sql = "r_auto";
                    problem = compareAuto(r);
                }
                default -> {
                    String table = pick(r, KEYED_TABLES);
                    sql = keyed(r, table);
                    problem = compareWrite(sql, table);
                    last = sql;
                    lastTable = table;
                }
            }
            if (problem == null) continue;
            if (problem.startsWith("refused")) refused.add(sql + " -- " + problem);
            else mismatches.add(sql + "\n    " + problem);
        }
        for (String table : List.of("r_hash", "r_range", "r_lookup", "r_child", "r_single", "r_rep", "r_tagged")) {
            String problem = compareTable(table);
            if (problem != null) mismatches.add("at the end, " + table + ": " + problem);
        }
        System.out.println("ReplaceIT: " + statements + " statements, " + refused.size() + " refused; one-row REPLACEs that replaced one row "
                + oneRowCounts[2] + ", two rows " + oneRowCounts[3]);
        assertTrue(mismatches.isEmpty(), "seed " + seed + ":\n" + String.join("\n", mismatches));
        assertTrue(refused.isEmpty(), "refused: " + refused.stream().limit(5).toList());
        assertTrue(statements < 100 || oneRowCounts[2] > 0 && oneRowCounts[3] > 0, "the run replaced too little to tell");
    }

    // ---- statements ------------------------------------------------------------------------------

    /** Keys 0..39: most exist, some are new; u repeats within a key. */
    private static String row(SplittableRandom r, int k) {
        return "(" + k + ", " + r.nextInt(4) + ", " + (r.nextInt(5) == 0 ? "NULL" : r.nextInt(4)) + ", " + r.nextInt(100) + ", '" + pick(r, WORDS) + "')";
    }

    private static String keyed(SplittableRandom r, String table) {
        int k = r.nextInt(40);
        return switch (r.nextInt(7)) {
            case 0 -> "REPLACE INTO " + table + " SET k = " + k + ", seq = " + r.nextInt(4) + ", u = " + r.nextInt(4) + ", a = " + r.nextInt(100);
            // INSERT ... SET runs as VALUES too (a duplicate: 1062 on both sides; IGNORE: 0)
            case 6 -> "INSERT " + (r.nextBoolean() ? "IGNORE " : "") + "INTO " + table + " SET a = " + r.nextInt(100) + ", k = " + k + ", u = NULL, seq = " + r.nextInt(6);
            case 1 -> "REPLACE " + table + " (s, a, u, seq, k) VALUES ('" + pick(r, WORDS) + "', 7, " + r.nextInt(4) + ", " + r.nextInt(4) + ", " + k + ")";
            // rows of the other keyed tables, in a total order: which of two conflicting rows wins is the order's
            case 2 -> "REPLACE INTO " + table + " SELECT k, seq, u, a + 1, s FROM " + pick(r, KEYED_TABLES) + " WHERE k BETWEEN " + k + " AND " + (k + 3)
                    + " ORDER BY k, seq";
            case 3 -> "REPLACE INTO " + table + " (k, seq, u, a, s) VALUES " + row(r, k) + ", " + row(r, k) + ", " + row(r, r.nextInt(40));
            default -> {
                var rows = new ArrayList<String>();
                int n = 1 + r.nextInt(5);
                for (int i = 0; i < n; i++) rows.add(row(r, r.nextBoolean() ? k : r.nextInt(40)));
                yield "REPLACE INTO " + table + " VALUES " + String.join(", ", rows);
            }
        };
    }

    private static String replicated(SplittableRandom r) {
        var rows = new ArrayList<String>();
        int n = 1 + r.nextInt(3);
        for (int i = 0; i < n; i++) rows.add("(" + r.nextInt(8) + ", " + (r.nextInt(4) == 0 ? "NULL" : r.nextInt(8)) + ", " + r.nextInt(100) + ", 'r')");
        return "REPLACE INTO r_rep VALUES " + String.join(", ", rows);
    }

    private static String tagged(SplittableRandom r) {
        var rows = new ArrayList<String>();
        int n = 1 + r.nextInt(3);
        for (int i = 0; i < n; i++) rows.add("(" + r.nextInt(12) + ", " + r.nextInt(5) + ", " + r.nextInt(100) + ")");
        return "REPLACE INTO r_tagged (k, tag, a) VALUES " + String.join(", ", rows);
    }

    private static <T> T pick(SplittableRandom r, List<T> from) {
        return from.get(r.nextInt(from.size()));
    }

    // ---- comparing -------------------------------------------------------------------------------

    /** Null when both agree; "refused ..." when Lutra refused (42000/1235); else what differs. */
    String compareWrite(String sql, String table) throws SQLException {
        return compareWrite(lutra, sql, table);
    }

    /** {@link #compareWrite} through the router of {@code viaLutra}. */
    String compareWrite(Connection viaLutra, String sql, String table) throws SQLException {
        var written = differential.write(viaLutra, sql);
        if (written.problem() != null) return written.problem();
        long m = written.count();
        if (sql.startsWith("REPLACE") && sql.contains(" SET ") && m >= 0 && m < 4) oneRowCounts[(int) m]++;
        return compareTable(table);
    }

    /** A PreparedStatement batch of one-row REPLACEs: each entry's count, then the table. */
    private String compareBatch(SplittableRandom r, String table) throws SQLException {
        int entries = 1 + r.nextInt(6);
        var values = new ArrayList<int[]>();
        for (int i = 0; i < entries; i++) values.add(new int[] {r.nextInt(40), r.nextInt(4), r.nextInt(4), r.nextInt(100)});
        var counts = new ArrayList<int[]>();
        for (Connection c : List.of(lutra, reference)) {
            try (var ps = c.prepareStatement("REPLACE INTO " + table + " (k, seq, u, a) VALUES (?, ?, ?, ?)")) {
                for (int[] v : values) {
                    for (int p = 0; p < 4; p++) ps.setInt(p + 1, v[p]);
                    ps.addBatch();
                }
                counts.add(ps.executeBatch());
            }
        }
        if (!Arrays.equals(counts.get(0), counts.get(1))) return "batch counts differ: lutra " + Arrays.toString(counts.get(0)) + " / mariadb " + Arrays.toString(counts.get(1));
        return compareTable(table);
    }

    /** Every tag's rows read through the secondary lookup: the entries of replaced rows' new values are there. */
    private String compareByTag() throws SQLException {
        for (int tag = 0; tag < 5; tag++) {
            String sql = "SELECT k, tag, a FROM r_tagged WHERE tag = " + tag + " ORDER BY k";
            var l = rows(lutra, sql);
            var m = rows(reference, sql);
            if (!l.equals(m)) return "by tag " + tag + ": lutra " + l + " / mariadb " + m;
        }
        return null;
    }

    /**
     * r_auto: REPLACE of generated ids (one or several rows) or of an id there is (given on each side as that side's
     * id of the row): counts, keys under the mapping, LAST_INSERT_ID() and the rows under the mapping.
     */
    private String compareAuto(SplittableRandom r) throws SQLException {
        String tail = "'" + pick(r, WORDS) + "')";
        String lutraSql, referenceSql;
        boolean generates = toReference.isEmpty() || r.nextBoolean();
        if (generates) {
            var rows = new ArrayList<String>();
            int n = 1 + r.nextInt(3);
            for (int i = 0; i < n; i++) rows.add("(" + pick(r, List.of("NULL", "0", "DEFAULT")) + ", " + r.nextInt(100) + ", " + tail);
            lutraSql = referenceSql = "REPLACE INTO r_auto VALUES " + String.join(", ", rows);
        } else {
            var ids = new ArrayList<>(toReference.keySet());
            ids.sort(null);
            long id = ids.get(r.nextInt(ids.size()));
            lutraSql = "REPLACE INTO r_auto (id, a, s) VALUES (" + id + ", " + r.nextInt(100) + ", " + tail;
            referenceSql = lutraSql.replace("(" + id + ",", "(" + toReference.get(id) + ",");
        }
        long l, m;
        List<Long> lutraKeys, referenceKeys;
        try (var st = lutra.createStatement()) {
            l = st.executeUpdate(lutraSql, Statement.RETURN_GENERATED_KEYS);
            lutraKeys = keys(st);
        }
        try (var st = reference.createStatement()) {
            m = st.executeUpdate(referenceSql, Statement.RETURN_GENERATED_KEYS);
            referenceKeys = keys(st);
        }
        if (l != m) return lutraSql + ": update counts differ: lutra " + l + " / mariadb " + m;
        if (generates) {
            if (lutraKeys.size() != referenceKeys.size()) return lutraSql + ": keys lutra " + lutraKeys + " / mariadb " + referenceKeys;
            for (int i = 0; i < lutraKeys.size(); i++) toReference.put(lutraKeys.get(i), referenceKeys.get(i));
        } else {
            // the row's id, as for a one-row INSERT with an explicit id (Connector/J makes up count-many ids from it)
            if (!lutraKeys.equals(List.of(Long.parseLong(lutraSql.replaceAll(".*VALUES \\((\\d+),.*", "$1"))))) return lutraSql + ": keys " + lutraKeys;
            if (referenceKeys.isEmpty() || !referenceKeys.getFirst().equals(toReference.get(lutraKeys.getFirst()))) return lutraSql + ": mariadb keys " + referenceKeys;
        }
        long lutraLast = lastInsertId(lutra), referenceLast = lastInsertId(reference);
        if (toReference.getOrDefault(lutraLast, 0L) != referenceLast) return lutraSql + ": LAST_INSERT_ID() lutra " + lutraLast + " / mariadb " + referenceLast;
        var mapped = new ArrayList<List<String>>();
        for (var row : rows(lutra, "SELECT id, a, s FROM r_auto")) {
            Long to = toReference.get(Long.parseLong(row.getFirst()));
            if (to == null) return "r_auto row " + row + " was not reported by getGeneratedKeys";
            mapped.add(List.of(String.valueOf(to), row.get(1), row.get(2)));
        }
        mapped.sort((x, y) -> Long.compare(Long.parseLong(x.getFirst()), Long.parseLong(y.getFirst())));
        var expected = rows(reference, "SELECT id, a, s FROM r_auto ORDER BY id");
        return mapped.equals(expected) ? null : "r_auto: lutra (mapped) " + mapped + " / mariadb " + expected;
    }

    private static List<Long> keys(Statement st) throws SQLException {
        var out = new ArrayList<Long>();
        try (var rs = st.getGeneratedKeys()) {
            while (rs.next()) out.add(rs.getLong(1));
        }
        return out;
    }

    private static long lastInsertId(Connection c) throws SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery("SELECT LAST_INSERT_ID()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    String compareTable(String table) throws SQLException {
        return differential.sameRows(table, "SELECT * FROM " + table + " ORDER BY 1, 2");
    }

    static List<List<String>> rows(Connection c, String sql) throws SQLException {
        return Differential.rows(c, sql);
    }

    // ---- what is refused -------------------------------------------------------------------------

    @Test
    void aReplaceThatMayDeleteARowOnAnotherPartitionIsRefusedAndWritesNothing() throws SQLException {
        for (var refused : List.of(
                List.of("REPLACE INTO r_mail VALUES (1, 'a@b')", "unique key (email)"),
                List.of("REPLACE INTO r_mail SET k = 2, email = 'c@d'", "unique key (email)"),
                List.of("REPLACE INTO r_mail (k, email) SELECT k, s FROM r_hash", "unique key (email)"),
                List.of("REPLACE INTO r_prefix VALUES ('abc', 1)", "unique key (name (2), n)"),
                List.of("REPLACE INTO r_nick VALUES (1, 'x')", "UNIQUE secondary lookup r_nick_nick"),
                List.of("REPLACE INTO r_gen (k, a) VALUES (1, 2)", "generated column"),
                List.of("REPLACE INTO r_gen (k, a) SELECT k, a FROM r_hash", "generated column"))) {
            String sql = refused.get(0);
            var e = assertThrows(SQLException.class, () -> lutra.createStatement().executeUpdate(sql), sql);
            assertRefusal(e, sql);
            assertTrue(e.getMessage().contains(refused.get(1)) && e.getMessage().contains("REPLACE"), e.getMessage());
        }
        for (String table : List.of("r_mail", "r_prefix", "r_nick", "r_gen")) assertEquals(List.of(), rows(lutra, "SELECT * FROM " + table), table);
        var e = assertThrows(SQLException.class, () -> lutra.createStatement()
                .executeUpdate("INSERT INTO r_hash SELECT * FROM r_range ON DUPLICATE KEY UPDATE a = r_range.a"));
        assertRefusal(e);
        assertTrue(e.getMessage().contains("ON DUPLICATE KEY UPDATE naming r_range.a"), e.getMessage());
    }

    /**
     * Lookup keys a second router still has cached at home: one moved to another partition, one replicated on two
     * (SET PARTITION); its REPLACEs are refused there by the placement triggers (the insert half, and the delete half
     * of a replicated key) and redirected, and a replicated key's rows are replaced on every copy, counted once: sent
     * as written (r_lookup, r_child: two unique keys) and as an upsert of every column (r_single: one).
     */
    @Test
    void movedAndReplicatedLookupKeysAreReplacedWhereTheyLiveOnEveryCopy() throws Exception {
        for (String table : List.of("r_lookup", "r_child", "r_single")) {
            differential.both("INSERT INTO " + table + " VALUES (100, 0, 0, 1, 'a'), (100, 1, 1, 1, 'b'), (101, 0, 0, 1, 'c'), (102, 0, 0, 1, 'd')");
        }
        var catalog = differential.router.server.catalog();
        var owner = catalog.table("r_lookup");
        int home = owner.partitioning().placeNew(owner.key(101));
        String away = catalog.partition((home + 1) % 4).name();
        var stale = new TestRouter(differential.router, "replaceitB", List.of());
        try (Connection viaStale = stale.connect()) {
            assertEquals(4, rows(viaStale, "SELECT * FROM r_lookup WHERE k IN (100, 101, 102)").size(), "the second router caches the keys at home");
            try (var st = lutra.createStatement()) {
                st.executeUpdate("ALTER TABLE r_lookup SET PARTITION = (p1, p3) WHERE k = 100");
                st.executeUpdate("ALTER TABLE r_lookup SET PARTITION = " + away + " WHERE k = 101");
            }
            for (String table : List.of("r_lookup", "r_child", "r_single")) {
                String sql = "REPLACE INTO " + table + " VALUES (100, 0, 1, 9, 'r'), (101, 0, 0, 9, 'r'), (102, 5, 0, 9, 'r')";
                assertNull(compareWrite(viaStale, sql, table), sql);
                assertNull(compareWrite(viaStale, sql, table), "again (rows written unchanged): " + sql);
                assertNull(compareWrite(viaStale, "REPLACE INTO " + table + " SET k = 100, seq = 7, u = 1", table));
                for (int p : List.of(1, 3)) {
                    try (var c = differential.router.partition(p)) {
                        assertEquals(rows(reference, "SELECT * FROM " + table + " WHERE k = 100 ORDER BY seq"),
                                rows(c, "SELECT * FROM " + table + " WHERE k = 100 ORDER BY seq"), table + ": the copy on p" + p);
                    }
                }
                try (var c = differential.router.partition((home + 1) % 4)) {
                    assertEquals(rows(reference, "SELECT * FROM " + table + " WHERE k = 101"), rows(c, "SELECT * FROM " + table + " WHERE k = 101"), table + ": moved key");
                }
            }
        } finally {
            stale.server.close(); // not stale.close(): that drops the partitions' databases, which the first router still uses
        }
    }

    @Test
    void insideATransactionAReplaceIsUndoneByRollbackOnEveryPartition() throws SQLException {
        var before = rows(lutra, "SELECT * FROM r_hash ORDER BY 1, 2");
        lutra.setAutoCommit(false);
        try (var st = lutra.createStatement()) {
            int count = st.executeUpdate("REPLACE INTO r_hash VALUES (0, 0, 0, -1, 't'), (1, 0, 1, -1, 't'), (2, 9, 0, -1, 't'), (3, 0, 3, -1, 't')");
            assertTrue(count >= 4, "count " + count);
            lutra.rollback();
        } finally {
            lutra.setAutoCommit(true);
        }
        assertEquals(before, rows(lutra, "SELECT * FROM r_hash ORDER BY 1, 2"));
    }
}
