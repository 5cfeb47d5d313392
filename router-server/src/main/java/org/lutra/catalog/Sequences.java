package org.lutra.catalog;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * MariaDB sequences in the catalog. A sequence is a table to MariaDB ({@code SELECT * FROM s} reads its
 * one row, information_schema lists it with TABLE_TYPE {@code SEQUENCE}), so the catalog holds it as a
 * {@link TableDef} placed on ONE partition ({@code Replicated} over that partition alone: reads and
 * writes go there), whose {@code ddl} is the {@code CREATE SEQUENCE} statement and whose placement clause
 * is {@code ON p ID x} (x: {@link #storedText}). Every NEXTVAL of every router then runs on that one server, which hands each value out
 * once. The stored catalog keeps {@code CREATE SEQUENCE `s` options\n  ON p0 ID x}.
 */
public final class Sequences {
    /** The stored text: the backend's CREATE SEQUENCE, then the partition it lives on. */
    private static final Pattern STORED = Pattern.compile("(?is)\\s*(CREATE\\s+SEQUENCE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?`((?:[^`]|``)+)`.*?)\\s+ON\\s+`?(\\w+)`?(?:\\s+ID\\s+(\\w+))?\\s*");
    /** A sequence table's columns (MariaDB 10.3 and later), all BIGINT or TINYINT: none routes. */
    static final List<ColumnDef> COLUMNS = List.of(new ColumnDef("next_not_cached_value", "bigint", null),
            new ColumnDef("minimum_value", "bigint", null), new ColumnDef("maximum_value", "bigint", null),
            new ColumnDef("start_value", "bigint", null), new ColumnDef("increment", "bigint", null),
            new ColumnDef("cache_size", "bigint", null), new ColumnDef("cycle_option", "tinyint", null),
            new ColumnDef("cycle_count", "bigint", null));

    private Sequences() {}

    public static boolean isDefinition(String text) {
        return text.stripLeading().regionMatches(true, 0, "CREATE SEQUENCE", 0, 15);
    }

    /** Whether {@code t} is a sequence. */
    public static boolean is(TableDef t) {
        return t != null && t.ddl() != null && isDefinition(t.ddl());
    }

    /**
     * The text the stored catalog keeps for a sequence created by {@code create} on {@code partition}. {@code id} tells
     * this sequence from one dropped and created again under its name (MariaDB forgets a session's LASTVAL then, and
     * keeps it across ALTER SEQUENCE): a new one for CREATE, the old one for ALTER.
     */
    public static String storedText(String create, String partition, String id) {
        return create.strip() + "\n  ON " + partition + " ID " + id;
    }

    /** A new {@link #storedText} id. */
    public static String newId() {
        return Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
    }

    /** The id of sequence {@code t} (see {@link #storedText}). */
    public static String id(TableDef t) {
        return t.placement().substring(t.placement().lastIndexOf(' ') + 1);
    }

    /** The partition of a sequence (it has one). */
    public static int partition(TableDef t) {
        return t.partitioning().partitions()[0];
    }

    /** The sequence of a stored text; {@code partitionIds} maps lower-case partition names to ids. */
    static TableDef parse(String text, java.util.Map<String, Integer> partitionIds) {
        Matcher m = STORED.matcher(text);
        if (!m.matches()) throw new SchemaException("cannot read the stored sequence definition: " + text);
        Integer p = partitionIds.get(m.group(3).toLowerCase(java.util.Locale.ROOT));
        if (p == null) throw new SchemaException("sequence " + m.group(2) + " is on partition '" + m.group(3) + "', which the router config does not have");
        return new TableDef(m.group(2).replace("``", "`"), COLUMNS, new Partitioning.Replicated(new int[] {p}), m.group(1).strip(),
                "ON " + m.group(3) + " ID " + (m.group(4) == null ? "0" : m.group(4))); // a schema file's sequence has no ID
    }
}
