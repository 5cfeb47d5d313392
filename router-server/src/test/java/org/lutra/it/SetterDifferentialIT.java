package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random parameters bound with every PreparedStatement setter into every column type, through
 * Lutra and through Connector/J straight to one MariaDB holding the same table: where both
 * store the row, the stored value must be the same (read back with getString, which
 * {@link GetterDifferentialIT} holds equal); where only one of them refuses the write, the pair
 * is tallied and printed, not failed. A wrong stored value is a wrong answer to every later read.
 *
 * <p>{@code -Dlutra.setters.seed=N} replays a run; {@code -Dlutra.setters.writes=N} sizes it.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SetterDifferentialIT {
    static final long SEED = Long.getLong("lutra.setters.seed", System.nanoTime());
    static final int WRITES = Integer.getInteger("lutra.setters.writes", 1500);

    private static final Map<String, String> COLUMNS = new java.util.LinkedHashMap<>();

    static {
        COLUMNS.put("b1", "TINYINT(1)");
        COLUMNS.put("ti", "TINYINT");
        COLUMNS.put("si", "SMALLINT UNSIGNED");
        COLUMNS.put("i", "INT");
        COLUMNS.put("bi", "BIGINT");
        COLUMNS.put("bu", "BIGINT UNSIGNED");
        COLUMNS.put("de", "DECIMAL(20,6)");
        COLUMNS.put("fl", "FLOAT");
        COLUMNS.put("db", "DOUBLE");
        COLUMNS.put("bt", "BIT(1)");
        COLUMNS.put("b8", "BIT(8)");
        COLUMNS.put("dt", "DATE");
        COLUMNS.put("tm", "TIME(3)");
        COLUMNS.put("dtm", "DATETIME(6)");
        COLUMNS.put("ts", "TIMESTAMP(3) NULL");
        COLUMNS.put("yr", "YEAR");
        COLUMNS.put("vc", "VARCHAR(40) CHARACTER SET utf8mb4");
        COLUMNS.put("tx", "TEXT CHARACTER SET utf8mb4");
        COLUMNS.put("vb", "VARBINARY(40)");
        COLUMNS.put("en", "ENUM('a','b','1')");
        COLUMNS.put("js", "JSON");
    }

    private static final List<String> TEXTS = List.of("0", "1", "-1", "12", "1.5", "-0.5", "2.5e3", "127", "128", "255", "true", "false", "",
            "abc", "2024-02-29", "2024-02-29 13:14:15.123456", "13:14:15", "-838:59:59", "é😀", "O'Brien \\ \"x\"", "a", "b", "{\"k\": 1}", "[1, 2]",
            "null", "9223372036854775808", "18446744073709551615", "1e400", " 7", "0x41");

    Differential differential;
    final SplittableRandom random = new SplittableRandom(SEED);

    @BeforeAll
    void start(Shards shards) throws Exception {
        System.out.println("SetterDifferentialIT seed " + SEED + " (replay with -Dlutra.setters.seed=" + SEED + ")");
        var ddl = new StringBuilder("CREATE TABLE s (id INT PRIMARY KEY");
        COLUMNS.forEach((name, type) -> ddl.append(", ").append(name).append(' ').append(type));
        ddl.append(") PARTITION BY hash(id) ON (p0, p1, p2, p3);");
        differential = new Differential(shards, "setters", ddl.toString());
        viaMysqlListener = differential.router.connectMysql(LISTENER_OPTIONS);
        String database;
        try (var rs = differential.reference.createStatement().executeQuery("SELECT DATABASE()")) {
            rs.next();
            database = rs.getString(1);
        }
        String url = shards.url(0, database);
        referenceSameOptions = java.sql.DriverManager.getConnection(url + (url.contains("?") ? "&" : "?") + LISTENER_OPTIONS, shards.user(),
                shards.password());
    }

    /** Ids of the rows written through the MySQL listener (and their reference rows), apart from the others. */
    static final int LISTENER_IDS = 10_000_000;
    static final String LISTENER_OPTIONS = "useServerPrepStmts=false";
    Connection viaMysqlListener;
    Connection referenceSameOptions;

    @AfterAll
    void stop() throws Exception {
        if (viaMysqlListener != null) viaMysqlListener.close();
        if (referenceSameOptions != null) referenceSameOptions.close();
        if (differential != null) differential.close();
    }

    @Test
    void everySetterStoresWhatConnectorJStores() throws SQLException {
        var wrong = new TreeMap<String, String>();
        var refusals = new TreeMap<String, Integer>();
        var columns = List.copyOf(COLUMNS.keySet());
        for (int id = 1; id <= WRITES; id++) {
            String column = columns.get(random.nextInt(columns.size()));
            Setter setter = SETTERS.get(random.nextInt(SETTERS.size()));
            Object value = setter.value(random);
            String sql = "INSERT INTO s (id, " + column + ") VALUES (?, ?)";
            String expected = write(differential.reference, sql, id, setter, value, column);
            String actual = write(differential.lutra, sql, id, setter, value, column);
            if (id % 3 == 0) {
                // a share through Connector/J at the router's MySQL listener, against the same driver and options at one
                // MariaDB: the same stored value or error. Client-side prepared: with server-side prepared statements a DATE or
                // DATETIME parameter into a number column converts on MariaDB (99991231) and is refused through the router,
                // which binds temporal values as text (docs/mysql-protocol.md, "What is refused or differs")
                String direct = write(referenceSameOptions, sql, id + LISTENER_IDS, setter, value, column);
                String listener = write(viaMysqlListener, sql, id + LISTENER_IDS, setter, value, column);
                if (!direct.equals(listener)) {
                    wrong.putIfAbsent(setter.name() + " into " + column + " through the MySQL listener", "id " + (id + LISTENER_IDS) + ", value "
                            + describe(value) + ": MariaDB stored " + direct + ", the listener " + listener);
                }
            }
            if (expected.equals(actual)) continue;
            String key = setter.name() + " into " + column + " " + COLUMNS.get(column);
            if (expected.startsWith("error") || actual.startsWith("error")) {
                refusals.merge(key + (actual.startsWith("error") ? ": Lutra refuses" : ": Connector/J refuses"), 1, Integer::sum);
            } else {
                wrong.putIfAbsent(key, "id " + id + ", value " + describe(value) + ": Connector/J stored " + expected + ", Lutra " + actual);
            }
        }
        System.out.printf("SetterDifferentialIT: %,d writes compared (seed %d); writes only one driver refuses:%n", WRITES, SEED);
        refusals.forEach((k, n) -> System.out.println("  " + k + " (" + n + ")"));
        assertTrue(wrong.isEmpty(), "Lutra and Connector/J stored different values (seed " + SEED + "):\n  "
                + String.join("\n  ", wrong.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).toList()));
    }

    /**
     * The routing column bound with every numeric setter and as text: the router must find the
     * row (or none) where one MariaDB does, whatever kind the parameter travels as (a double is
     * sent as a decimal unless it has an exponent, a float as its own text).
     */
    @Test
    void aRoutingKeyBoundByAnySetterFindsWhatConnectorJFinds() throws SQLException {
        for (int id = 1; id <= 40; id++) {
            differential.both("INSERT INTO s (id) VALUES (" + (100_000 + id) + ")");
        }
        var probes = new java.util.ArrayList<Object[]>();
        for (int id = 100_001; id <= 100_040; id++) {
            probes.add(new Object[] {"setDouble", (double) id});
            probes.add(new Object[] {"setDouble", id + 0.5});
            probes.add(new Object[] {"setDouble", id * 1e0 + 1e-9});
            probes.add(new Object[] {"setFloat", (float) id});
            probes.add(new Object[] {"setBigDecimal", new BigDecimal(id + ".000")});
            probes.add(new Object[] {"setString", Integer.toString(id)});
            probes.add(new Object[] {"setString", id + ".0"});
            probes.add(new Object[] {"setLong", (long) id});
        }
        probes.add(new Object[] {"setDouble", 1.0000400E5});
        probes.add(new Object[] {"setDouble", 1e20});
        for (Object[] probe : probes) {
            String expected = find(differential.reference, (String) probe[0], probe[1]);
            String actual = find(differential.lutra, (String) probe[0], probe[1]);
            assertTrue(expected.equals(actual), probe[0] + "(" + probe[1] + "): Connector/J found " + expected + ", Lutra " + actual);
        }
    }

    private static String find(Connection c, String setter, Object key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT id FROM s WHERE id = ? ORDER BY id")) {
            switch (setter) {
                case "setDouble" -> ps.setDouble(1, (Double) key);
                case "setFloat" -> ps.setFloat(1, (Float) key);
                case "setBigDecimal" -> ps.setBigDecimal(1, (BigDecimal) key);
                case "setString" -> ps.setString(1, (String) key);
                case "setLong" -> ps.setLong(1, (Long) key);
                default -> throw new IllegalArgumentException(setter);
            }
            var found = new java.util.ArrayList<Integer>();
            try (var rs = ps.executeQuery()) {
                while (rs.next()) found.add(rs.getInt(1));
            }
            return found.toString();
        }
    }

    /** Binds (id, value) with the setter, writes, and reads the column back: its text, or "error" and the SQLState. */
    private static String write(Connection c, String sql, int id, Setter setter, Object value, String column) {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, id);
            setter.bind().bind(ps, 2, value);
            ps.executeUpdate();
        } catch (SQLException | RuntimeException e) {
            return "error " + (e instanceof SQLException s ? s.getSQLState() : e.getClass().getSimpleName());
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT " + column + ", HEX(" + column + ") FROM s WHERE id = ?")) {
            ps.setInt(1, id);
            try (var rs = ps.executeQuery()) {
                if (!rs.next()) return "no row";
                return rs.getString(1) + " (hex " + rs.getString(2) + ")";
            }
        } catch (SQLException e) {
            throw new AssertionError("reading back " + column + " of id " + id, e);
        }
    }

    private static String describe(Object v) {
        return v == null ? "null" : v instanceof byte[] b ? "bytes " + java.util.Arrays.toString(b) : v + " (" + v.getClass().getSimpleName() + ")";
    }

    // ---- setters ----

    private interface Bind {
        void bind(PreparedStatement ps, int index, Object value) throws SQLException;
    }

    private interface Make {
        Object make(SplittableRandom r);
    }

    private record Setter(String name, Make make, Bind bind) {
        Object value(SplittableRandom r) {
            return make.make(r);
        }
    }

    private static <T> T pick(SplittableRandom r, List<T> options) {
        return options.get(r.nextInt(options.size()));
    }

    private static final List<Setter> SETTERS = List.of(
            new Setter("setString", r -> pick(r, TEXTS), (ps, i, v) -> ps.setString(i, (String) v)),
            new Setter("setInt", r -> pick(r, List.of(0, 1, -1, 127, 128, 255, 2024, 70, Integer.MAX_VALUE, Integer.MIN_VALUE, r.nextInt())),
                    (ps, i, v) -> ps.setInt(i, (Integer) v)),
            new Setter("setLong", r -> pick(r, List.of(0L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, 4294967296L, r.nextLong())), (ps, i, v) -> ps.setLong(i, (Long) v)),
            new Setter("setShort", r -> (short) r.nextInt(Short.MIN_VALUE, Short.MAX_VALUE + 1), (ps, i, v) -> ps.setShort(i, (Short) v)),
            new Setter("setByte", r -> (byte) r.nextInt(-128, 128), (ps, i, v) -> ps.setByte(i, (Byte) v)),
            new Setter("setBoolean", SplittableRandom::nextBoolean, (ps, i, v) -> ps.setBoolean(i, (Boolean) v)),
            new Setter("setDouble", r -> pick(r, List.of(0.0, -0.0, 1.5, -2.5, 0.1, 1e308, 4.9e-324, 123456.789, 2.5e-7, 1e15, 1e16, r.nextGaussian() * 1e4)),
                    (ps, i, v) -> ps.setDouble(i, (Double) v)),
            new Setter("setFloat", r -> pick(r, List.of(0f, 1.5f, 0.1f, -3.4e38f, 559.8676f, 16777217f, (float) r.nextGaussian())),
                    (ps, i, v) -> ps.setFloat(i, (Float) v)),
            new Setter("setBigDecimal", r -> pick(r, List.of(new BigDecimal("0"), new BigDecimal("1.5"), new BigDecimal("-0.000001"), new BigDecimal("1E+3"),
                    new BigDecimal("123456789012345678901234567890"), new BigDecimal("0.0000001234"), new BigDecimal("18446744073709551615"),
                    new BigDecimal("12345.6789012"))), (ps, i, v) -> ps.setBigDecimal(i, (BigDecimal) v)),
            new Setter("setBytes", r -> pick(r, List.of(new byte[0], new byte[] {0x41}, new byte[] {0, -1, 16}, "é".getBytes(StandardCharsets.UTF_8),
                    "12".getBytes(StandardCharsets.US_ASCII), new byte[] {1})), (ps, i, v) -> ps.setBytes(i, (byte[]) v)),
            new Setter("setDate", r -> java.sql.Date.valueOf(pick(r, List.of(LocalDate.of(2024, 2, 29), LocalDate.of(1000, 1, 1), LocalDate.of(9999, 12, 31),
                    LocalDate.of(1970, 1, 1)))), (ps, i, v) -> ps.setDate(i, (java.sql.Date) v)),
            new Setter("setTime", r -> java.sql.Time.valueOf(pick(r, List.of(LocalTime.of(13, 14, 15), LocalTime.MIDNIGHT, LocalTime.of(23, 59, 59)))),
                    (ps, i, v) -> ps.setTime(i, (java.sql.Time) v)),
            new Setter("setTimestamp", r -> java.sql.Timestamp.valueOf(pick(r, List.of(LocalDateTime.of(2024, 2, 29, 13, 14, 15, 123_456_789),
                    LocalDateTime.of(1970, 1, 1, 0, 0, 1), LocalDateTime.of(2038, 1, 19, 3, 14, 7, 999_000_000), LocalDateTime.of(2024, 3, 31, 2, 30)))),
                    (ps, i, v) -> ps.setTimestamp(i, (java.sql.Timestamp) v)),
            new Setter("setObject(LocalDate)", r -> pick(r, List.of(LocalDate.of(2024, 2, 29), LocalDate.of(1000, 1, 1))), (ps, i, v) -> ps.setObject(i, v)),
            new Setter("setObject(LocalTime)", r -> pick(r, List.of(LocalTime.of(13, 14, 15, 500_000_000), LocalTime.of(0, 0))), (ps, i, v) -> ps.setObject(i, v)),
            new Setter("setObject(LocalDateTime)", r -> pick(r, List.of(LocalDateTime.of(2024, 2, 29, 13, 14, 15, 123_456_000), LocalDateTime.of(1999, 12, 31, 23, 59))),
                    (ps, i, v) -> ps.setObject(i, v)),
            new Setter("setObject(BigInteger)", r -> pick(r, List.of(BigInteger.ZERO, new BigInteger("18446744073709551615"), BigInteger.valueOf(-5))),
                    (ps, i, v) -> ps.setObject(i, v)),
            new Setter("setObject(String, VARCHAR)", r -> pick(r, TEXTS), (ps, i, v) -> ps.setObject(i, v, Types.VARCHAR)),
            new Setter("setObject(String, INTEGER)", r -> pick(r, List.of("12", "-1", "1.5", "abc", "")), (ps, i, v) -> ps.setObject(i, v, Types.INTEGER)),
            new Setter("setObject(Integer, VARCHAR)", r -> r.nextInt(-1000, 1000), (ps, i, v) -> ps.setObject(i, v, Types.VARCHAR)),
            new Setter("setObject(Boolean)", SplittableRandom::nextBoolean, (ps, i, v) -> ps.setObject(i, v)),
            new Setter("setObject(Double, DECIMAL)", r -> pick(r, List.of(1.5, 0.1, -2.25, 1e20)), (ps, i, v) -> ps.setObject(i, v, Types.DECIMAL)),
            new Setter("setNull", r -> null, (ps, i, v) -> ps.setNull(i, Types.VARCHAR)),
            new Setter("setObject(null)", r -> null, (ps, i, v) -> ps.setObject(i, null)));
}
