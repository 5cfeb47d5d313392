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

import static org.junit.jupiter.api.Assertions.*;

/**
 * String routing columns with a case- and accent-insensitive collation: 'ANN', 'ann ' and 'Ann'
 * are one key to MySQL, so they must reach the same partition, whether the table is placed by
 * hash or by a lookup table (with a SAME AS child). Every answer compared with one database.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CollatedRoutingIT {
    static final String SCHEMA = """
            CREATE TABLE people (name VARCHAR(32) COLLATE utf8mb4_general_ci PRIMARY KEY, age INT) CHARSET utf8mb4
              PARTITION BY hash(name) ON (p0, p1, p2, p3);
            CREATE TABLE accounts (login VARCHAR(32) COLLATE utf8mb4_general_ci PRIMARY KEY, credit INT) CHARSET utf8mb4
              PARTITION BY lookup(login) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(login);
            CREATE TABLE visits (login VARCHAR(32) COLLATE utf8mb4_general_ci NOT NULL, at INT NOT NULL, PRIMARY KEY (login, at)) CHARSET utf8mb4
              PARTITION BY lookup(login) SAME AS accounts;
            """;
    private static final List<String> NAMES = List.of("Ann", "bob", "Émile", "Zoë", "carl", "DORA", "eve", "Ümit", "fay", "Gus", "hal", "Ida");

    Differential differential;
    Connection lutra;
    Connection reference;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "collatedit", SCHEMA);
        lutra = differential.lutra;
        reference = differential.reference;
        for (int i = 0; i < NAMES.size(); i++) {
            differential.both("INSERT INTO people VALUES ('" + NAMES.get(i) + "', " + (20 + i) + ")");
            differential.both("INSERT INTO accounts VALUES ('" + NAMES.get(i) + "', " + (100 * i) + ")");
            for (int v = 0; v < i % 4; v++) differential.both("INSERT INTO visits VALUES ('" + NAMES.get(i).toUpperCase() + "', " + v + ")");
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    @Test
    void equalSpellingsReachThePartitionOfTheKey() throws SQLException {
        // each query, spelled otherwise, and the same query spelled as the rows were stored
        for (var pair : List.of(
                List.of("SELECT * FROM people WHERE name = 'ANN'", "SELECT * FROM people WHERE name = 'Ann'"),
                List.of("SELECT * FROM people WHERE name = 'ann   '", "SELECT * FROM people WHERE name = 'Ann'"),
                List.of("SELECT * FROM people WHERE name = 'emile'", "SELECT * FROM people WHERE name = 'Émile'"),
                List.of("SELECT * FROM people WHERE name = 'ZOE'", "SELECT * FROM people WHERE name = 'Zoë'"),
                List.of("SELECT * FROM people WHERE name IN ('BOB', 'umit', 'nobody', 'dora')",
                        "SELECT * FROM people WHERE name IN ('bob', 'Ümit', 'nobody', 'DORA')"),
                List.of("SELECT * FROM accounts WHERE login = 'EVE'", "SELECT * FROM accounts WHERE login = 'eve'"),
                List.of("SELECT * FROM accounts WHERE login IN ('fay', 'GUS', 'hAl')", "SELECT * FROM accounts WHERE login IN ('fay', 'Gus', 'hal')"),
                List.of("SELECT COUNT(*) FROM visits WHERE login = 'ida'", "SELECT COUNT(*) FROM visits WHERE login = 'Ida'"),
                List.of("SELECT a.login, COUNT(v.at) FROM accounts a LEFT JOIN visits v ON v.login = a.login WHERE a.login = 'dora' GROUP BY a.login",
                        "SELECT a.login, COUNT(v.at) FROM accounts a LEFT JOIN visits v ON v.login = a.login WHERE a.login = 'DORA' GROUP BY a.login"),
                List.of("SELECT a.login, v.at FROM accounts a JOIN visits v ON v.login = a.login WHERE a.login IN ('CARL', 'ida') ORDER BY v.at",
                        "SELECT a.login, v.at FROM accounts a JOIN visits v ON v.login = a.login WHERE a.login IN ('carl', 'Ida') ORDER BY v.at"))) {
            String sql = pair.get(0);
            assertEquals(QueryEngineIT.rows(reference, sql, false), QueryEngineIT.rows(lutra, sql, false), sql);
            assertEquals(partitions(pair.get(1)), partitions(sql), sql + " reaches the partitions of the stored spelling");
            if (!sql.contains(" IN (")) assertEquals(1, partitions(sql).size(), sql + " reaches one partition: " + partitions(sql));
        }
    }

    @Test
    void writesFindTheRowWhateverItsSpelling() throws SQLException {
        differential.both("UPDATE people SET age = age + 1 WHERE name = 'GUS'");
        differential.both("UPDATE accounts SET credit = credit - 5 WHERE login = 'fAy'");
        differential.both("DELETE FROM visits WHERE login = 'ida' AND at = 0");
        differential.both("INSERT INTO visits VALUES ('Eve', 9)");
        for (String sql : List.of("SELECT * FROM people", "SELECT * FROM accounts", "SELECT * FROM visits")) {
            assertEquals(QueryEngineIT.rows(reference, sql, false), QueryEngineIT.rows(lutra, sql, false), sql);
        }
        // a key equal to an existing one under the collation is a duplicate there, as on one server
        for (var c : List.of(reference, lutra)) {
            var e = assertThrows(SQLException.class, () -> c.createStatement().executeUpdate("INSERT INTO people VALUES ('ANN', 1)"));
            assertEquals(1062, e.getErrorCode(), e.getMessage());
        }
    }

    private List<String> partitions(String sql) throws SQLException {
        try (var st = lutra.createStatement(); var rs = st.executeQuery("EXPLAIN ROUTE " + sql)) {
            var out = new ArrayList<String>();
            while (rs.next()) if (!rs.getString(2).isEmpty() && !out.contains(rs.getString(2))) out.add(rs.getString(2));
            return out;
        }
    }
}
