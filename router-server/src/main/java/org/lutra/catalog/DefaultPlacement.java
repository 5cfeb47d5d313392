package org.lutra.catalog;

import java.util.List;
import java.util.Locale;

/**
 * Where a {@code CREATE TABLE} without a placement clause (as ORMs and migration tools write it) puts
 * its rows: the router config's {@code catalog.default_placement}.
 *
 * <ul>
 *   <li>{@code hash} (the default): {@code PARTITION BY hash(first primary-key column) ON (every partition)}.
 *       A table without a primary key is refused: no column says which rows belong together, and a
 *       guessed one would scatter the rows a unique key later needs in one place;
 *   <li>{@code replicated}: {@code REPLICATED} on every partition (small reference data);
 *   <li>{@code refuse}: every CREATE TABLE must say where its rows go.
 * </ul>
 */
public enum DefaultPlacement {
    HASH, REPLICATED, REFUSE;

    public static DefaultPlacement of(String configured) {
        if (configured == null || configured.isBlank()) return HASH;
        try {
            return valueOf(configured.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("config: catalog.default_placement '" + configured + "' must be hash, replicated or refuse");
        }
    }

    /** The placement clause this rule gives {@code createText} (a CREATE TABLE without one) over {@code partitions}. */
    public String clauseFor(String createText, List<String> partitions) {
        String all = " ON (" + String.join(", ", partitions) + ")";
        return switch (this) {
            case REPLICATED -> "REPLICATED" + all;
            case REFUSE -> throw new SchemaException("CREATE TABLE needs a placement clause at its end (catalog.default_placement is 'refuse'):"
                    + " PARTITION BY lookup|hash|range(col) ON (...), PARTITION BY lookup(col) SAME AS t, or REPLICATED");
            case HASH -> {
                List<String> key = SchemaParser.primaryKey(createText);
                if (key.isEmpty()) {
                    throw new SchemaException("CREATE TABLE without a placement clause is placed by hash on its first primary-key column"
                            + " (catalog.default_placement: hash), and this table has no primary key: add one, or a placement clause"
                            + " (PARTITION BY hash(col) ON (...), REPLICATED, ...)");
                }
                yield "PARTITION BY hash(`" + key.getFirst() + "`)" + all;
            }
        };
    }
}
