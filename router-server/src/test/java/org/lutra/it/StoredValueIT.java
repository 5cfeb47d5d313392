package org.lutra.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.catalog.ColumnType;
import org.lutra.catalog.StoredValue;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MariaDB's own answers to "what does this column hold after INSERT writes this value": every type of {@link #TYPES}
 * gets every input of {@link #NUMBERS} and {@link #TEXTS}, as a literal in the statement's text and as a parameter bound
 * as the router binds it (MariaDB Connector/J, server-side prepared, with the router's options), once without strict
 * mode (the value stored) and once with MariaDB's default strict mode (an error, or none). Each answer is compared with
 * {@link StoredValue}; with {@code -Dlutra.stored.write=true} the answers are written to the table that
 * {@code StoredValueTest} reads ({@value #TABLE}), so the unit test runs without a server.
 */
@ExtendWith(EmbeddedShardsExtension.class)
class StoredValueIT {
    static final String TABLE = "src/test/resources/org/lutra/catalog/stored-values-mariadb.tsv";

    static final List<String> TYPES = List.of("TINYINT", "TINYINT UNSIGNED", "SMALLINT", "SMALLINT UNSIGNED", "MEDIUMINT", "MEDIUMINT UNSIGNED",
            "INT", "INT UNSIGNED", "BIGINT", "BIGINT UNSIGNED", "DECIMAL(5,2)", "DECIMAL(5,2) UNSIGNED", "DECIMAL(20,0)", "DECIMAL(10,4)", "YEAR",
            "BIT(3)", "BIT(8)", "BIT(64)", "CHAR(3) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin", "VARCHAR(3) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
            "VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci", "CHAR(3)", "VARCHAR(3)", "BINARY(4)", "VARBINARY(3)");

    /** Numbers, written as SQL literals; each also goes as a parameter of the Java types it fits. */
    static final List<String> NUMBERS = List.of("0", "1", "-1", "12.4", "12.5", "12.6", "-12.5", "-12.6", "2.5", "3.5", "-2.5", "0.5", "-0.5", "0.4",
            "-0.4", "0.0", "7", "8", "127", "128", "-128", "-129", "127.5", "-128.5", "255", "256", "255.5", "32767", "32768", "65535", "65536",
            "8388607", "8388608", "16777215", "16777216", "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
            "18446744073709551616", "99999999999999999999999", "1e3", "2.5e0", "3.5e0", "-2.5e0", "0.5e0", "1.5e1", "1e20", "-1e20", "12.6e0",
            "1.000000000000000000001", "12.49999999999999999999", "999.994", "999.995", "-999.995", "1.23456", "1.23455", "2.675e0", "0.125e0",
            "1901", "1900", "2155", "2156", "69", "70", "99", "100", "2000", "1999", "1969", "1970", "0012", "123.45678");

    /** Text, as string literals and as string parameters (no quote or backslash in them). */
    static final List<String> TEXTS = List.of("12", " 12", "12 ", "12.6", "12.5", "-12.5", "1e3", "1.5e1", "12.5e0", "12abc", "abc", "", "  ",
            "0x1A", "+7", "  -3  ", "9223372036854775808", "18446744073709551616", "-0", "-0.4", "0", "00", "000", "0000", "69", "70", "2155", "2156",
            "1.9", "ab", "abc ", "abc  ", "abcd", "abcdefghij", "a", "A", "a  ", " a", "é", "aé", "aéb", "ééé", "éééé", "12.", ".5", "1e", "1e+2",
            "1e-2", "5 6", "99999999999999999999999", "-9223372036854775809", "1.23455", "999.995");

    @Test
    void theConversionGivesWhatMariaDbStores(Shards shards) throws Exception {
        String database = "storedvalueit_" + Long.toString(System.nanoTime(), 36);
        try (var c = shards.connect(0); var st = c.createStatement()) {
            st.execute("CREATE DATABASE " + database);
        }
        String url = shards.url(0, database).replaceFirst("^jdbc:mysql:", "jdbc:mariadb:");
        url += (url.contains("?") ? "&" : "?") + org.lutra.backend.BackendDriver.options();
        var rows = new ArrayList<String>();
        var differences = new ArrayList<String>();
        int compared = 0;
        int unknown = 0;
        try (Connection c = DriverManager.getConnection(url, shards.user(), shards.password())) {
            for (String type : TYPES) {
                try (var st = c.createStatement()) {
                    st.execute("DROP TABLE IF EXISTS conv");
                    st.execute("CREATE TABLE conv (id INT PRIMARY KEY, v " + type + ")");
                }
                var columnType = ColumnType.parse(type.replaceFirst("(?i)\\s+COLLATE.*", ""), type);
                var inputs = inputs();
                var answers = answers(c, type, inputs);
                for (int i = 0; i < inputs.size(); i++) {
                    var input = inputs.get(i);
                    var answer = answers.get(i);
                    rows.add(String.join("\t", type, input.kind(), input.text(), answer.stored(), Integer.toString(answer.strictError())));
                    var ours = StoredValue.of(columnType, input.value());
                    if (ours == null) {
                        unknown++;
                        continue;
                    }
                    compared++;
                    String text = text(columnType, ours.value());
                    if (!text.equals(answer.stored()) || ours.refusedWhenStrict() != (answer.strictError() != 0)) {
                        differences.add(type + " <- " + input.kind() + " " + input.text() + ": MariaDB " + answer.stored() + (answer.strictError() != 0
                                ? " (strict: " + answer.strictError() + ")" : "") + ", router " + text + (ours.refusedWhenStrict() ? " (strict: refused)" : ""));
                    }
                }
            }
        } finally {
            try (var c = shards.connect(0); var st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + database);
            }
        }
        if (Boolean.getBoolean("lutra.stored.write")) {
            Files.createDirectories(Path.of(TABLE).getParent());
            Files.write(Path.of(TABLE), rows);
            System.out.println("StoredValueIT: wrote " + rows.size() + " answers to " + TABLE);
        }
        System.out.println("StoredValueIT: " + compared + " conversions compared, " + unknown + " the router does not model, " + differences.size()
                + " differ");
        differences.stream().limit(400).forEach(d -> System.out.println("  " + d));
        assertTrue(differences.isEmpty(), differences.size() + " conversions differ from MariaDB's, e.g. " + differences.stream().limit(5).toList());
        assertTrue(compared > unknown * 4, "most inputs are modelled: " + compared + " compared, " + unknown + " not");
    }

    /** One value to write: how it travels ({@code lit} in the text, or a parameter of a Java type), its text, and the Java value the router sees. */
    record Input(String kind, String text, Object value) {}

    record Answer(String stored, int strictError) {}

    static List<Input> inputs() {
        var out = new ArrayList<Input>();
        for (String n : NUMBERS) {
            out.add(new Input("lit", n, literal(n)));
            if (!n.contains("e") && !n.contains(".")) {
                try {
                    out.add(new Input("long", n, Long.parseLong(n)));
                } catch (NumberFormatException tooBig) {
                    // not a long parameter
                }
            }
            if (!n.contains("e")) out.add(new Input("decimal", n, new BigDecimal(n)));
            out.add(new Input("double", n, Double.parseDouble(n)));
        }
        for (String s : TEXTS) {
            out.add(new Input("lit", "'" + s + "'", s));
            out.add(new Input("string", s, s));
        }
        return out;
    }

    /** A literal as the router's planner reads it from an INSERT's text: exact numbers as BigDecimal, with an exponent a Double. */
    static Object literal(String text) {
        if (text.startsWith("'")) return text.substring(1, text.length() - 1);
        if (text.contains("e") || text.contains("E")) return Double.parseDouble(text);
        if (!text.contains(".")) {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException tooBig) {
                return new BigDecimal(text);
            }
        }
        return new BigDecimal(text);
    }

    private static final String STRICT = "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION";

    /**
     * MariaDB's answer for each input into an empty table {@code conv} of {@code type}: every input written without strict mode
     * (row i + 1) and read back in one SELECT, then every input written again with strict mode (row n + i + 1), its error kept.
     */
    private static List<Answer> answers(Connection c, String type, List<Input> inputs) throws SQLException {
        int n = inputs.size();
        try (var st = c.createStatement(); var ps = c.prepareStatement("INSERT INTO conv (id, v) VALUES (?, ?)")) {
            st.execute("SET sql_mode = ''");
            for (int i = 0; i < n; i++) {
                try {
                    insert(st, ps, i + 1, inputs.get(i));
                } catch (SQLException e) {
                    throw new SQLException(type + " <- " + inputs.get(i) + ": " + e.getMessage(), e);
                }
            }
            var stored = new String[n];
            boolean text = type.matches("(?i)(VAR)?(CHAR|BINARY).*");
            String read = text ? (type.matches("(?i)(VAR)?BINARY.*") ? "HEX(v)" : "HEX(CONVERT(v USING utf8mb4))") : "v + 0";
            try (var rs = st.executeQuery("SELECT id, " + read + " FROM conv WHERE id <= " + n)) {
                while (rs.next()) stored[rs.getInt(1) - 1] = rs.getString(2);
            }
            st.execute("SET sql_mode = '" + STRICT + "'");
            var out = new ArrayList<Answer>(n);
            for (int i = 0; i < n; i++) {
                int strict = 0;
                try {
                    insert(st, ps, n + i + 1, inputs.get(i));
                } catch (SQLException e) {
                    strict = e.getErrorCode();
                }
                out.add(new Answer(stored[i], strict));
            }
            return out;
        }
    }

    /** Row {@code row} with the input: a literal in the statement's text, or a parameter of its Java type. */
    private static void insert(java.sql.Statement st, java.sql.PreparedStatement ps, int row, Input input) throws SQLException {
        if (input.kind().equals("lit")) {
            st.executeUpdate("INSERT INTO conv (id, v) VALUES (" + row + ", " + input.text() + ")");
            return;
        }
        ps.setInt(1, row);
        switch (input.value()) {
            case Long l -> ps.setLong(2, l);
            case BigDecimal d -> ps.setBigDecimal(2, d);
            case Double d -> ps.setDouble(2, d);
            default -> ps.setString(2, (String) input.value());
        }
        ps.executeUpdate();
    }

    /** The converter's value as the IT reads MariaDB's: numbers as text, text as the hex of its UTF-8 bytes. */
    static String text(ColumnType type, Object value) {
        if (value instanceof String s) return java.util.HexFormat.of().withUpperCase().formatHex(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        if (value instanceof BigDecimal d) return d.toPlainString();
        return String.valueOf(value);
    }
}
