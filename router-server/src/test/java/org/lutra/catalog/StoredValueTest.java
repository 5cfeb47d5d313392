package org.lutra.catalog;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@link StoredValue} against MariaDB's own answers: {@code stored-values-mariadb.tsv}, written by {@code StoredValueIT}
 * from a MariaDB 11.4 server (type, how the value travelled, the value, what the column held without strict mode, the
 * error strict mode raised or 0). Rows the router does not model (it answers null and refuses such values) are counted,
 * not compared.
 */
class StoredValueTest {
    @Test
    void everyModelledConversionIsMariaDbs() throws IOException {
        var differences = new ArrayList<String>();
        int compared = 0;
        int rows = 0;
        try (InputStream in = getClass().getResourceAsStream("stored-values-mariadb.tsv")) {
            assertNotNull(in, "the table StoredValueIT writes");
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isEmpty()) continue;
                rows++;
                String[] f = line.split("\t", -1);
                String type = f[0];
                Object value = value(f[1], f[2]);
                var ours = StoredValue.of(ColumnType.parse(type.replaceFirst("(?i)\\s+COLLATE.*", ""), type), value);
                if (ours == null) continue;
                compared++;
                boolean strictRefuses = !f[4].equals("0");
                if (!text(ours.value()).equals(f[3]) || ours.refusedWhenStrict() != strictRefuses) {
                    differences.add(type + " <- " + f[1] + " " + f[2] + ": MariaDB " + f[3] + (strictRefuses ? " (strict: " + f[4] + ")" : "")
                            + ", router " + text(ours.value()) + (ours.refusedWhenStrict() ? " (strict: refused)" : ""));
                }
            }
        }
        assertTrue(rows > 9_000, rows + " answers");
        assertTrue(compared > 8_500, compared + " compared");
        assertEquals(java.util.List.of(), differences);
    }

    @Test
    void examples() {
        var integer = ColumnType.parse("INT", "");
        assertEquals(13L, StoredValue.of(integer, new BigDecimal("12.6")).value());
        assertEquals(12L, StoredValue.of(integer, 12.5).value(), "a double rounds to even");
        assertEquals(13L, StoredValue.of(integer, new BigDecimal("12.5")).value(), "a decimal rounds half away from zero");
        assertEquals(2147483647L, StoredValue.of(integer, 1e20).value());
        assertTrue(StoredValue.of(integer, 1e20).refusedWhenStrict());
        assertEquals(12L, StoredValue.of(integer, "12abc").value());
        assertTrue(StoredValue.of(integer, "12abc").refusedWhenStrict());
        assertEquals(0L, StoredValue.of(ColumnType.parse("INT UNSIGNED", ""), -1L).value());
        assertEquals("abc", StoredValue.of(ColumnType.parse("CHAR (5)", "COLLATE utf8mb4_bin"), "abc  ").value());
        assertEquals("abc", StoredValue.of(ColumnType.parse("VARCHAR (3)", "COLLATE utf8mb4_bin"), "abcdef").value());
        assertEquals("ab\0\0", StoredValue.of(ColumnType.parse("BINARY (4)", ""), "ab").value());
        assertEquals("ééé", StoredValue.of(ColumnType.parse("VARCHAR (3)", ""), "éééé").value(), "characters, whatever the character set");
        assertNull(StoredValue.of(ColumnType.parse("VARCHAR (3)", ""), 1.5e0), "a double's text depends on the column");
        assertNull(StoredValue.of(ColumnType.parse("DATE", ""), "2020-01-01"), "a type the router does not model");
    }

    /** The Java value the router sees for a value that travelled as {@code kind} ({@code StoredValueIT.inputs}). */
    static Object value(String kind, String text) {
        return switch (kind) {
            case "lit" -> literal(text);
            case "long" -> Long.parseLong(text);
            case "decimal" -> new BigDecimal(text);
            case "double" -> Double.parseDouble(text);
            default -> text;
        };
    }

    /** A literal of an INSERT's text as the planner reads it: a Long where it fits, an exact decimal, a double with an exponent, a string. */
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

    static String text(Object value) {
        if (value instanceof String s) return HexFormat.of().withUpperCase().formatHex(s.getBytes(StandardCharsets.UTF_8));
        if (value instanceof BigDecimal d) return d.toPlainString();
        return String.valueOf(value);
    }
}
