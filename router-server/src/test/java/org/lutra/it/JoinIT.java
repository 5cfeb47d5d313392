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
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/**
 * Joins the placement lets each partition run on its own rows — SAME AS tables on their routing
 * columns, hash tables on the same partitions by their keys, any table with replicated ones —
 * compared with one plain database holding the same rows; and the joins it refuses.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JoinIT {
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(32) COLLATE utf8mb4_general_ci, country CHAR(2))
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT NOT NULL, destination INT NOT NULL, PRIMARY KEY (source, destination))
              PARTITION BY lookup(source) SAME AS users;
            CREATE TABLE orders (id INT PRIMARY KEY, user_id INT, total DECIMAL(8,2)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE invoices (id INT PRIMARY KEY, paid TINYINT) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE country (code CHAR(2) PRIMARY KEY, name VARCHAR(32)) REPLICATED;
            CREATE TABLE currency (code CHAR(2) PRIMARY KEY, symbol VARCHAR(4)) REPLICATED;
            """;

    Differential differential;
    TestRouter router;
    Connection lutra;
    Connection reference;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "joinit", SCHEMA);
        router = differential.router;
        lutra = differential.lutra;
        reference = differential.reference;
        both("INSERT INTO country VALUES ('CH', 'Switzerland'), ('DE', 'Germany'), ('FR', 'France')");
        both("INSERT INTO currency VALUES ('CH', 'CHF'), ('DE', 'EUR')");
        String[] countries = {"'CH'", "'DE'", "'FR'", "'IT'", "NULL"};
        for (int id = 1; id <= 40; id++) {
            both("INSERT INTO users VALUES (" + id + ", '" + (id % 2 == 0 ? "Ann" : "bob") + id % 5 + "', " + countries[id % 5] + ")");
        }
        for (int i = 1; i <= 60; i++) both("INSERT INTO followers VALUES (" + (i % 23 + 1) + ", " + (i % 40 + 1) + ")");
        for (int id = 1; id <= 50; id++) both("INSERT INTO orders VALUES (" + id + ", " + (id % 45 + 1) + ", " + (id * 13 % 97) + ".25)");
        for (int id = 1; id <= 50; id += 2) both("INSERT INTO invoices VALUES (" + id + ", " + (id % 3 == 0 ? 1 : 0) + ")");
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    @Test
    void coLocatedJoinsRunOnEachPartition() throws SQLException {
        for (String sql : List.of(
                "SELECT u.id, u.name, f.destination FROM users u JOIN followers f ON f.source = u.id",
                "SELECT u.id, f.destination FROM users u JOIN followers f ON f.source = u.id WHERE u.id = 7",
                "SELECT * FROM users u JOIN followers f ON f.source = u.id WHERE f.source IN (1, 2, 3, 30)",
                "SELECT u.id, f.destination FROM users u LEFT JOIN followers f ON f.source = u.id",
                "SELECT u.id, COUNT(f.destination) FROM users u LEFT JOIN followers f ON u.id = f.source GROUP BY u.id",
                "SELECT COUNT(*) FROM users u, followers f WHERE u.id = f.source",
                "SELECT f.destination, COUNT(*) FROM users u JOIN followers f ON f.source = u.id GROUP BY f.destination",
                "SELECT o.id, o.total, i.paid FROM orders o JOIN invoices i ON i.id = o.id",
                "SELECT o.id, i.paid FROM orders o LEFT JOIN invoices i ON o.id = i.id WHERE o.total > 30",
                "SELECT o.id FROM orders o JOIN invoices i USING (id)",
                "SELECT u.id, c.name FROM users u JOIN country c ON c.code = u.country",
                "SELECT u.id, c.name FROM users u LEFT JOIN country c ON c.code = u.country",
                "SELECT c.name, COUNT(*), MAX(u.name) FROM users u JOIN country c ON c.code = u.country GROUP BY c.name",
                "SELECT c.code, cu.symbol FROM country c JOIN currency cu ON cu.code = c.code",
                "SELECT c.code, cu.symbol FROM country c LEFT JOIN currency cu ON cu.code = c.code",
                "SELECT u.id, c.name, cu.symbol FROM users u JOIN country c ON c.code = u.country LEFT JOIN currency cu ON cu.code = c.code WHERE u.id BETWEEN 3 AND 9")) {
            assertEquals(QueryEngineIT.rows(reference, sql, false), QueryEngineIT.rows(lutra, sql, false), sql);
        }
        for (String sql : List.of(
                "SELECT u.id, f.destination FROM users u JOIN followers f ON f.source = u.id ORDER BY u.id, f.destination LIMIT 7",
                "SELECT u.name, f.destination FROM users u JOIN followers f ON f.source = u.id ORDER BY u.name DESC, u.id, f.destination",
                "SELECT c.name, COUNT(*) AS n FROM users u JOIN country c ON c.code = u.country GROUP BY c.name ORDER BY n DESC, c.name",
                "SELECT * FROM orders o JOIN invoices i ON o.id = i.id ORDER BY o.total DESC, o.id LIMIT 3 OFFSET 2")) {
            assertEquals(QueryEngineIT.rows(reference, sql, true), QueryEngineIT.rows(lutra, sql, true), sql);
        }
    }

    @Test
    void joinsAcrossPartitionsRunInRounds() throws SQLException {
        for (String sql : List.of(
                "SELECT * FROM users u JOIN followers f ON f.destination = u.id",
                "SELECT u.id, u.name, o.id, o.total FROM users u JOIN orders o ON o.user_id = u.id",
                "SELECT o.id, u.name FROM orders o JOIN users u ON u.id = o.user_id WHERE o.total > 30",
                "SELECT u.id, o.id, o.total FROM users u LEFT JOIN orders o ON o.user_id = u.id",
                "SELECT u.id, o.id FROM users u LEFT JOIN orders o ON o.user_id = u.id WHERE u.id IN (1, 2, 3, 44)",
                "SELECT o.id, i.id FROM orders o JOIN invoices i ON i.paid = o.id",
                "SELECT o.id, u.id FROM orders o, users u WHERE u.id = o.user_id AND u.name LIKE 'Ann%' AND o.total < 50")) {
            assertEquals(QueryEngineIT.rows(reference, sql, false), QueryEngineIT.rows(lutra, sql, false), sql);
        }
        for (String sql : List.of(
                "SELECT u.id, o.id FROM users u JOIN orders o ON o.user_id = u.id ORDER BY o.id DESC LIMIT 5",
                "SELECT f.source, u.id FROM followers f JOIN users u ON u.id = f.destination ORDER BY 1, 2 LIMIT 10 OFFSET 3")) {
            assertEquals(QueryEngineIT.rows(reference, sql, true), QueryEngineIT.rows(lutra, sql, true), sql);
        }
    }

    @Test
    void statementsOverReplicatedTablesRunWholeOnOnePartition() throws SQLException {
        for (String sql : List.of(
                "SELECT d.code FROM (SELECT code FROM country WHERE name LIKE '%an%') d",
                "WITH c AS (SELECT code, name FROM country) SELECT c.name, cu.symbol FROM c JOIN currency cu ON cu.code = c.code",
                "SELECT code, ROW_NUMBER() OVER (ORDER BY code DESC) FROM country",
                "SELECT c.code FROM country c WHERE EXISTS (SELECT 1 FROM currency cu WHERE cu.code = c.code)",
                "SELECT (SELECT COUNT(*) FROM currency), code FROM country")) {
            assertEquals(QueryEngineIT.rows(reference, sql, false), QueryEngineIT.rows(lutra, sql, false), sql);
        }
    }

    @Test
    void joinsAcrossPartitionsRunOverTheirMaterializedTables() throws SQLException {
        // in order where ORDER BY fixes it; as multisets otherwise
        for (String sql : List.of(
                "SELECT u.name, COUNT(*) FROM users u JOIN orders o ON o.user_id = u.id GROUP BY u.name ORDER BY u.name",
                "SELECT u.id, o.total + 1 FROM users u JOIN orders o ON o.user_id = u.id WHERE u.id < 20 AND o.total > 10 ORDER BY u.id, 2",
                "SELECT COUNT(*), SUM(o.total) FROM orders o, invoices i WHERE i.paid = 1",
                "SELECT c.code, COUNT(u.id) FROM country c LEFT JOIN users u ON u.country = c.code GROUP BY c.code ORDER BY c.code",
                "SELECT u.id, o.id FROM users u LEFT JOIN orders o ON o.user_id = u.id WHERE o.id IS NULL ORDER BY u.id",
                "SELECT u.id, o.id, i.paid FROM users u JOIN orders o ON o.user_id = u.id JOIN invoices i ON i.id = o.id "
                        + "WHERE i.paid = 0 AND u.country = 'DE' ORDER BY u.id, o.id",
                "SELECT o.id, x.n FROM orders o JOIN (SELECT user_id, COUNT(*) AS n FROM orders GROUP BY user_id) x ON x.user_id = o.user_id "
                        + "WHERE o.total > 50 ORDER BY o.id",
                "SELECT name, total FROM users JOIN orders ON user_id = users.id WHERE total < 20 ORDER BY total, name",
                "SELECT u.id, SUM(o.total) OVER (PARTITION BY u.country ORDER BY u.id) FROM users u JOIN orders o ON o.user_id = u.id ORDER BY u.id, 2",
                // an uncorrelated subquery runs first; the join then runs over its values
                "SELECT u.id, o.id FROM users u JOIN orders o ON o.user_id = u.id WHERE o.id IN (SELECT id FROM invoices WHERE paid = 1) ORDER BY o.id")) {
            assertEquals(QueryEngineIT.rows(reference, sql, true), QueryEngineIT.rows(lutra, sql, true), sql);
        }
        // parameters in the ON, the WHERE copied into a table's SELECT, and the select list, each bound in place
        String prepared = "SELECT ? + COUNT(*) FROM users u JOIN orders o ON o.user_id = u.id AND o.total > ? WHERE u.id < ? AND o.id <> ?";
        for (int[] p : new int[][] {{1, 10, 30, 5}, {0, 0, 45, 0}}) {
            var answers = new java.util.ArrayList<String>();
            for (var c : List.of(reference, lutra)) {
                try (var ps = c.prepareStatement(prepared)) {
                    for (int i = 0; i < 4; i++) ps.setInt(i + 1, p[i]);
                    try (var rs = ps.executeQuery()) {
                        rs.next();
                        answers.add(rs.getString(1));
                    }
                }
            }
            assertEquals(answers.get(0), answers.get(1), prepared);
        }
        for (String sql : List.of(
                "SELECT u.id, o.id FROM users u RIGHT JOIN orders o ON o.user_id = u.id WHERE o.total > 30 ORDER BY o.id",
                "SELECT u.id, o.id FROM orders o LEFT JOIN users u ON u.id = o.user_id AND u.country = 'CH' ORDER BY o.id")) {
            assertEquals(QueryEngineIT.rows(reference, sql, true), QueryEngineIT.rows(lutra, sql, true), sql);
        }
        // a subquery over a third table: the tables copied to one partition, the statement answered there
        for (String sql : List.of(
                "SELECT * FROM users u JOIN orders o ON o.user_id = u.id WHERE EXISTS (SELECT 1 FROM invoices i WHERE i.id = o.id)")) {
            assertEquals(QueryEngineIT.rows(reference, sql, false), QueryEngineIT.rows(lutra, sql, false), sql);
        }
        // ... but not as a locking read: the copies would lock nothing
        for (String locking : List.of(
                "SELECT * FROM users u JOIN orders o ON o.user_id = u.id WHERE EXISTS (SELECT 1 FROM invoices i WHERE i.id = o.id) FOR UPDATE",
                "SELECT * FROM users u JOIN orders o ON o.user_id = u.id WHERE EXISTS (SELECT 1 FROM invoices i WHERE i.id = o.id) LOCK IN SHARE MODE")) {
            var e = assertThrows(SQLException.class, () -> QueryEngineIT.rows(lutra, locking, false), locking);
            assertRefusal(e, locking + ": " + e.getMessage());
        }
    }

    private void both(String sql) throws SQLException {
        differential.both(sql);
    }
}
