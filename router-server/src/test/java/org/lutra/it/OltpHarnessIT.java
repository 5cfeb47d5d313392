package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What a public OLTP benchmark tool does with nothing but a driver class name and a URL: it learns
 * the tables, their columns and keys from DatabaseMetaData, loads every table with batches of
 * generated rows, then runs read-modify-write transactions at SERIALIZABLE from two threads,
 * retrying deadlocks. Nothing here knows the schema; afterwards the rows and the increments must
 * all be there.
 */
@ExtendWith(org.lutra.shards.junit.EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OltpHarnessIT {
    static final String SCHEMA = """
            CREATE TABLE warehouse (w_id INT PRIMARY KEY, w_name VARCHAR(10) NOT NULL, w_ytd DECIMAL(12,2) NOT NULL) PARTITION BY hash(w_id) ON (p0, p1, p2, p3);
            CREATE TABLE district (d_w_id INT NOT NULL, d_id INT NOT NULL, d_name VARCHAR(10) NOT NULL, d_next_o_id INT NOT NULL,
              PRIMARY KEY (d_w_id, d_id)) PARTITION BY hash(d_w_id) ON (p0, p1, p2, p3);
            CREATE TABLE customer (c_w_id INT NOT NULL, c_d_id INT NOT NULL, c_id INT NOT NULL, c_last VARCHAR(16) NOT NULL, c_balance DECIMAL(12,2) NOT NULL,
              c_since TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, c_birth DATE, PRIMARY KEY (c_w_id, c_d_id, c_id)) PARTITION BY hash(c_w_id) ON (p0, p1, p2, p3);
            CREATE TABLE item (i_id INT PRIMARY KEY, i_name VARCHAR(24) NOT NULL, i_price DECIMAL(5,2) NOT NULL) REPLICATED;
            """;
    static final int ROWS = 1200;
    static final int BATCH = 250;

    TestRouter router;

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new TestRouter(shards, "oltpharnessit", SCHEMA);
    }

    @AfterAll
    void stop() throws Exception {
        if (router != null) router.close();
    }

    /** A table as the harness learns it. */
    record Table(String name, List<String> columns, List<Integer> types, List<Integer> sizes, List<String> keys) {}

    @Test
    void aToolThatKnowsOnlyTheUrlLoadsAndRuns() throws Exception {
        Class.forName("org.lutra.jdbc.LutraDriver");
        String url = router.url() + "?user=" + TestRouter.USER + "&password=" + TestRouter.PASSWORD;
        List<Table> tables;
        try (Connection c = DriverManager.getConnection(url)) {
            tables = catalog(c.getMetaData());
            assertEquals(List.of("customer", "district", "item", "warehouse"), tables.stream().map(Table::name).toList());
            for (Table t : tables) load(c, t);
            for (Table t : tables) {
                try (var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM " + t.name())) {
                    rs.next();
                    assertEquals(ROWS, rs.getInt(1), t.name());
                }
            }
        }
        // transactions: add 1 to a numeric non-key column of a random row, from two threads
        Table target = tables.stream().filter(t -> t.name().equals("district")).findFirst().orElseThrow();
        long before = sum(url, target);
        var committed = new AtomicLong();
        var failures = new ArrayList<Throwable>();
        var threads = new ArrayList<Thread>();
        for (int i = 0; i < 2; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try (Connection c = DriverManager.getConnection(url)) {
                    c.setAutoCommit(false);
                    c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                    for (int n = 0; n < 150; n++) {
                        if (increment(c, target, ThreadLocalRandom.current().nextInt(40))) committed.incrementAndGet();
                    }
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            }));
        }
        for (var t : threads) t.join();
        assertEquals(List.of(), failures);
        assertTrue(committed.get() >= 250, "committed " + committed.get());
        assertEquals(before + committed.get(), sum(url, target));
    }

    /** Tables, columns (with JDBC types and sizes) and primary keys, from DatabaseMetaData only. */
    private static List<Table> catalog(DatabaseMetaData md) throws SQLException {
        var out = new ArrayList<Table>();
        try (var tables = md.getTables(null, null, "%", new String[] {"TABLE"})) {
            while (tables.next()) {
                String name = tables.getString("TABLE_NAME");
                var columns = new ArrayList<String>();
                var types = new ArrayList<Integer>();
                var sizes = new ArrayList<Integer>();
                try (var rs = md.getColumns(tables.getString("TABLE_CAT"), null, name, "%")) {
                    while (rs.next()) {
                        assertEquals(columns.size() + 1, rs.getInt("ORDINAL_POSITION"));
                        columns.add(rs.getString("COLUMN_NAME"));
                        types.add(rs.getInt("DATA_TYPE"));
                        sizes.add(rs.getInt("COLUMN_SIZE"));
                    }
                }
                var keys = new TreeMap<Integer, String>();
                try (var rs = md.getPrimaryKeys(tables.getString("TABLE_CAT"), null, name)) {
                    while (rs.next()) keys.put(rs.getInt("KEY_SEQ"), rs.getString("COLUMN_NAME"));
                }
                out.add(new Table(name, columns, types, sizes, List.copyOf(keys.values())));
            }
        }
        return out;
    }

    private static void load(Connection c, Table t) throws SQLException {
        String sql = "INSERT INTO " + t.name() + " (" + String.join(", ", t.columns()) + ") VALUES ("
                + String.join(", ", t.columns().stream().map(x -> "?").toList()) + ")";
        try (var ps = c.prepareStatement(sql)) {
            for (int n = 0; n < ROWS; n++) {
                for (int i = 0; i < t.columns().size(); i++) ps.setObject(i + 1, value(t, i, n));
                ps.addBatch();
                if ((n + 1) % BATCH == 0 || n == ROWS - 1) {
                    int[] counts = ps.executeBatch();
                    for (int k : counts) assertEquals(1, k);
                }
            }
        }
    }

    /** Row n's value for column i: keys spread so that rows are unique, the rest from the type. */
    private static Object value(Table t, int i, int n) {
        int key = t.keys().indexOf(t.columns().get(i));
        if (key >= 0) return t.keys().size() == 1 ? n + 1 : key == 0 ? n % 4 + 1 : key == 1 ? n / 4 + 1 : 1;
        return switch (t.types().get(i)) {
            case Types.INTEGER, Types.SMALLINT, Types.TINYINT, Types.BIGINT -> n % 1000;
            case Types.DECIMAL, Types.NUMERIC -> BigDecimal.valueOf(n % 100, 1);
            case Types.DATE -> Date.valueOf("2000-01-01");
            case Types.TIMESTAMP -> Timestamp.valueOf("2024-02-29 12:00:00");
            default -> {
                String s = "v" + n + "-" + t.columns().get(i);
                yield s.substring(0, Math.min(s.length(), t.sizes().get(i)));
            }
        };
    }

    /** One read-modify-write of row n's first numeric non-key column; false when it lost a deadlock and rolled back. */
    private static boolean increment(Connection c, Table t, int n) throws SQLException {
        int column = -1;
        for (int i = 0; i < t.columns().size(); i++) {
            if (t.keys().contains(t.columns().get(i))) continue;
            if (t.types().get(i) == Types.INTEGER) {
                column = i;
                break;
            }
        }
        String where = String.join(" AND ", t.keys().stream().map(k -> k + " = ?").toList());
        String col = t.columns().get(column);
        try (var read = c.prepareStatement("SELECT " + col + " FROM " + t.name() + " WHERE " + where);
             var write = c.prepareStatement("UPDATE " + t.name() + " SET " + col + " = ? WHERE " + where)) {
            for (int k = 0; k < t.keys().size(); k++) {
                Object v = value(t, t.columns().indexOf(t.keys().get(k)), n);
                read.setObject(k + 1, v);
                write.setObject(k + 2, v);
            }
            int current;
            try (var rs = read.executeQuery()) {
                assertTrue(rs.next());
                current = rs.getInt(1);
            }
            write.setInt(1, current + 1);
            assertEquals(1, write.executeUpdate());
            c.commit();
            return true;
        } catch (SQLException e) {
            if (!"40001".equals(e.getSQLState()) && !"25000".equals(e.getSQLState())) throw e;
            c.rollback(); // a deadlock or lock wait: the tool retries with the next transaction
            return false;
        }
    }

    private static long sum(String url, Table t) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); var rs = c.createStatement().executeQuery("SELECT SUM(d_next_o_id) FROM " + t.name())) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
