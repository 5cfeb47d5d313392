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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random values of every column type, read back through every ResultSet getter, through Lutra
 * and through Connector/J straight to one MariaDB holding the same rows. Where both drivers
 * return a value it must be the same value (an application reading {@code getInt} of a DECIMAL,
 * {@code getBoolean} of a VARCHAR or {@code getObject(col, LocalDate.class)} of a DATETIME sees
 * what it saw on MySQL). Where only one of them refuses the conversion, the pair is tallied, not
 * failed: the Lutra driver refuses some conversions Connector/J makes up a value for
 * ({@code getLong('')} is 0 there) — a refusal is not a wrong answer — and the tally is printed.
 *
 * <p>{@code -Dlutra.getters.seed=N} replays a run; {@code -Dlutra.getters.rows=N} sizes it.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GetterDifferentialIT {
    static final long SEED = Long.getLong("lutra.getters.seed", System.nanoTime());
    static final int ROWS = Integer.getInteger("lutra.getters.rows", 120);

    /** Column name → its SQL type; every one nullable. */
    private static final Map<String, String> COLUMNS = new java.util.LinkedHashMap<>();

    static {
        COLUMNS.put("b1", "TINYINT(1)");
        COLUMNS.put("ti", "TINYINT");
        COLUMNS.put("tu", "TINYINT UNSIGNED");
        COLUMNS.put("si", "SMALLINT");
        COLUMNS.put("mi", "MEDIUMINT UNSIGNED");
        COLUMNS.put("i", "INT");
        COLUMNS.put("iu", "INT UNSIGNED");
        COLUMNS.put("bi", "BIGINT");
        COLUMNS.put("bu", "BIGINT UNSIGNED");
        COLUMNS.put("de", "DECIMAL(20,6)");
        COLUMNS.put("d0", "DECIMAL(30,0)");
        COLUMNS.put("fl", "FLOAT");
        COLUMNS.put("db", "DOUBLE");
        COLUMNS.put("ff", "FLOAT(7,3)");
        COLUMNS.put("d62", "DOUBLE(10,2)");
        COLUMNS.put("bt", "BIT(1)");
        COLUMNS.put("b5", "BIT(5)");
        COLUMNS.put("dt", "DATE");
        COLUMNS.put("tm", "TIME(2)");
        COLUMNS.put("dtm", "DATETIME(3)");
        COLUMNS.put("ts", "TIMESTAMP(6) NULL");
        COLUMNS.put("dt0", "DATETIME");
        COLUMNS.put("yr", "YEAR");
        COLUMNS.put("ch", "CHAR(30) CHARACTER SET utf8mb4");
        COLUMNS.put("vc", "VARCHAR(40) CHARACTER SET utf8mb4");
        COLUMNS.put("tx", "TEXT CHARACTER SET utf8mb4");
        COLUMNS.put("vb", "VARBINARY(32)");
        COLUMNS.put("bl", "BLOB");
        COLUMNS.put("en", "ENUM('1','0','yes','a b','-7')");
        COLUMNS.put("st", "SET('x','y','1')");
        COLUMNS.put("js", "JSON");
    }

    /** Text that looks like a number, a boolean, a date or a time to somebody, and text that does not. */
    private static final List<String> TEXTS = List.of("0", "1", "-1", "12", " 7", "7 ", "+3", "1.5", "-0.5", "2.5e3", "1e400", "9223372036854775807",
            "9223372036854775808", "-9223372036854775809", "18446744073709551615", "32767", "32768", "127", "128", "255", "0x1A", "true", "false",
            "TRUE", "yes", "no", "Y", "N", "on", "", " ", "abc", "12abc", "2024-02-29", "2024-2-3", "2024-02-29 13:14:15", "2024-02-29 13:14:15.123456",
            "13:14:15", "25:00:00", "-01:02:03", "0000-00-00", "1970-01-01T00:00:00", "é", "😀", "null", "NaN", "Infinity", ".5", "5.",
            "123456789.123456789123", "0.1000000000000000000001", "-1", "-1.0", "-2", "1e-400", "00012", "-0");

    Differential differential;
    final SplittableRandom random = new SplittableRandom(SEED);

    @BeforeAll
    void load(Shards shards) throws Exception {
        System.out.println("GetterDifferentialIT seed " + SEED + " (replay with -Dlutra.getters.seed=" + SEED + ")");
        var ddl = new StringBuilder("CREATE TABLE g (id INT PRIMARY KEY");
        COLUMNS.forEach((name, type) -> ddl.append(", ").append(name).append(' ').append(type));
        ddl.append(") PARTITION BY hash(id) ON (p0, p1, p2, p3);");
        differential = new Differential(shards, "getters", ddl.toString());
        for (int id = 1; id <= ROWS; id++) {
            var values = new StringBuilder("INSERT INTO g VALUES (" + id);
            for (var e : COLUMNS.entrySet()) values.append(", ").append(random.nextInt(6) == 0 ? "NULL" : literal(e.getKey()));
            values.append(')');
            differential.both(values.toString());
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    @Test
    void everyGetterReadsWhatConnectorJReads() throws SQLException {
        compare("SELECT * FROM g ORDER BY id", 2);
    }

    /** Computed columns: aggregates merged by the router, arithmetic and casts the shards compute. */
    @Test
    void computedColumnsReadAsConnectorJReadsThem() throws SQLException {
        compare("SELECT COUNT(*), SUM(i), SUM(bu), SUM(de), SUM(fl), AVG(ti), AVG(de), MIN(fl), MAX(ff), MIN(d62), MAX(dtm), MIN(tm),"
                + " MAX(yr), MIN(vc COLLATE utf8mb4_nopad_bin), MAX(ch COLLATE utf8mb4_nopad_bin), MAX(b5), STD(si), VARIANCE(ff), STD(d62) FROM g", 1);
        compare("SELECT id, fl * 1, ff + 0, d62 * 1, de / 3, i DIV 7, CAST(de AS FLOAT), CAST(fl AS DOUBLE), CAST(vc AS CHAR(4)), dt + 0, tm + 0,"
                + " b5 + 0, yr + 0, st + 0, en + 0, CONCAT(ti, ''), i > 0, ROUND(db, 2), TRUNCATE(fl, 1) FROM g ORDER BY id", 2);
    }

    /**
     * Runs {@code sql} through both drivers and calls every getter on every column from {@code first} on: where
     * both return a value it must be the same; where one refuses the pair is tallied and printed.
     */
    private void compare(String sql, int first) throws SQLException {
        var wrong = new TreeMap<String, String>(); // getter on type → first example
        var refusals = new TreeMap<String, Integer>();
        long compared = 0;
        try (var l = differential.lutra.createStatement().executeQuery(sql); var r = differential.reference.createStatement().executeQuery(sql)) {
            var meta = r.getMetaData();
            int row = 0;
            while (r.next()) {
                assertTrue(l.next(), "Lutra returned fewer rows: " + sql);
                row++;
                for (int c = first; c <= meta.getColumnCount(); c++) {
                    String column = meta.getColumnLabel(c) + " " + COLUMNS.getOrDefault(meta.getColumnLabel(c), meta.getColumnTypeName(c));
                    for (var getter : GETTERS) {
                        String expected = read(r, c, getter);
                        String actual = read(l, c, getter);
                        compared++;
                        if (expected.equals(actual)) continue;
                        String key = getter.name() + " of " + column;
                        if (expected.startsWith("error") || actual.startsWith("error")) {
                            refusals.merge(key + (actual.startsWith("error") ? ": Lutra refuses" : ": Connector/J refuses"), 1, Integer::sum);
                        } else {
                            wrong.putIfAbsent(key, "row " + row + ", getString " + read(r, c, GETTERS.get(0)) + ": Connector/J " + expected
                                    + ", Lutra " + actual);
                        }
                    }
                }
            }
        }
        compareThroughMysqlListener(sql, first);
        System.out.printf("GetterDifferentialIT: %,d getter calls compared (seed %d) over %s; conversions only one driver refuses:%n", compared, SEED, sql);
        refusals.forEach((k, n) -> System.out.println("  " + k + " (" + n + ")"));
        assertTrue(wrong.isEmpty(), "Lutra and Connector/J read different values (seed " + SEED + ") over " + sql + ":\n  "
                + String.join("\n  ", wrong.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).toList()));
    }

    /**
     * The same statement through Connector/J at the router's MySQL listener: the same driver on both sides, so every
     * getter must give exactly what it gives against one MariaDB, refusals included.
     */
    private void compareThroughMysqlListener(String sql, int first) throws SQLException {
        var wrong = new TreeMap<String, String>();
        try (var m = differential.router.connectMysql(""); var l = m.createStatement().executeQuery(sql);
             var r = differential.reference.createStatement().executeQuery(sql)) {
            var meta = r.getMetaData();
            int row = 0;
            while (r.next()) {
                assertTrue(l.next(), "the MySQL listener returned fewer rows: " + sql);
                row++;
                for (int c = first; c <= meta.getColumnCount(); c++) {
                    for (var getter : GETTERS) {
                        String expected = read(r, c, getter);
                        String actual = read(l, c, getter);
                        if (!expected.equals(actual)) {
                            wrong.putIfAbsent(getter.name() + " of " + meta.getColumnLabel(c), "row " + row + ": MariaDB " + expected + ", listener " + actual);
                        }
                    }
                }
            }
            assertTrue(!l.next(), "the MySQL listener returned more rows: " + sql);
        }
        assertTrue(wrong.isEmpty(), "Connector/J reads otherwise through the MySQL listener than from one MariaDB (seed " + SEED + ") over " + sql
                + ":\n  " + String.join("\n  ", wrong.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).toList()));
    }

    // ---- values ----

    private String literal(String column) {
        return switch (column) {
            case "b1" -> pick("0", "1", "2", "-1", "127");
            case "ti" -> Integer.toString(random.nextInt(-128, 128));
            case "tu" -> Integer.toString(random.nextInt(0, 256));
            case "si" -> pick("-32768", "32767", "0", Integer.toString(random.nextInt(-32768, 32768)));
            case "mi" -> pick("0", "16777215", Integer.toString(random.nextInt(0, 16777216)));
            case "i" -> pick("-2147483648", "2147483647", "0", Integer.toString(random.nextInt()));
            case "iu" -> pick("0", "4294967295", Long.toString(random.nextLong(0, 4294967296L)));
            case "bi" -> pick("-9223372036854775808", "9223372036854775807", "0", Long.toString(random.nextLong()));
            case "bu" -> pick("0", "18446744073709551615", "9223372036854775808", Long.toUnsignedString(random.nextLong()));
            case "de" -> pick("0", "-0.000001", "99999999999999.999999", "1.5", "-2.5", "127.9", "128", decimal(14, 6));
            case "d0" -> pick("0", "9223372036854775808", "-9223372036854775809", "999999999999999999999999999999", decimal(25, 0));
            case "fl" -> pick("0", "1.5", "-3.4e38", "1e-30", "0.1", "16777217", Float.toString((float) random.nextGaussian() * 1000));
            case "ff" -> pick("0", "1234.567", "-0.001", "1.5", Float.toString((float) random.nextGaussian() * 100));
            case "dt0" -> quote(pick("1000-01-01 00:00:00", "9999-12-31 23:59:59", date() + " " + time24()));
            case "d62" -> pick("0", "12345678.99", "-0.01", "1.5", "2.25");
            case "db" -> pick("0", "1e308", "-4.9e-324", "0.1", "9.223372036854776e18", "2.5", Double.toString(random.nextGaussian() * 1e6));
            case "bt" -> pick("b'0'", "b'1'");
            case "b5" -> "b'" + Integer.toBinaryString(random.nextInt(32)) + "'";
            case "dt" -> quote(pick("1000-01-01", "9999-12-31", "2024-02-29", "1970-01-01", date()));
            case "tm" -> quote(pick("00:00:00", "-838:59:59", "838:59:59", "12:34:56.78", "-00:00:01.5", "24:00:00", time()));
            case "dtm" -> quote(pick("1000-01-01 00:00:00", "9999-12-31 23:59:59.999", "2024-02-29 12:00:00.5", date() + " " + time24()));
            case "ts" -> quote(pick("1970-01-01 00:00:01", "2038-01-19 03:14:07.999999", "2024-03-31 02:30:00", date2() + " " + time24()));
            case "yr" -> pick("1901", "2155", "0", "2024", Integer.toString(random.nextInt(1901, 2156)));
            case "ch", "vc", "tx" -> quote(TEXTS.get(random.nextInt(TEXTS.size())));
            case "vb", "bl" -> random.nextBoolean() ? quote(TEXTS.get(random.nextInt(TEXTS.size()))) : "x'" + hex() + "'";
            case "en" -> quote(pick("1", "0", "yes", "a b", "-7"));
            case "st" -> quote(pick("", "x", "y,x", "1", "x,y,1"));
            case "js" -> quote(pick("1", "true", "null", "\"a\"", "[1, 2]", "{\"k\": 1.5}", "-0.5"));
            default -> throw new IllegalArgumentException(column);
        };
    }

    private String pick(String... options) {
        return options[random.nextInt(options.length)];
    }

    private String decimal(int integerDigits, int fraction) {
        var s = new StringBuilder(random.nextBoolean() ? "-" : "");
        s.append(random.nextLong(1, 10));
        for (int i = 1, n = random.nextInt(integerDigits); i < n; i++) s.append(random.nextInt(10));
        if (fraction > 0) {
            s.append('.');
            for (int i = 0; i < fraction; i++) s.append(random.nextInt(10));
        }
        return s.toString();
    }

    private String date() {
        return String.format("%04d-%02d-%02d", random.nextInt(1000, 10000), random.nextInt(1, 13), random.nextInt(1, 29));
    }

    private String date2() {
        return String.format("%04d-%02d-%02d", random.nextInt(1971, 2038), random.nextInt(1, 13), random.nextInt(1, 29));
    }

    private String time() {
        return String.format("%s%02d:%02d:%02d.%02d", random.nextInt(4) == 0 ? "-" : "", random.nextInt(0, 838), random.nextInt(60), random.nextInt(60),
                random.nextInt(100));
    }

    private String time24() {
        return String.format("%02d:%02d:%02d.%03d", random.nextInt(24), random.nextInt(60), random.nextInt(60), random.nextInt(1000));
    }

    private String hex() {
        var s = new StringBuilder();
        for (int i = 0, n = random.nextInt(9); i < n; i++) s.append(String.format("%02x", random.nextInt(256)));
        return s.toString();
    }

    private static String quote(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "''") + "'";
    }

    // ---- getters ----

    private record Getter(String name, Read read) {}

    private interface Read {
        Object get(ResultSet rs, int c) throws SQLException;
    }

    private static final List<Getter> GETTERS = List.of(
            new Getter("getString", ResultSet::getString),
            new Getter("getObject", ResultSet::getObject),
            new Getter("getBoolean", ResultSet::getBoolean),
            new Getter("getByte", ResultSet::getByte),
            new Getter("getShort", ResultSet::getShort),
            new Getter("getInt", ResultSet::getInt),
            new Getter("getLong", ResultSet::getLong),
            new Getter("getFloat", ResultSet::getFloat),
            new Getter("getDouble", ResultSet::getDouble),
            new Getter("getBigDecimal", ResultSet::getBigDecimal),
            new Getter("getBytes", ResultSet::getBytes),
            new Getter("getDate", ResultSet::getDate),
            new Getter("getTime", ResultSet::getTime),
            new Getter("getTimestamp", ResultSet::getTimestamp),
            new Getter("getObject(Integer)", (rs, c) -> rs.getObject(c, Integer.class)),
            new Getter("getObject(Long)", (rs, c) -> rs.getObject(c, Long.class)),
            new Getter("getObject(Boolean)", (rs, c) -> rs.getObject(c, Boolean.class)),
            new Getter("getObject(Double)", (rs, c) -> rs.getObject(c, Double.class)),
            new Getter("getObject(BigDecimal)", (rs, c) -> rs.getObject(c, BigDecimal.class)),
            new Getter("getObject(BigInteger)", (rs, c) -> rs.getObject(c, BigInteger.class)),
            new Getter("getObject(String)", (rs, c) -> rs.getObject(c, String.class)),
            new Getter("getObject(LocalDate)", (rs, c) -> rs.getObject(c, LocalDate.class)),
            new Getter("getObject(LocalTime)", (rs, c) -> rs.getObject(c, LocalTime.class)),
            new Getter("getObject(LocalDateTime)", (rs, c) -> rs.getObject(c, LocalDateTime.class)));

    /** A getter's outcome as text: the value and its class, and whether the column then reads as NULL; or "error". */
    private static String read(ResultSet rs, int c, Getter getter) {
        try {
            Object v = getter.read().get(rs, c);
            String text = v == null ? "null" : (v instanceof byte[] b ? Arrays.toString(b) : v + " : " + v.getClass().getSimpleName());
            return text + (rs.wasNull() ? " (wasNull)" : "");
        } catch (SQLException | RuntimeException e) {
            return "error";
        }
    }
}
