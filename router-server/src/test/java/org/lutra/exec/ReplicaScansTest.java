package org.lutra.exec;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.SchemaParser;

import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The shard SQL of a scan while keys are replicated: the table read without the copies a partition holds for another. */
class ReplicaScansTest {
    private final Catalog catalog = SchemaParser.parse("""
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) COLLATE utf8mb4_bin, karma INT) PARTITION BY lookup(id) ON (p0, p1) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT, destination INT) PARTITION BY lookup(source) SAME AS users;
            """, List.of("p0", "p1"));

    private String rewrite(String table, String sql) throws SQLException {
        var t = catalog.table(table);
        return ReplicaScans.withoutCopies(sql, t, (Partitioning.LookedUp) t.partitioning(), "p1");
    }

    private static final String USERS = "(SELECT * FROM `users` WHERE `id` NOT IN (SELECT k FROM `lutra_place_users` WHERE partitions LIKE '%,%'"
            + " AND SUBSTRING_INDEX(partitions, ',', 1) <> 'p1'))";

    @Test
    void aSingleTableScanReadsADerivedTableOfTheSameName() throws SQLException {
        assertEquals("SELECT COUNT(*), SUM(karma) FROM " + USERS + " AS `users`", rewrite("users", "SELECT COUNT(*), SUM(karma) FROM users"));
        assertEquals("SELECT u.name, WEIGHT_STRING(u.name AS CHAR(64)) FROM " + USERS + " u WHERE karma > ? ORDER BY u.name LIMIT 3",
                rewrite("users", "SELECT u.name, WEIGHT_STRING(u.name AS CHAR(64)) FROM users u WHERE karma > ? ORDER BY u.name LIMIT 3"));
        assertEquals("SELECT name FROM " + USERS + " AS `users` WHERE name = ?", rewrite("users", "SELECT name FROM `users` WHERE name = ?"));
        assertTrue(rewrite("followers", "SELECT COUNT(*) FROM followers").contains("`source` NOT IN (SELECT k FROM `lutra_place_users`"));
    }

    @Test
    void joinsAndSubqueriesAreRefused() {
        for (String sql : List.of("SELECT COUNT(*) FROM users u JOIN followers f ON f.source = u.id",
                "SELECT COUNT(*) FROM users WHERE id IN (SELECT source FROM followers)", "SELECT (SELECT COUNT(*) FROM users) FROM users",
                "SELECT name FROM users WHERE name = 'from users'" /* where the table is named is not certain: refused, not guessed */)) {
            var e = assertThrows(SQLException.class, () -> rewrite("users", sql), sql);
            org.lutra.Refusals.assertRefusal(e);
        }
    }
}
