package org.lutra.it;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Flyway migrating a logical database through the driver, unchanged: its schema-history table is a
 * table of the logical database like any other (placed by catalog.default_placement), its named lock
 * is held for the session, V1 creates tables as migration tools write them (no placement clause),
 * V2 alters one and adds an index, V3 inserts. Checked through the router and on every partition,
 * then migrate again (nothing to do), info and validate.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FlywayIT {
    static final int PARTITIONS = 4;
    static final Map<String, String> MIGRATIONS = Map.of(
            "V1__create_tables.sql", """
                    -- as migration tools write it: no placement clause, catalog.default_placement places it
                    CREATE TABLE customer (
                        id BIGINT NOT NULL AUTO_INCREMENT,
                        name VARCHAR(100) NOT NULL,
                        PRIMARY KEY (id)
                    );
                    CREATE TABLE purchase (
                        customer_id BIGINT NOT NULL,
                        id BIGINT NOT NULL,
                        amount DECIMAL(10, 2) NOT NULL,
                        PRIMARY KEY (customer_id, id)
                    );
                    """,
            "V2__email_and_index.sql", """
                    ALTER TABLE customer ADD COLUMN email VARCHAR(200) NULL;
                    CREATE INDEX purchase_amount ON purchase (amount);
                    """,
            "V3__rows.sql", """
                    INSERT INTO customer (id, name, email) VALUES (1, 'ann', 'ann@example.org'), (2, 'bob', NULL), (3, 'cy', 'cy@example.org'),
                        (4, 'di', NULL), (5, 'ed', 'ed@example.org'), (6, 'flo', NULL), (7, 'gus', NULL), (8, 'hal', 'hal@example.org');
                    INSERT INTO purchase (customer_id, id, amount) VALUES (1, 1, 10.50), (1, 2, 3.25), (2, 1, 99.99), (3, 1, 1.00),
                        (5, 1, 12.00), (5, 2, 13.00), (5, 3, 14.00), (8, 1, 0.01);
                    """);

    TestRouter router;
    HikariDataSource pool;
    Path migrations;

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new TestRouter(shards, "flywayit", "");
        PoolEvictions.clear(); // an empty logical database, as Flyway expects one
        // a HikariCP pool as applications give Flyway: Flyway probes with statements some servers refuse (the router
        // refuses some), and a refusal (42000, 1235) is no broken connection to HikariCP, so nothing is evicted
        var config = new HikariConfig();
        config.setJdbcUrl(router.url());
        config.setUsername(TestRouter.USER);
        config.setPassword(TestRouter.PASSWORD);
        config.setMaximumPoolSize(2);
        config.setLeakDetectionThreshold(2_000);
        config.setExceptionOverrideClassName(PoolEvictions.class.getName());
        pool = new HikariDataSource(config);
        migrations = Files.createTempDirectory("lutra-flyway");
        for (var m : MIGRATIONS.entrySet()) Files.writeString(migrations.resolve(m.getKey()), m.getValue());
    }

    @AfterAll
    void stop() throws Exception {
        try {
            // Flyway's probes the router refuses (42000, 1235) are no broken connection to HikariCP
            assertEquals(List.of(), PoolEvictions.seen());
        } finally {
            if (pool != null) pool.close();
            if (router != null) router.close();
        }
    }

    /**
     * The user-level locks Flyway takes, as one MariaDB answers them: the same script on two sessions
     * through Lutra and on two plain connections to one MariaDB (recursion, case-sensitive names,
     * release by another session, NULL for an unknown lock, release when a session ends, locks
     * outliving a rolled-back transaction).
     */
    @Test
    void userLevelLocksAnswerAsOneMariaDb() throws SQLException {
        String n = "lk" + Long.toString(System.nanoTime(), 36); // the reference's names are server-wide: unique per run
        String[][] script = {
                {"1", "SELECT GET_LOCK('" + n + "Mig', 0)"},
                {"2", "SELECT GET_LOCK('" + n + "Mig', 0) AS busy"},
                {"2", "SELECT GET_LOCK('" + n + "mig', 0)"},
                {"2", "SELECT IS_FREE_LOCK('" + n + "MIG')"},
                {"1", "SELECT GET_LOCK('" + n + "Mig', 0)"},
                {"1", "SELECT RELEASE_LOCK('" + n + "mig')"},
                {"2", "SELECT GET_LOCK('" + n + "mig', 0) AS again"},
                {"1", "BEGIN"},
                {"1", "SELECT RELEASE_LOCK('" + n + "Mig')"},
                {"1", "ROLLBACK"},
                {"2", "SELECT GET_LOCK(?, 1)", n + "mig"},
                {"1", "SELECT RELEASE_LOCK('" + n + "mig')"},
                {"1", "SELECT RELEASE_LOCK('" + n + "nobody')"},
                {"1", "SELECT GET_LOCK('" + n + "other', 0)"},
                {"2", "SELECT IS_FREE_LOCK(?)", n + "other"},
                {"2", "SELECT RELEASE_ALL_LOCKS()"},
                {"2", "SELECT IS_FREE_LOCK('" + n + "mig')"},
                {"1", "CLOSE"},
                {"2", "SELECT GET_LOCK('" + n + "other', 5)"},
                {"2", "SELECT RELEASE_LOCK('" + n + "other')"},
        };
        var answers = new ArrayList<List<String>>();
        for (boolean lutra : new boolean[] {false, true}) {
            var out = new ArrayList<String>();
            var sessions = new Connection[2];
            for (int i = 0; i < 2; i++) sessions[i] = lutra ? router.connect() : router.shards.connect(0);
            try {
                for (String[] step : script) {
                    Connection c = sessions[Integer.parseInt(step[0]) - 1];
                    switch (step[1]) {
                        case "BEGIN" -> c.setAutoCommit(false);
                        case "ROLLBACK" -> { c.rollback(); c.setAutoCommit(true); }
                        case "CLOSE" -> c.close();
                        default -> {
                            try (var ps = c.prepareStatement(step[1])) {
                                if (step.length > 2) ps.setString(1, step[2]);
                                try (var rs = ps.executeQuery()) {
                                    rs.next();
                                    // with a parameter MariaDB's label has the value Connector/J spliced in: values only then
                                    out.add((step.length > 2 ? "" : rs.getMetaData().getColumnLabel(1)) + "=" + rs.getString(1));
                                }
                            }
                        }
                    }
                }
            } finally {
                for (var c : sessions) c.close();
            }
            answers.add(out);
        }
        assertEquals(answers.get(0), answers.get(1));
        assertTrue(answers.get(1).contains("busy=0"), "a lock held by another session: " + answers.get(1));
    }

    private Flyway flyway() {
        return Flyway.configure().dataSource(pool).locations("filesystem:" + migrations).load();
    }

    @Test
    void migratesThroughTheRouterAndAgainIsANoOp() throws SQLException {
        var result = flyway().migrate();
        assertTrue(result.success);
        assertEquals(3, result.migrationsExecuted);
        assertEquals("3", result.targetSchemaVersion);

        // through the router
        try (Connection c = router.connect(); var st = c.createStatement()) {
            try (var rs = st.executeQuery("SELECT c.name, SUM(p.amount) FROM customer c JOIN purchase p ON p.customer_id = c.id GROUP BY c.name ORDER BY c.name")) {
                var totals = new ArrayList<String>();
                while (rs.next()) totals.add(rs.getString(1) + "=" + rs.getString(2));
                assertEquals(List.of("ann=13.75", "bob=99.99", "cy=1.00", "ed=39.00", "hal=0.01"), totals);
            }
            try (var rs = st.executeQuery("SELECT COUNT(*) FROM customer WHERE email IS NOT NULL")) {
                rs.next();
                assertEquals(4, rs.getInt(1));
            }
            try (var rs = st.executeQuery("SELECT version, success FROM flyway_schema_history ORDER BY installed_rank")) {
                var versions = new ArrayList<String>();
                while (rs.next()) versions.add(rs.getString(1) + ":" + rs.getBoolean(2));
                assertEquals(List.of("1:true", "2:true", "3:true"), versions);
            }
        }

        // on every partition: the tables, V2's column and index, and the rows where hash(first primary-key column) puts them
        var customerAt = new TreeMap<Long, Integer>();
        var purchasesAt = new HashMap<Long, Integer>();
        int historyRows = 0;
        for (int p = 0; p < PARTITIONS; p++) {
            try (Connection c = router.partition(p); var st = c.createStatement()) {
                try (var rs = st.executeQuery("SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'customer' AND COLUMN_NAME = 'email'")) {
                    rs.next();
                    assertEquals(1, rs.getInt(1), "V2's column on p" + p);
                }
                try (var rs = st.executeQuery("SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'purchase' AND INDEX_NAME = 'purchase_amount'")) {
                    rs.next();
                    assertEquals(1, rs.getInt(1), "V2's index on p" + p);
                }
                try (var rs = st.executeQuery("SELECT id FROM customer")) {
                    while (rs.next()) assertNull(customerAt.put(rs.getLong(1), p));
                }
                try (var rs = st.executeQuery("SELECT customer_id FROM purchase")) {
                    while (rs.next()) purchasesAt.merge(rs.getLong(1), p, (a, b) -> {
                        assertEquals(a, b, "one customer's purchases on one partition");
                        return a;
                    });
                }
                try (var rs = st.executeQuery("SELECT COUNT(*) FROM flyway_schema_history")) {
                    rs.next();
                    historyRows += rs.getInt(1);
                }
            }
        }
        assertEquals(8, customerAt.size());
        customerAt.forEach((id, p) -> assertEquals(Math.floorMod(id, PARTITIONS), p, "customer " + id + " placed by hash(id)"));
        purchasesAt.forEach((id, p) -> assertEquals(customerAt.get(id), p, "purchases of " + id + " live with the customer (hash on the same key)"));
        assertEquals(3, historyRows, "the history table holds each migration once over all partitions");

        // information_schema as Flyway reads it, against partition 0's own (default placement puts every table there)
        for (String sql : List.of(
                "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'lutra%' ORDER BY 1",
                "SELECT TABLE_NAME, CONSTRAINT_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'lutra%' ORDER BY 1, 2",
                "SELECT COUNT(*) FROM information_schema.TABLE_CONSTRAINTS tc JOIN information_schema.TABLES t ON t.TABLE_NAME = tc.TABLE_NAME AND t.TABLE_SCHEMA = tc.TABLE_SCHEMA WHERE t.TABLE_SCHEMA = DATABASE() AND tc.CONSTRAINT_TYPE = 'primary key' AND t.TABLE_NAME NOT LIKE 'lutra%'")) {
            try (Connection lutra = router.connect(); Connection p0 = router.partition(0)) {
                assertEquals(QueryEngineIT.rows(p0, sql, true), QueryEngineIT.rows(lutra, sql, true), sql);
            }
        }

        // again: nothing to do; info and validate agree
        var again = flyway().migrate();
        assertEquals(0, again.migrationsExecuted);
        var info = flyway().info();
        assertEquals("3", info.current().getVersion().getVersion());
        for (var m : info.all()) assertEquals(MigrationState.SUCCESS, m.getState(), m.getScript());
        var validation = flyway().validateWithResult();
        assertTrue(validation.validationSuccessful, String.valueOf(validation.invalidMigrations));
    }
}
