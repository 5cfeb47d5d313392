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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Writes of the routing column as applications send them, through Lutra (its driver and Connector/J at the MySQL
 * listener) and on one plain MariaDB holding the same rows: an INSERT without its routing column is placed by the value
 * the column's default gives it, and an UPDATE that sets the routing column moves each row it matches to where the new
 * value places it (read locked, deleted where it was, inserted there, in one transaction). After each statement the
 * counts or both errors' codes agree and the table reads alike; every row is on the partition its value places it on
 * (read on the partitions themselves). Also: the ORM's two steps (Hibernate's insert without the owner, then
 * {@code UPDATE ... SET owner_id = ?}), a rollback, sessions moving rows at once, and the refusals.
 *
 * <p>Seed: {@code -Dlutra.rcw.seed=N}.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RoutingColumnWritesIT {
    static final String SCHEMA = """
            CREATE TABLE owners (id INT PRIMARY KEY, name VARCHAR(20)) PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE pets (id INT PRIMARY KEY, name VARCHAR(30), birth_date DATE, owner_id INT,
              FOREIGN KEY (owner_id) REFERENCES owners (id)) PARTITION BY lookup(owner_id) SAME AS owners;
            CREATE TABLE visits (id INT PRIMARY KEY, pet_id INT, note VARCHAR(20), FOREIGN KEY (pet_id) REFERENCES pets (id))
              PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE h (id INT PRIMARY KEY, k INT NOT NULL DEFAULT 7, v VARCHAR(20)) PARTITION BY hash(k) ON (p0, p1, p2, p3);
            CREATE TABLE r (id INT PRIMARY KEY, k VARCHAR(10) COLLATE utf8mb4_bin, v INT) PARTITION BY range(k) ON (p0 < 'f', p1 < 'm', p2 < 't', p3);
            CREATE TABLE u (id INT PRIMARY KEY, k BIGINT UNSIGNED) PARTITION BY hash(k) ON (p0, p1, p2, p3);
            """;
    static final List<String> TABLES = List.of("owners", "pets", "visits", "h", "r");

    Differential diff;
    long seed;

    @BeforeAll
    void start(Shards shards) throws Exception {
        seed = Long.getLong("lutra.rcw.seed", System.nanoTime() % 1_000_000_000L);
        System.out.println("RoutingColumnWritesIT seed " + seed + " (replay with -Dlutra.rcw.seed=" + seed + ")");
        diff = new Differential(shards, "rcwit", SCHEMA);
        for (int o = 1; o <= 12; o++) diff.both("INSERT INTO owners VALUES (" + o + ", 'owner" + o + "')");
        for (int p = 1; p <= 30; p++) diff.both("INSERT INTO pets VALUES (" + p + ", 'pet" + p + "', '2020-01-" + (p % 28 + 1) + "', " + (p % 12 + 1) + ")");
        for (int v = 1; v <= 20; v++) diff.both("INSERT INTO visits VALUES (" + v + ", " + (v % 30 + 1) + ", 'visit" + v + "')");
        for (int i = 1; i <= 30; i++) diff.both("INSERT INTO h VALUES (" + i + ", " + (i % 9) + ", 'h" + i + "')");
        for (int i = 1; i <= 20; i++) diff.both("INSERT INTO r VALUES (" + i + ", '" + (char) ('a' + i) + "', " + i + ")");
    }

    @AfterAll
    void stop() throws Exception {
        if (diff != null) diff.close();
    }

    @Test
    void anOrmWritesAChildWithoutItsOwnerThenSetsIt() throws Exception {
        try (var mysql = diff.router.connectMysql("useServerPrepStmts=true")) {
            for (Connection lutra : List.of(diff.lutra, mysql)) {
                int id = lutra == diff.lutra ? 101 : 102;
                for (Connection c : List.of(lutra, diff.reference)) {
                    try (var insert = c.prepareStatement("insert into pets (birth_date, name, id) values (?, ?, ?)")) {
                        insert.setDate(1, java.sql.Date.valueOf("2021-03-04"));
                        insert.setString(2, "Leo");
                        insert.setInt(3, id);
                        assertEquals(1, insert.executeUpdate());
                    }
                    try (var update = c.prepareStatement("update pets set birth_date = ?, name = ?, owner_id = ? where id = ?")) {
                        update.setDate(1, java.sql.Date.valueOf("2021-03-05"));
                        update.setString(2, "Leo");
                        update.setInt(3, 5);
                        update.setInt(4, id);
                        assertEquals(1, update.executeUpdate());
                    }
                }
            }
        }
        assertSame("pets");
        assertPlaced();
        assertEquals(List.of(List.of("2")), Differential.rows(diff.lutra, "SELECT COUNT(*) FROM pets WHERE owner_id = 5 AND id > 100"),
                "read by the new owner: both rows where owner 5 lives");
    }

    @Test
    void randomWritesOfRoutingColumnsDoWhatOneMariaDbDoes() throws Exception {
        var random = new SplittableRandom(seed);
        var problems = new ArrayList<String>();
        int refused = 0;
        for (int i = 0; i < 150 && problems.size() < 3; i++) {
            String sql = write(random);
            var written = diff.write(diff.lutra, sql);
            if (written.problem() != null && written.problem().startsWith("refused")) {
                refused++;
                continue;
            }
            if (written.problem() != null) problems.add(sql + ": " + written.problem());
            for (String t : TABLES) {
                String differs = diff.sameRows(t, "SELECT * FROM " + t + " ORDER BY id");
                if (differs != null) problems.add(sql + ": " + differs);
            }
        }
        assertEquals(List.of(), problems);
        assertTrue(refused < 10, refused + " refused");
        assertPlaced();
    }

    private static String write(SplittableRandom r) {
        int id = r.nextInt(40) + 1;
        String ids = "(" + id + ", " + (r.nextInt(40) + 1) + ", " + (r.nextInt(40) + 1) + ")";
        return switch (r.nextInt(11)) {
            case 9 -> "UPDATE h SET v = 'kept" + id + "', k = 3 WHERE k = 3"; // every row stays: updated in place
            case 10 -> "UPDATE pets SET birth_date = '2022-02-0" + (id % 9 + 1) + "', name = 'saved', owner_id = " + (id % 12 + 1) + " WHERE id IN " + ids;
            case 0 -> "UPDATE pets SET owner_id = " + (r.nextInt(14) + 1) + " WHERE id = " + id; // 13, 14: no such owner (1452)
            case 1 -> "UPDATE pets SET owner_id = " + (r.nextInt(12) + 1) + ", name = 'moved" + id + "' WHERE id IN " + ids;
            case 2 -> "UPDATE pets SET owner_id = NULL WHERE name = 'pet" + id + "'";
            case 3 -> "UPDATE h SET k = " + r.nextInt(20) + " WHERE id " + (r.nextBoolean() ? "= " + id : "IN " + ids);
            case 4 -> "UPDATE h SET v = 'x', k = " + r.nextInt(20) + " WHERE k = " + r.nextInt(9);
            case 5 -> "UPDATE r SET k = '" + (char) ('a' + r.nextInt(26)) + "' WHERE id " + (r.nextBoolean() ? "= " + id : "> " + id);
            // k from its DEFAULT 7; ids not used before (h's primary key does not hold k, so it is unique per partition only:
            // a row moved away and an id inserted again would be two rows, a documented difference from one MariaDB)
            case 6 -> "INSERT INTO h (id, v) VALUES (" + (1000 + r.nextInt(1_000_000)) + ", 'dflt')";
            case 7 -> "UPDATE h SET k = 3, v = NULL WHERE id IN " + ids;
            default -> "INSERT INTO pets (id, name) VALUES (" + (200 + id) + ", 'stray')"; // no owner: NULL, on p0
        };
    }

    @Test
    void aRolledBackMoveLeavesEveryRowWhereItWas() throws Exception {
        String before = placement();
        for (Connection c : List.of(diff.lutra, diff.reference)) {
            c.setAutoCommit(false);
            try (var st = c.createStatement()) {
                st.executeUpdate("UPDATE pets SET owner_id = 3 WHERE id BETWEEN 1 AND 10");
                st.executeUpdate("UPDATE h SET k = 11 WHERE id < 20");
                c.rollback();
            } finally {
                c.setAutoCommit(true);
            }
        }
        assertSame("pets");
        assertSame("h");
        assertEquals(before, placement(), "every row on its partition as before");
        for (Connection c : List.of(diff.lutra, diff.reference)) {
            c.setAutoCommit(false);
            try (var st = c.createStatement()) {
                st.executeUpdate("UPDATE pets SET owner_id = 4 WHERE id BETWEEN 11 AND 14");
                c.commit();
            } finally {
                c.setAutoCommit(true);
            }
        }
        assertSame("pets");
        assertPlaced();
    }

    @Test
    void sessionsMovingRowsAtOnceLoseAndDoubleNothing() throws Exception {
        int sessions = 4, moves = 25;
        ExecutorService pool = Executors.newFixedThreadPool(sessions);
        try {
            var done = new ArrayList<Future<List<String>>>();
            for (int s = 0; s < sessions; s++) {
                int session = s;
                done.add(pool.submit(() -> {
                    var r = new SplittableRandom(seed + 100 + session);
                    var statements = new ArrayList<String>();
                    try (var c = session % 2 == 0 ? diff.router.connect() : diff.router.connectMysql("")) {
                        for (int i = 0; i < moves; i++) {
                            // each session its own rows: the end state does not depend on how the sessions interleave
                            String sql = i < 10 ? "INSERT INTO h VALUES (" + (300 + session * 10 + i) + ", " + r.nextInt(20) + ", 's" + session + "')"
                                    : "UPDATE h SET k = " + r.nextInt(20) + " WHERE id = " + (300 + session * 10 + r.nextInt(10));
                            for (int attempt = 0; ; attempt++) {
                                try (var st = c.createStatement()) {
                                    st.executeUpdate(sql);
                                    break;
                                } catch (SQLException e) {
                                    if (e.getErrorCode() != 1213 && e.getErrorCode() != 1205 || attempt == 5) throw e; // deadlocks are retried
                                }
                            }
                            statements.add(sql);
                        }
                    }
                    return statements;
                }));
            }
            for (var f : done) {
                for (String sql : f.get()) {
                    try (var st = diff.reference.createStatement()) {
                        st.executeUpdate(sql);
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertSame("h");
        assertPlaced();
    }

    /**
     * A move that fails after its deletes, in the router (a BIGINT UNSIGNED routing value above 2^63 - 1 is refused when the
     * new row is routed): inside the client's transaction, that transaction is failed, so the deleted row cannot be committed
     * gone; rolled back, it is where it was.
     */
    @Test
    void aMoveThatFailsAfterItsDeletesFailsTheTransaction() throws Exception {
        try (var st = diff.lutra.createStatement()) {
            st.executeUpdate("INSERT INTO u VALUES (1, 5), (2, 6)");
            diff.lutra.setAutoCommit(false);
            try {
                var e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, () -> st.executeUpdate("UPDATE u SET k = 18446744073709551615 WHERE id IN (1, 2)"));
                assertEquals(1235, e.getErrorCode(), e.getMessage());
                var commit = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, diff.lutra::commit, "the failed transaction does not commit");
                assertTrue(commit.getSQLState() != null, commit.getMessage());
            } finally {
                diff.lutra.rollback();
                diff.lutra.setAutoCommit(true);
            }
            assertEquals(List.of(List.of("1", "5"), List.of("2", "6")), Differential.rows(diff.lutra, "SELECT id, k FROM u ORDER BY id"));
            st.executeUpdate("UPDATE u SET k = 7 WHERE id = 1"); // and a move that succeeds, auto-commit
            assertEquals(List.of(List.of("1", "7"), List.of("2", "6")), Differential.rows(diff.lutra, "SELECT id, k FROM u ORDER BY id"));
        }
    }

    @Test
    void explainRouteShowsTheMove() throws Exception {
        var lines = Differential.rows(diff.lutra, "EXPLAIN ROUTE UPDATE pets SET owner_id = 3 WHERE id = 7");
        assertTrue(lines.getFirst().getFirst().startsWith("Move rows of pets"), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.get(2) != null && l.get(2).contains("FOR UPDATE")), lines.toString());
    }

    @Test
    void whatCannotMoveExactlyIsRefused() throws Exception {
        for (String sql : List.of(
                "UPDATE owners SET id = 50 WHERE id = 1", // pets reference owners on their own partition
                "UPDATE h SET k = k + 1 WHERE id = 1", // computed from the row
                "UPDATE h SET k = 3 WHERE id = 1 ORDER BY id LIMIT 1",
                "UPDATE pets SET owner_id = (SELECT MAX(id) FROM owners) WHERE id = 1")) {
            var e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, () -> diff.lutra.createStatement().executeUpdate(sql), sql);
            assertEquals(1235, e.getErrorCode(), sql + ": " + e.getMessage());
            assertTrue(e.getMessage().contains("routing column"), e.getMessage());
        }
        assertSame("owners");
        assertSame("h");
    }

    private void assertSame(String table) throws SQLException {
        assertNull(diff.sameRows(table, "SELECT * FROM " + table + " ORDER BY id"));
    }

    /** Each row of pets, h and r on the partition its routing value places it on, read on the partitions themselves. */
    private void assertPlaced() throws SQLException {
        var catalog = diff.router.server.catalog();
        int rows = 0;
        for (int p = 0; p < 4; p++) {
            try (var c = diff.router.partition(p)) {
                var owners = new java.util.HashSet<String>();
                for (var row : Differential.rows(c, "SELECT id FROM owners")) owners.add(row.getFirst());
                for (var row : Differential.rows(c, "SELECT id, owner_id FROM pets")) {
                    rows++;
                    assertTrue(row.get(1) == null ? p == 0 : owners.contains(row.get(1)), "pet " + row + " with its owner, on p" + p);
                }
                for (var row : Differential.rows(c, "SELECT id, k FROM h")) {
                    rows++;
                    assertEquals(p, catalog.table("h").partitioning().placeNew(Long.parseLong(row.get(1))), "h " + row + " on p" + p);
                }
                for (var row : Differential.rows(c, "SELECT id, k FROM r")) {
                    rows++;
                    assertEquals(p, catalog.table("r").partitioning().placeNew(catalog.table("r").key(row.get(1))), "r " + row + " on p" + p);
                }
            }
        }
        int expected = 0;
        for (String t : List.of("pets", "h", "r")) expected += Integer.parseInt(Differential.rows(diff.reference, "SELECT COUNT(*) FROM " + t).getFirst().getFirst());
        assertEquals(expected, rows, "every row once");
    }

    private String placement() throws SQLException {
        var out = new StringBuilder();
        for (int p = 0; p < 4; p++) {
            try (var c = diff.router.partition(p)) {
                out.append(p).append(Differential.rows(c, "SELECT id FROM pets ORDER BY id")).append(Differential.rows(c, "SELECT id FROM h ORDER BY id"));
            }
        }
        return out.toString();
    }
}
