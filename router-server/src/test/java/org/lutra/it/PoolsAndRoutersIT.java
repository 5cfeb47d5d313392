package org.lutra.it;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.server.RouterServer;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The driver under real tools: HikariCP with validation and leak detection over concurrent
 * transfers, Spring's JdbcTemplate with DataSourceTransactionManager (commit, rollback, read-only,
 * isolation), and a URL naming two routers over the same shards, one of which dies.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PoolsAndRoutersIT {
    private static final String SCHEMA = """
            CREATE TABLE account (id INT PRIMARY KEY, balance BIGINT NOT NULL, note VARCHAR(40)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            """;
    private static final int ACCOUNTS = 40;
    private static final long START_BALANCE = 1_000;

    TestRouter router;

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new TestRouter(shards, "poolsit", SCHEMA, new RouterConfig.Transactions("poolsit-a", 2, 0, 0));
    }

    @AfterAll
    void stop() throws Exception {
        if (router != null) router.close();
    }

    @BeforeEach
    void accounts() throws SQLException {
        try (Connection c = router.connect(); var st = c.createStatement()) {
            st.execute("DELETE FROM account");
            var values = new StringBuilder();
            for (int i = 1; i <= ACCOUNTS; i++) values.append(i > 1 ? ", " : "").append('(').append(i).append(", ").append(START_BALANCE).append(", NULL)");
            st.execute("INSERT INTO account VALUES " + values);
        }
    }

    private HikariDataSource pool(String url, int size) {
        var config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(TestRouter.USER);
        config.setPassword(TestRouter.PASSWORD);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setLeakDetectionThreshold(2_000); // HikariCP's smallest
        config.setKeepaliveTime(30_000);
        config.setConnectionTimeout(30_000);
        config.setValidationTimeout(1_000);
        config.setConnectionInitSql("SET time_zone = '+00:00', @pool = 'hikari'"); // session statements on every new connection
        config.setPoolName("lutra-client");
        return new HikariDataSource(config);
    }

    private long total(Connection c) throws SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery("SELECT SUM(balance), COUNT(*) FROM account")) {
            rs.next();
            assertEquals(ACCOUNTS, rs.getInt(2));
            return rs.getLong(1);
        }
    }

    /** 16 threads over a pool of 8: transfers between random accounts (often on two partitions), retried on 40001. */
    @Test
    void hikariUnderConcurrentLoad() throws Exception {
        try (var pool = pool(router.url(), 8); var threads = Executors.newFixedThreadPool(16)) {
            var done = new AtomicInteger();
            var retried = new AtomicInteger();
            var work = new ArrayList<Callable<Void>>();
            for (int t = 0; t < 16; t++) {
                boolean auditor = t == 0;
                work.add(() -> {
                    var random = ThreadLocalRandom.current();
                    for (int i = 0; i < 25; i++) {
                        int from = random.nextInt(1, ACCOUNTS + 1);
                        int to = random.nextInt(1, ACCOUNTS + 1);
                        int amount = random.nextInt(1, 50);
                        for (int attempt = 0; ; attempt++) {
                            try (Connection c = pool.getConnection()) {
                                assertEquals("hikari", single(c, "SELECT @pool"), "init SQL ran on this pooled connection's session");
                                c.setAutoCommit(false);
                                c.setTransactionIsolation(i % 2 == 0 ? Connection.TRANSACTION_SERIALIZABLE : Connection.TRANSACTION_REPEATABLE_READ);
                                try (var ps = c.prepareStatement("UPDATE account SET balance = balance + ? WHERE id = ?")) {
                                    // the lower id first, as applications order their locks (a deadlock across shards waits out the lock timeout)
                                    ps.setLong(1, from < to ? -amount : amount);
                                    ps.setInt(2, Math.min(from, to));
                                    ps.executeUpdate();
                                    ps.setLong(1, from < to ? amount : -amount);
                                    ps.setInt(2, Math.max(from, to));
                                    ps.executeUpdate();
                                }
                                c.commit(); // HikariCP resets auto-commit and isolation when the connection goes back
                                done.incrementAndGet();
                                break;
                            } catch (SQLException e) {
                                if (!"40001".equals(e.getSQLState()) || attempt > 20) throw e;
                                retried.incrementAndGet();
                            }
                        }
                        if (auditor && i % 5 == 0) {
                            // a locking read: consistent across partitions (a plain one has no global snapshot, docs/transactions.md, "Isolation")
                            for (int attempt = 0; ; attempt++) {
                                try (Connection c = pool.getConnection()) {
                                    assertTrue(c.getAutoCommit(), "the pool handed out a connection reset to auto-commit");
                                    c.setAutoCommit(false);
                                    c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                                    assertEquals(ACCOUNTS * START_BALANCE, total(c), "money is never created nor lost");
                                    c.commit();
                                    break;
                                } catch (SQLException e) {
                                    if (!"40001".equals(e.getSQLState()) || attempt > 20) throw e;
                                    retried.incrementAndGet();
                                }
                            }
                        }
                    }
                    return null;
                });
            }
            for (Future<Void> f : threads.invokeAll(work)) f.get();
            assertEquals(16 * 25, done.get());
            try (Connection c = pool.getConnection()) {
                assertEquals(ACCOUNTS * START_BALANCE, total(c));
            }
            var mx = pool.getHikariPoolMXBean();
            assertEquals(0, mx.getActiveConnections(), "every connection went back (leak detection saw none held for 2 s)");
            assertEquals(8, mx.getTotalConnections(), "no connection was evicted as broken: " + retried.get() + " retries on 40001");
        }
    }

    /**
     * A statement the router refuses is an error of that statement only, as MySQL's "not supported
     * yet" is: HikariCP keeps the connection (it evicts on 08xxx and on 0A000, the state Lutra used
     * before) and the application's transaction goes on and commits what it wrote around it.
     */
    @Test
    void refusalsInsideATransactionKeepThePooledConnection() throws Exception {
        List<String> refused = List.of(
                "UPDATE account SET id = id + 1000 WHERE id = 1",         // a routing column set from the row itself
                "SET NAMES latin1",                                       // a session setting the router cannot keep exact
                "XA START 'x'");                                          // client XA: the router runs XA itself
        try (var pool = pool(router.url(), 1)) {
            Object physical;
            try (Connection c = pool.getConnection()) {
                physical = c.unwrap(org.lutra.jdbc.LutraConnection.class);
                c.setAutoCommit(false);
                try (var st = c.createStatement()) {
                    st.executeUpdate("UPDATE account SET note = 'before' WHERE id = 1");
                    for (String sql : refused) {
                        var e = assertThrows(SQLException.class, () -> st.execute(sql), sql);
                        assertFalse(c.isClosed(), "HikariCP closed the connection after " + e.getSQLState() + " " + e.getMessage());
                        org.lutra.Refusals.assertRefusal(e, sql);
                    }
                    st.executeUpdate("UPDATE account SET note = 'after' WHERE id = 2");
                }
                c.commit();
            }
            try (Connection other = router.connect(); var st = other.createStatement();
                 var rs = st.executeQuery("SELECT id, note FROM account WHERE id IN (1, 2) ORDER BY id")) {
                assertTrue(rs.next() && rs.getInt(1) == 1 && "before".equals(rs.getString(2)), "the write before the refusals was committed");
                assertTrue(rs.next() && rs.getInt(1) == 2 && "after".equals(rs.getString(2)), "the write after the refusals was committed");
            }
            var mx = pool.getHikariPoolMXBean();
            assertEquals(1, mx.getTotalConnections(), "no connection was evicted as broken");
            try (Connection again = pool.getConnection()) {
                assertSame(physical, again.unwrap(org.lutra.jdbc.LutraConnection.class), "the pool hands out the same connection");
            }
            assertEquals(0, mx.getActiveConnections());
        }
    }

    /** Spring's JdbcTemplate and DataSourceTransactionManager over a HikariCP pool of the driver. */
    @Test
    void springJdbcTemplateWithTransactions() throws Exception {
        try (var pool = pool(router.url(), 4)) {
            var jdbc = new JdbcTemplate(pool);
            var manager = new DataSourceTransactionManager(pool);
            var tx = new TransactionTemplate(manager);

            assertEquals(ACCOUNTS, jdbc.queryForObject("SELECT COUNT(*) FROM account", Integer.class));
            assertEquals(List.of(1, 2, 3), jdbc.queryForList("SELECT id FROM account WHERE id IN (?, ?, ?) ORDER BY id", Integer.class, 3, 1, 2));

            // commit: a transfer over two partitions, and a batch
            tx.executeWithoutResult(status -> {
                jdbc.update("UPDATE account SET balance = balance - 100 WHERE id = ?", 1);
                jdbc.update("UPDATE account SET balance = balance + 100 WHERE id = ?", 2);
                jdbc.batchUpdate("UPDATE account SET note = ? WHERE id = ?", List.of(new Object[] {"one", 1}, new Object[] {"two", 2}));
            });
            assertEquals(List.of(900L, 1100L), jdbc.queryForList("SELECT balance FROM account WHERE id IN (1, 2) ORDER BY id", Long.class));
            assertEquals(List.of("one", "two"), jdbc.queryForList("SELECT note FROM account WHERE id IN (1, 2) ORDER BY id", String.class));

            // rollback: an exception thrown inside the callback undoes both partitions' writes
            var failure = assertThrows(IllegalStateException.class, () -> tx.executeWithoutResult(status -> {
                jdbc.update("UPDATE account SET balance = 0 WHERE id = ?", 3);
                jdbc.update("UPDATE account SET balance = 0 WHERE id = ?", 4);
                assertEquals(0L, jdbc.queryForObject("SELECT balance FROM account WHERE id = 3", Long.class), "the transaction sees its write");
                throw new IllegalStateException("business rule");
            }));
            assertEquals("business rule", failure.getMessage());
            assertEquals(List.of(START_BALANCE, START_BALANCE), jdbc.queryForList("SELECT balance FROM account WHERE id IN (3, 4) ORDER BY id", Long.class));

            // setRollbackOnly, and a failing statement translated by Spring
            tx.executeWithoutResult(status -> {
                jdbc.update("DELETE FROM account WHERE id = ?", 5);
                status.setRollbackOnly();
            });
            assertEquals(1, jdbc.queryForObject("SELECT COUNT(*) FROM account WHERE id = 5", Integer.class));
            var duplicate = assertThrows(DataAccessException.class, () -> jdbc.update("INSERT INTO account VALUES (?, 0, NULL)", 6));
            assertTrue(duplicate instanceof org.springframework.dao.DuplicateKeyException, duplicate.toString());

            // a read-only transaction (Connection.setReadOnly) refuses writes; SERIALIZABLE reaches the session
            var readOnly = new TransactionTemplate(manager);
            readOnly.setReadOnly(true);
            assertThrows(DataAccessException.class, () -> readOnly.executeWithoutResult(s -> jdbc.update("UPDATE account SET note = 'x' WHERE id = 7")));
            var serializable = new TransactionTemplate(manager);
            serializable.setIsolationLevel(TransactionDefinition.ISOLATION_SERIALIZABLE);
            assertEquals("SERIALIZABLE", serializable.execute(s -> jdbc.queryForObject("SELECT @@transaction_isolation", String.class)));
            assertEquals(ACCOUNTS * START_BALANCE, (long) jdbc.queryForObject("SELECT SUM(balance) FROM account", Long.class));
            assertEquals(0, pool.getHikariPoolMXBean().getActiveConnections());
        }
    }

    /**
     * Two routers over the same shards in one URL: in order, the first takes the connections and
     * the second is its failover; with loadBalance=true both take some. When a router dies, its
     * connections fail with 08S01 (inside a transaction too), and the pool's next connection works.
     */
    @Test
    void severalRoutersInTheUrl() throws Exception {
        var c = router.config;
        var secondConfig = new RouterConfig(c.listen(), c.database(), c.schema(), c.users(), c.backends(), c.partitions(), c.lookups(),
                c.maxFrameBytes(), c.planCacheSize(), new RouterConfig.Transactions("poolsit-b", 3, 0, 0), c.limits(), c.tls());
        RouterServer second = RouterServer.start(secondConfig);
        try {
            String both = "jdbc:lutra://127.0.0.1:" + second.port() + ",127.0.0.1:" + router.server.port() + "/" + router.database;
            // in order: the second router (listed first) takes them
            int firstBefore = router.server.openSessions();
            var held = new ArrayList<Connection>();
            for (int i = 0; i < 6; i++) held.add(DriverManager.getConnection(both, TestRouter.USER, TestRouter.PASSWORD));
            assertEquals(6, second.openSessions());
            assertEquals(firstBefore, router.server.openSessions());
            for (var h : held) h.close();
            // balanced: both take some
            for (int i = 0; i < 24; i++) held.add(DriverManager.getConnection(both + "?loadBalance=true", TestRouter.USER, TestRouter.PASSWORD));
            assertTrue(second.openSessions() > 0 && router.server.openSessions() > firstBefore,
                    "second " + second.openSessions() + ", first " + (router.server.openSessions() - firstBefore));
            for (var h : held) h.close();

            try (var pool = pool(both, 3); Connection inTransaction = DriverManager.getConnection(both, TestRouter.USER, TestRouter.PASSWORD)) {
                try (Connection p = pool.getConnection()) {
                    assertEquals(ACCOUNTS * START_BALANCE, total(p));
                }
                inTransaction.setAutoCommit(false);
                try (var st = inTransaction.createStatement()) {
                    st.executeUpdate("UPDATE account SET balance = balance - 7 WHERE id = 1");
                    st.executeUpdate("UPDATE account SET balance = balance + 7 WHERE id = 2");
                }
                second.close(); // the router every connection so far went to dies
                var lost = assertThrows(SQLException.class, () -> inTransaction.createStatement().executeUpdate("UPDATE account SET note = 'x' WHERE id = 3"));
                assertEquals("08S01", lost.getSQLState(), lost.getMessage());
                assertTrue(inTransaction.isClosed() || !inTransaction.isValid(1));
                Thread.sleep(600); // past HikariCP's validation bypass: an idle connection is checked when borrowed
                try (Connection p = pool.getConnection()) {
                    assertEquals(ACCOUNTS * START_BALANCE, total(p), "the pool's next connection works (on the live router); the open transaction was rolled back");
                    assertEquals("hikari", single(p, "SELECT @pool"));
                }
                try (Connection fresh = DriverManager.getConnection(both, TestRouter.USER, TestRouter.PASSWORD)) {
                    assertEquals(ACCOUNTS * START_BALANCE, total(fresh), "a new connection goes to the live router");
                }
            }
        } finally {
            second.close();
        }
    }

    /**
     * A statement the routing fence stops after its wait for a backend connection gives that connection back (it had
     * stayed borrowed for good: the pool lost one per such statement), and the backend watch counts exactly the
     * connections borrowed now.
     */
    @Test
    void aBorrowStoppedByTheFenceGivesItsConnectionBack() throws Exception {
        try (var backends = org.lutra.backend.Backends.open(router.config, router.server.catalog(), org.lutra.placement.PlacementTables::install)) {
            var p = backends.placement(0);
            var checks = new AtomicInteger();
            p.fence().use(() -> { // fresh before the wait for a connection, stale after it
                if (checks.incrementAndGet() % 2 == 0) throw new SQLException("the catalog lease is stale", "HY000");
            });
            for (int i = 0; i < 3; i++) {
                var e = assertThrows(SQLException.class, () -> p.borrow(Connection.TRANSACTION_READ_COMMITTED));
                assertEquals("the catalog lease is stale", e.getMessage());
                assertEquals(0, p.pool().getHikariPoolMXBean().getActiveConnections(), "the connection went back to the pool");
                assertEquals(0, p.waiting().size(), "nothing borrowed");
            }
            p.fence().use(() -> {});
            try (Connection a = p.borrow(Connection.TRANSACTION_READ_COMMITTED); Connection b = p.borrow(Connection.TRANSACTION_READ_COMMITTED)) {
                assertEquals(2, p.waiting().size());
                assertEquals(2, p.pool().getHikariPoolMXBean().getActiveConnections());
            }
        }
    }

    private static String single(Connection c, String sql) throws SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
