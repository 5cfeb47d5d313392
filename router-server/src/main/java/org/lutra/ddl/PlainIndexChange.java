package org.lutra.ddl;

import java.util.ArrayList;
import java.util.regex.Pattern;

/**
 * Whether an ALTER changed a table's plain indexes and nothing else, so that the statement can answer without the
 * catalog lease's wait ({@link CatalogLease}).
 *
 * <p>The wait makes sure no router still routes with the old definition when the statement returns. What a router reads
 * from a definition is its columns (types, collations, defaults, generated columns, ON UPDATE clauses), its PRIMARY KEY and
 * UNIQUE keys (REPLACE and upserts, lookup validation, moves), its foreign keys and its table options; a plain index
 * ({@code KEY} in SHOW CREATE TABLE: not UNIQUE, FULLTEXT, SPATIAL, nor a constraint) is read by none of them, and a
 * temporary copy made from either definition holds the same rows. So a router holding the definition from before the
 * change routes and answers as with the new one, and the new text reaches it at its next renewal. A schema script that
 * creates its indexes one statement at a time (BenchBase's Wikipedia: 29 CREATE INDEX) then takes no lease per index.
 *
 * <p>The judge is the partition's own SHOW CREATE TABLE before and after the statement (under the catalog lock, so no
 * other DDL ran between), not the clauses as written: whatever the statement did beside a plain index (a column, a
 * unique key, a table option, a changed AUTO_INCREMENT) leaves another line changed, and the statement waits.
 */
final class PlainIndexChange {
    /** A plain index line of SHOW CREATE TABLE (MariaDB and MySQL): {@code KEY `name` (...)}. */
    private static final Pattern PLAIN_INDEX = Pattern.compile("(?s)\\s*KEY\\s+`.*");

    private PlainIndexChange() {}

    /** Whether SHOW CREATE TABLE texts {@code before} and {@code after} differ in plain index lines only (or not at all). */
    static boolean only(String before, String after) {
        return withoutPlainIndexes(before).equals(withoutPlainIndexes(after));
    }

    /** The lines other than plain indexes, each without its separating comma (the last element of the body has none). */
    private static String withoutPlainIndexes(String shown) {
        var kept = new ArrayList<String>();
        for (String line : shown.split("\n")) {
            if (PLAIN_INDEX.matcher(line).matches()) continue;
            String stripped = line.stripTrailing();
            kept.add(stripped.endsWith(",") ? stripped.substring(0, stripped.length() - 1) : stripped);
        }
        return String.join("\n", kept);
    }
}
