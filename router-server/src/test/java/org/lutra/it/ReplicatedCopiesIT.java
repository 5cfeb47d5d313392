package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A write of a REPLICATED table, or of a replicated key's rows (SET PARTITION = (p1, p3)), has the same effect on every
 * copy or none: where the copies would count or warn differently (here a row that only one copy holds, as a unique key
 * meeting what only some partitions hold would), the statement is refused and rolled back, in auto-commit and inside a
 * transaction, and the copies stay as they were. Where they agree, the count and the warnings are one MariaDB's (the
 * warnings once, not once per copy). After every statement the copies are compared on the shards themselves.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicatedCopiesIT {
    static final String SCHEMA = """
            CREATE TABLE kv (k INT PRIMARY KEY, v INT, UNIQUE KEY uv (v)) REPLICATED;
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(20) COLLATE utf8mb4_bin, UNIQUE KEY uname (name))
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE notes (uid INT NOT NULL, n INT NOT NULL, tag INT, PRIMARY KEY (uid, n), UNIQUE KEY utag (tag))
              PARTITION BY lookup(uid) SAME AS users;
            """;

    Differential differential;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "copiesit", SCHEMA);
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    @Test
    @Order(1)
    void copiesThatAgreeWarnOnce() throws Exception {
        same("INSERT INTO kv VALUES (1, 10), (2, 20), (3, 30)");
        same("INSERT IGNORE INTO kv VALUES (1, 11), (4, 40)"); // one duplicate: 1 row, one warning (not one per copy)
        same("INSERT IGNORE INTO kv VALUES (5, 10)");
        same("UPDATE IGNORE kv SET v = 20 WHERE k = 3");
        same("INSERT INTO kv VALUES (6, 60) ON DUPLICATE KEY UPDATE v = 61");
        same("INSERT INTO kv VALUES (6, 60) ON DUPLICATE KEY UPDATE v = 61");
        same("DELETE FROM kv WHERE k > 5");
        assertCopiesIdentical("kv", "k");
    }

    @Test
    @Order(2)
    void aReplicatedTableWhoseCopiesWouldDifferIsRefusedAndRolledBack() throws Exception {
        // a row only partition p2's copy holds (written behind the router's back): any write that meets it differs there
        try (Connection p2 = differential.router.partition(2); var st = p2.createStatement()) {
            st.executeUpdate("INSERT INTO kv VALUES (50, 500)");
        }
        for (String sql : List.of("INSERT IGNORE INTO kv VALUES (50, 501)", "INSERT IGNORE INTO kv VALUES (51, 500)", "UPDATE kv SET v = v + 1 WHERE k >= 50",
                "DELETE FROM kv WHERE v = 500", "INSERT INTO kv VALUES (50, 7) ON DUPLICATE KEY UPDATE v = 8")) {
            assertRefused(differential.lutra, sql);
            assertOnlyP2Differs();
        }
        // an error on one copy (p2's row holds the value) fails the statement on every copy
        assertThrows(SQLException.class, () -> {
            try (var st = differential.lutra.createStatement()) {
                st.executeUpdate("UPDATE kv SET v = 500 WHERE k = 1");
            }
        });
        assertOnlyP2Differs();
        // inside a transaction: the transaction is failed, and nothing of it commits
        var l = differential.lutra;
        l.setAutoCommit(false);
        try {
            try (var st = l.createStatement()) {
                st.executeUpdate("INSERT INTO kv VALUES (60, 600)");
            }
            assertRefused(l, "INSERT IGNORE INTO kv VALUES (50, 502)");
            assertThrows(SQLException.class, l::commit, "the failed transaction does not commit");
        } finally {
            l.rollback();
            l.setAutoCommit(true);
        }
        assertEquals(List.of(), Differential.rows(l, "SELECT k FROM kv WHERE k = 60"), "nothing of the failed transaction stays");
        assertOnlyP2Differs();
        try (Connection p2 = differential.router.partition(2); var st = p2.createStatement()) {
            st.executeUpdate("DELETE FROM kv WHERE k = 50");
        }
        assertCopiesIdentical("kv", "k");
        same("INSERT IGNORE INTO kv VALUES (50, 501)");
        assertCopiesIdentical("kv", "k");
    }

    @Test
    @Order(3)
    void aReplicatedKeysCopiesAgreeOrTheWriteIsRefused() throws Exception {
        same("INSERT INTO users VALUES (1, 'a'), (2, 'b'), (7, 'x')");
        same("INSERT INTO notes VALUES (1, 1, 100), (1, 2, 200), (2, 1, 300), (7, 1, 700)");
        move("ALTER TABLE users SET PARTITION = (p1, p3) WHERE id = 1");
        move("ALTER TABLE users SET PARTITION = p3 WHERE id = 7");
        move("ALTER TABLE users SET PARTITION = p1 WHERE id = 2");
        // key 1's copies: p3 also holds user 7, named 'x', and its note tagged 700; p1 holds user 2, 'b', note 300
        assertRefused(differential.lutra, "UPDATE IGNORE users SET name = 'x' WHERE id = 1");
        assertRefused(differential.lutra, "UPDATE IGNORE users SET name = 'b' WHERE id = 1");
        assertRefused(differential.lutra, "INSERT IGNORE INTO notes VALUES (1, 3, 700)");
        assertRefused(differential.lutra, "UPDATE IGNORE notes SET tag = 300 WHERE uid = 1 AND n = 1");
        assertRefused(differential.lutra, "UPDATE IGNORE notes SET tag = tag + 1"); // names no key: each copy writes other keys' rows too
        assertKeyCopiesIdentical(1);
        // where the copies agree: counted and warned once, as one MariaDB (keys replicated and not in one statement)
        same("UPDATE users SET name = CONCAT(name, '!') WHERE id IN (1, 2, 7)");
        same("INSERT IGNORE INTO notes VALUES (1, 1, 101), (1, 4, 400), (2, 2, 301)");
        same("INSERT INTO notes VALUES (1, 5, 500), (7, 2, 702), (2, 3, 303)");
        same("DELETE FROM notes WHERE uid IN (1, 7) AND n > 3");
        same("UPDATE notes SET tag = tag + 1 WHERE uid = 1");
        assertKeyCopiesIdentical(1);
    }

    private void move(String sql) throws SQLException {
        try (var st = differential.lutra.createStatement()) {
            st.executeUpdate(sql);
        }
    }

    void same(String sql) throws SQLException {
        String lutra = Differential.outcome(differential.lutra, sql);
        String reference = Differential.outcome(differential.reference, sql);
        assertEquals(reference, lutra, sql);
        for (String t : List.of("kv", "users", "notes")) {
            String problem = differential.sameRows(t, "SELECT * FROM " + t + " ORDER BY 1, 2");
            assertNull(problem, sql + ": " + problem);
        }
        assertCopiesIdentical("kv", "k");
    }

    static void assertRefused(Connection c, String sql) {
        var e = assertThrows(SQLException.class, () -> {
            try (var st = c.createStatement()) {
                st.executeUpdate(sql);
            }
        }, sql);
        assertTrue(org.lutra.protocol.Refusal.is(e), sql + ": " + e.getMessage());
        assertTrue(e.getMessage().contains("copies"), sql + ": " + e.getMessage());
    }

    void assertCopiesIdentical(String table, String key) throws SQLException {
        List<List<String>> first = null;
        for (int p = 0; p < 4; p++) {
            try (Connection shard = differential.router.partition(p)) {
                var rows = Differential.rows(shard, "SELECT * FROM " + table + " ORDER BY " + key);
                if (first == null) first = rows;
                assertEquals(first, rows, table + ": the copy on p" + p + " differs from p0's");
            }
        }
    }

    /** p2's copy of kv holds row 50, and every other copy is as p0's. */
    void assertOnlyP2Differs() throws SQLException {
        List<List<String>> p0 = null;
        for (int p = 0; p < 4; p++) {
            try (Connection shard = differential.router.partition(p)) {
                var rows = Differential.rows(shard, "SELECT * FROM kv WHERE k <> 50 ORDER BY k");
                if (p0 == null) p0 = rows;
                assertEquals(p0, rows, "kv on p" + p);
                assertEquals(p == 2 ? List.of(List.of("50", "500")) : List.of(), Differential.rows(shard, "SELECT * FROM kv WHERE k = 50"), "p" + p);
            }
        }
        assertEquals(Differential.rows(differential.reference, "SELECT * FROM kv ORDER BY k"), p0, "the copies as one MariaDB");
    }

    /** Every partition holding rows of key {@code key} holds the same rows of users and notes. */
    void assertKeyCopiesIdentical(int key) throws SQLException {
        List<List<String>> first = null;
        int holding = 0;
        for (int p = 0; p < 4; p++) {
            try (Connection shard = differential.router.partition(p)) {
                var rows = Differential.rows(shard, "SELECT * FROM users WHERE id = " + key);
                if (rows.isEmpty()) continue;
                holding++;
                rows.addAll(Differential.rows(shard, "SELECT * FROM notes WHERE uid = " + key + " ORDER BY n"));
                if (first == null) first = rows;
                assertEquals(first, rows, "key " + key + " on p" + p);
            }
        }
        assertEquals(2, holding, "key " + key + " is replicated on two partitions");
    }
}
