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
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.*;

/**
 * UPDATE and DELETE with subqueries (IN, NOT IN, EXISTS, NOT EXISTS, scalar; in WHERE and SET; over other tables and the
 * target itself; uncorrelated, and correlated over co-located or replicated tables) through Lutra over four partitions
 * and on one plain MariaDB holding the same rows. After each statement: the update counts, or both errors' codes (1242
 * where a scalar of several rows is evaluated), and the written table whole; at the end every table. Correlated
 * subqueries over tables not co-located are refused (42000/1235) and counted apart.
 *
 * <p>Seed and size: {@code -Dlutra.wsq.seed=N}, {@code -Dlutra.wsq.statements=N} (default 300).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WriteWithSubqueryIT {
    private static final String COLUMNS = "id INT PRIMARY KEY, a INT, b DECIMAL(10,2), s VARCHAR(20) COLLATE utf8mb4_general_ci";
    static final String SCHEMA = """
            CREATE TABLE t_hash (%1$s) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE t_range (%1$s) PARTITION BY range(id) ON (p0 < 25, p1 < 50, p2 < 75, p3);
            CREATE TABLE t_lookup (%1$s) PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE t_child (id INT NOT NULL, pid INT NOT NULL, a INT, b DECIMAL(10,2), s VARCHAR(20) COLLATE utf8mb4_general_ci,
              PRIMARY KEY (id, pid)) PARTITION BY lookup(pid) SAME AS t_lookup;
            CREATE TABLE t_rep (%1$s) REPLICATED;
            CREATE TABLE t_rep_nopk (id INT NOT NULL, a INT, KEY (id)) REPLICATED;
            """.formatted(COLUMNS);
    static final List<String> TABLES = List.of("t_hash", "t_range", "t_lookup", "t_child", "t_rep");
    static final List<String> WORDS = List.of("ann", "bob", "Cid", "dee", "eve");

    Differential differential;
    Connection lutra;
    Connection reference;
    long seed;

    @BeforeAll
    void start(Shards shards) throws Exception {
        seed = Long.getLong("lutra.wsq.seed", System.nanoTime());
        System.out.println("WriteWithSubqueryIT seed " + seed + " (replay with -Dlutra.wsq.seed=" + seed + ")");
        differential = new Differential(shards, "wsqit", SCHEMA);
        lutra = differential.lutra;
        reference = differential.reference;
        refill(new SplittableRandom(seed));
    }

    /** Rows with ids 0..99 where deletes left gaps (INSERT IGNORE keeps the rows still there). */
    private void refill(SplittableRandom r) throws SQLException {
        for (String table : TABLES) {
            var rows = new ArrayList<String>();
            for (int id = 0; id < 100; id++) {
                String pid = table.equals("t_child") ? r.nextInt(60) + ", " : "";
                rows.add("(" + id + ", " + pid + (r.nextInt(6) == 0 ? "NULL" : r.nextInt(15)) + ", " + (r.nextInt(6) == 0 ? "NULL" : r.nextInt(90) + ".25")
                        + ", " + (r.nextInt(6) == 0 ? "NULL" : "'" + WORDS.get(r.nextInt(WORDS.size())) + "'") + ")");
            }
            differential.both("INSERT IGNORE INTO " + table + " VALUES " + String.join(", ", rows));
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    @Test
    void randomWritesWithSubqueriesChangeWhatOneMariaDbChanges() throws SQLException {
        var r = new SplittableRandom(seed + 1);
        int statements = Integer.getInteger("lutra.wsq.statements", 300);
        int answered = 0;
        int failedAlike = 0;
        var refused = new ArrayList<String>();
        var mismatches = new ArrayList<String>();
        for (int i = 0; i < statements && mismatches.size() < 3; i++) {
            if (i % 15 == 14) refill(r);
            String target = pick(r, TABLES);
            boolean crossCorrelated = r.nextInt(12) == 0;
            String sql = crossCorrelated ? notColocated(r, target) : write(r, target);
            String problem = compare(sql);
            if (problem == null) problem = compareTable(target);
            if (problem == null) {
                answered++;
            } else if (problem.startsWith("failed alike")) {
                failedAlike++;
                problem = compareTable(target);
                if (problem != null) mismatches.add(sql + "\n    " + problem);
            } else if (problem.startsWith("refused")) {
                if (!crossCorrelated) mismatches.add(sql + "\n    " + problem);
                else refused.add(sql);
            } else {
                mismatches.add(sql + "\n    " + problem);
            }
        }
        for (String table : TABLES) {
            String problem = compareTable(table);
            if (problem != null) mismatches.add("at the end, " + table + ": " + problem);
        }
        System.out.println("WriteWithSubqueryIT: " + answered + " answered, " + failedAlike + " failed alike, " + refused.size() + " refused (correlated, not co-located)");
        assertTrue(mismatches.isEmpty(), "seed " + seed + ":\n" + String.join("\n", mismatches));
        assertTrue(answered * 10 > statements * 7, "too few answered: " + answered);
        assertTrue(failedAlike > 0, "no scalar of several rows was evaluated (1242) on both");
    }

    @Test
    void aSubqueryReadingTheTargetSeesItAsBeforeTheWrite() throws SQLException {
        refill(new SplittableRandom(seed + 2));
        assertNull(compareWriteAndTable("UPDATE t_hash SET a = (SELECT MAX(a) FROM t_hash) + 1 WHERE id < 30", "t_hash"));
        assertNull(compareWriteAndTable("DELETE FROM t_hash WHERE b > (SELECT AVG(b) FROM t_hash)", "t_hash"));
        assertNull(compareWriteAndTable("DELETE FROM t_lookup WHERE id IN (SELECT id + 1 FROM t_lookup WHERE a > 3)", "t_lookup"));
        // correlated over the target itself, tied by the routing column: inside each partition
        assertNull(compareWriteAndTable("UPDATE t_lookup SET a = (SELECT COUNT(*) FROM t_child c WHERE c.pid = t_lookup.id) WHERE id < 50", "t_lookup"));
    }

    @Test
    void correlatedSubqueriesOverTablesNotCoLocatedAreRefusedByName() {
        var e = assertThrows(SQLException.class, () -> lutra.createStatement()
                .executeUpdate("DELETE FROM t_hash WHERE EXISTS (SELECT 1 FROM t_range r WHERE r.id = t_hash.id)"));
        org.lutra.Refusals.assertRefusal(e);
        assertTrue(e.getMessage().contains("correlated subqueries in WHERE"), e.getMessage());
        var row = assertThrows(SQLException.class, () -> lutra.createStatement()
                .executeUpdate("UPDATE t_hash SET (a, b) = (SELECT a, b FROM t_range WHERE id = 1)"));
        assertEquals("42000", row.getSQLState());
    }

    @Test
    void inATransactionTheSubquerysRowsAreShareLocked() throws Exception {
        refill(new SplittableRandom(seed + 3));
        try (var other = differential.router.connect()) {
            lutra.setAutoCommit(false);
            var writer = java.util.concurrent.Executors.newSingleThreadExecutor();
            try {
                lutra.createStatement().executeUpdate("UPDATE t_hash SET a = 1 WHERE id IN (SELECT id FROM t_range WHERE id = 3)");
                // the subquery's row is shared-locked until the transaction ends, as InnoDB locks it at REPEATABLE READ
                var waiting = writer.submit(() -> other.createStatement().executeUpdate("UPDATE t_range SET a = 2 WHERE id = 3"));
                assertThrows(java.util.concurrent.TimeoutException.class, () -> waiting.get(1500, java.util.concurrent.TimeUnit.MILLISECONDS));
                lutra.rollback();
                assertEquals(1, waiting.get(30, java.util.concurrent.TimeUnit.SECONDS));
                reference.createStatement().executeUpdate("UPDATE t_range SET a = 2 WHERE id = 3"); // the same rows on both sides
            } finally {
                lutra.rollback();
                lutra.setAutoCommit(true);
                writer.shutdownNow();
            }
        }
    }

    /**
     * Subqueries over a REPLICATED table that run inside each partition of the target take their shared locks on the
     * table's first copy first (LockingReadsIT shows the waiting): with parameters before, inside and after them the write
     * does what one MariaDB's does; a table without a PRIMARY KEY, whose rows the router cannot lock whole, is refused
     * where InnoDB would lock them, and answered where it would not (an UPDATE at READ COMMITTED).
     */
    @Test
    void subqueriesReadingReplicatedTablesInPlaceBindTheirParameters() throws SQLException {
        refill(new SplittableRandom(seed + 4));
        differential.both("DELETE FROM t_rep_nopk");
        differential.both("INSERT INTO t_rep_nopk VALUES (1, 4), (2, 5), (3, NULL)");
        String update = "UPDATE t_hash SET a = ? WHERE id BETWEEN ? AND 60 AND a IN (SELECT a FROM t_rep WHERE id < ? AND a > ?)"
                + " AND b <> (SELECT MIN(b) FROM t_rep WHERE s = ?) AND id <> ?";
        String delete = "DELETE FROM t_range WHERE id > ? AND EXISTS (SELECT 1 FROM t_rep r WHERE r.id = t_range.id + ? AND r.a > ?)";
        var counts = new ArrayList<List<Integer>>();
        for (var c : List.of(lutra, reference)) {
            try (var u = c.prepareStatement(update); var d = c.prepareStatement(delete)) {
                Object[] values = {77, 5, 80, 3, "eve", 13};
                for (int i = 0; i < values.length; i++) u.setObject(i + 1, values[i]);
                int updated = u.executeUpdate();
                d.setInt(1, 20);
                d.setInt(2, 1);
                d.setInt(3, 6);
                counts.add(List.of(updated, d.executeUpdate()));
            }
        }
        assertEquals(counts.get(1), counts.get(0), "update and delete counts: lutra / mariadb");
        assertTrue(counts.get(1).get(0) > 0 && counts.get(1).get(1) > 0, "rows written: " + counts.get(1));
        assertNull(compareTable("t_hash"));
        assertNull(compareTable("t_range"));
        String correlated = "UPDATE t_hash SET a = (SELECT MAX(x.a) FROM t_rep_nopk x WHERE x.id = t_hash.id) WHERE id < 5";
        var e = assertThrows(SQLException.class, () -> lutra.createStatement().executeUpdate(correlated));
        org.lutra.Refusals.assertRefusal(e);
        assertTrue(e.getMessage().contains("t_rep_nopk"), e.getMessage());
        try {
            lutra.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            reference.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            assertNull(compareWriteAndTable(correlated, "t_hash"));
        } finally {
            lutra.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            reference.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        }
    }

    // ---- statements ------------------------------------------------------------------------------

    private String write(SplittableRandom r, String target) {
        String source = pick(r, TABLES);
        String where = r.nextInt(3) == 0 ? "" : " AND " + predicate(r);
        String inner = "SELECT " + pick(r, List.of("id", "a", "id + 1", "a + 10")) + " FROM " + source + " WHERE " + predicate(r);
        String condition = switch (r.nextInt(8)) {
            case 0, 1 -> pick(r, List.of("id", "a")) + " IN (" + inner + ")";
            case 2 -> pick(r, List.of("id", "a")) + " NOT IN (" + inner + ")"; // a's NULLs: NOT IN gives NULL
            case 3 -> "EXISTS (" + inner + ")";
            case 4 -> "NOT EXISTS (" + inner + ")";
            case 5 -> "a = (SELECT " + pick(r, List.of("MAX(a)", "MIN(a)", "COUNT(*)")) + " FROM " + source + " WHERE " + predicate(r) + ")";
            case 6 -> "a > (SELECT a FROM " + source + " WHERE " + pick(r, List.of("id = " + r.nextInt(100), predicate(r))) + ")"; // maybe several rows
            default -> "EXISTS (SELECT 1 FROM t_rep x WHERE x.id = " + target + ".id AND x.a > " + r.nextInt(15) + ")"; // correlated, replicated
        };
        if (target.equals("t_lookup") && r.nextInt(4) == 0) {
            condition = "EXISTS (SELECT 1 FROM t_child c WHERE c.pid = t_lookup.id AND c.a > " + r.nextInt(15) + ")"; // co-located
        }
        condition = r.nextBoolean() ? condition + where : where.isEmpty() ? condition : predicate(r) + " AND " + condition;
        if (r.nextInt(3) == 0) return "DELETE FROM " + target + " WHERE " + condition;
        String set = switch (r.nextInt(4)) {
            case 0 -> "a = IFNULL(a, 0) + 1, s = 'upd'";
            case 1 -> "a = (SELECT MAX(a) FROM " + pick(r, TABLES) + " WHERE " + predicate(r) + ")";
            case 2 -> "b = (SELECT b FROM " + pick(r, TABLES) + " WHERE id = " + r.nextInt(100) + ")";
            default -> "s = (SELECT MIN(s) FROM " + pick(r, TABLES) + " WHERE " + predicate(r) + "), a = a - 1";
        };
        return "UPDATE " + target + " SET " + set + " WHERE " + condition;
    }

    /** A correlated subquery over a table not co-located with the target: refused. */
    private static String notColocated(SplittableRandom r, String target) {
        String other = target.equals("t_range") ? "t_hash" : "t_range";
        return "DELETE FROM " + target + " WHERE EXISTS (SELECT 1 FROM " + other + " o WHERE o.id = " + target + ".id AND o.a > " + r.nextInt(15) + ")";
    }

    private static String predicate(SplittableRandom r) {
        return switch (r.nextInt(7)) {
            case 0 -> "a > " + r.nextInt(15);
            case 1 -> "id < " + r.nextInt(60);
            case 2 -> "s = '" + pick(r, WORDS) + "'";
            case 3 -> "b IS NULL";
            case 4 -> "a IN (" + r.nextInt(15) + ", " + r.nextInt(15) + ")";
            case 5 -> "id = " + r.nextInt(100);
            default -> "id BETWEEN " + r.nextInt(50) + " AND " + (50 + r.nextInt(60));
        };
    }

    private static <T> T pick(SplittableRandom r, List<T> from) {
        return from.get(r.nextInt(from.size()));
    }

    // ---- comparing -------------------------------------------------------------------------------

    /** Null when both agree; "failed alike" when both failed with one error code; "refused ..." (42000/1235); else what differs. */
    private String compare(String sql) throws SQLException {
        var written = differential.write(lutra, sql);
        if (written.problem() != null) return written.problem();
        if (written.count() >= 0) return null;
        return written.failedAlike() ? "failed alike" : "error codes differ: lutra " + written.lutraError() + " / mariadb " + written.referenceError();
    }

    private String compareWriteAndTable(String sql, String table) throws SQLException {
        String problem = compare(sql);
        return problem != null ? problem : compareTable(table);
    }

    private String compareTable(String table) throws SQLException {
        return differential.sameRows(table, "SELECT * FROM " + table + " ORDER BY 1, 2");
    }
}
