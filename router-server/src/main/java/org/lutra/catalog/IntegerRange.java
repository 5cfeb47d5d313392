package org.lutra.catalog;

import java.util.Locale;

/**
 * The values an integer column of MySQL can hold, from its type as the schema spells it ({@code INT}, {@code int(11) unsigned},
 * {@code BIGINT UNSIGNED}): a key outside them names no row that can exist, and a table keyed by such a column (the placement
 * rows) cannot hold it either.
 */
public record IntegerRange(long min, long max) {
    /** The range of {@code typeName}, or null when it is no integer type. BIGINT UNSIGNED is cut at Long.MAX_VALUE (keys are longs). */
    public static IntegerRange of(String typeName) {
        String type = typeName.toUpperCase(Locale.ROOT).strip();
        boolean unsigned = type.contains("UNSIGNED");
        String base = type.split("[\\s(]", 2)[0];
        return switch (base) {
            case "TINYINT" -> unsigned ? new IntegerRange(0, 255) : new IntegerRange(-128, 127);
            case "SMALLINT" -> unsigned ? new IntegerRange(0, 65_535) : new IntegerRange(-32_768, 32_767);
            case "MEDIUMINT" -> unsigned ? new IntegerRange(0, 16_777_215) : new IntegerRange(-8_388_608, 8_388_607);
            case "INT", "INTEGER" -> unsigned ? new IntegerRange(0, 4_294_967_295L) : new IntegerRange(Integer.MIN_VALUE, Integer.MAX_VALUE);
            case "BIGINT" -> unsigned ? new IntegerRange(0, Long.MAX_VALUE) : new IntegerRange(Long.MIN_VALUE, Long.MAX_VALUE);
            default -> null;
        };
    }

    public boolean holds(long value) {
        return value >= min && value <= max;
    }
}
