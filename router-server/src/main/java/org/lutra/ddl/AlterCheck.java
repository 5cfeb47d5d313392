package org.lutra.ddl;

import org.lutra.catalog.KeyType;
import org.lutra.catalog.TableDef;
import org.lutra.protocol.Refusal;

import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which ALTER TABLE clauses the router runs: those that keep the table's placement. Refused:
 * dropping, modifying, changing or renaming the routing column; renaming the table; MySQL's own
 * partitioning; CONVERT TO and table default character set or collation changes when the routing
 * column is a string (the router reads its collation from the definition). Anything not recognized
 * is refused too, rather than guessed. Dropping an index is allowed, but {@link DdlRunner} refuses it
 * when it is the last unique index of a lookup routing column (validation counts rows by it).
 */
final class AlterCheck {
    private static final String NAME = "(?:`((?:[^`]|``)+)`|(\\w+))";
    private static final Pattern DROP_COLUMN = Pattern.compile("(?is)DROP\\s+(?:COLUMN\\s+)?(?:IF\\s+EXISTS\\s+)?" + NAME + "\\s*(?:RESTRICT|CASCADE)?");
    private static final Pattern DROP_INDEX = Pattern.compile("(?is)DROP\\s+(?:INDEX|KEY|CONSTRAINT)\\s+(?:IF\\s+EXISTS\\s+)?" + NAME);
    private static final Pattern DROP_PRIMARY = Pattern.compile("(?is)DROP\\s+PRIMARY\\s+KEY");
    private static final Pattern DROP_OTHER = Pattern.compile("(?is)DROP\\s+(?:FOREIGN\\s+KEY|CHECK|PERIOD|SYSTEM\\s+VERSIONING)\\b.*");
    private static final Pattern MODIFY = Pattern.compile("(?is)(?:MODIFY|CHANGE)\\s+(?:COLUMN\\s+)?(?:IF\\s+EXISTS\\s+)?" + NAME + "\\b.*");
    private static final Pattern RENAME_COLUMN = Pattern.compile("(?is)RENAME\\s+COLUMN\\s+" + NAME + "\\b.*");
    private static final Pattern RENAME_INDEX = Pattern.compile("(?is)RENAME\\s+(?:INDEX|KEY)\\b.*");
    private static final Pattern RENAME_TABLE = Pattern.compile("(?is)RENAME\\b.*");
    private static final Pattern ADD = Pattern.compile("(?is)ADD\\s+(PARTITION\\b)?.*");
    private static final Pattern ALTER_COLUMN = Pattern.compile("(?is)ALTER\\s+(?:COLUMN\\s+)?(?:INDEX\\s+|KEY\\s+)?" + NAME + "\\s+(?:SET|DROP|INVISIBLE|VISIBLE|IGNORED|NOT\\s+IGNORED)\\b.*");
    private static final Pattern CHARSET = Pattern.compile("(?is)(?:DEFAULT\\s+)?(?:CHARACTER\\s+SET|CHARSET|COLLATE)\\b.*|CONVERT\\s+TO\\b.*");
    private static final Pattern PARTITIONING = Pattern.compile("(?is)(?:PARTITION\\s+BY|REMOVE\\s+PARTITIONING|(?:COALESCE|REORGANIZE|EXCHANGE|ANALYZE|CHECK|OPTIMIZE|REBUILD|REPAIR|TRUNCATE|DISCARD|IMPORT)\\s+PARTITION)\\b.*");
    private static final Pattern OPTION = Pattern.compile("(?is)(?:ENGINE|COMMENT|AUTO_INCREMENT|ROW_FORMAT|KEY_BLOCK_SIZE|ALGORITHM|LOCK|STATS_\\w+|CHECKSUM|PACK_KEYS|MAX_ROWS|MIN_ROWS|AVG_ROW_LENGTH|PAGE_CHECKSUM|TRANSACTIONAL)\\b.*|FORCE|ORDER\\s+BY\\b.*");
    private static final Pattern CREATE_INDEX = Pattern.compile("(?is)CREATE\\s+.*INDEX\\b.*");

    private AlterCheck() {}

    /** Checks every clause; returns the names (lower case; PRIMARY for the primary key) of the indexes it drops. */
    static Set<String> check(TableDef table, List<String> clauses) throws SQLException {
        return check(table, clauses, List.of());
    }

    /** As {@link #check(TableDef, List)}; {@code indexed}: columns of the table's secondary lookups, kept as the routing column is. */
    static Set<String> check(TableDef table, List<String> clauses, List<String> indexed) throws SQLException {
        String routing = table.partitioning().column();
        var droppedIndexes = new HashSet<String>();
        for (String clause : clauses) {
            Matcher m;
            if (CREATE_INDEX.matcher(clause).matches() || OPTION.matcher(clause).matches() || DROP_OTHER.matcher(clause).matches()
                    || RENAME_INDEX.matcher(clause).matches() || ALTER_COLUMN.matcher(clause).matches()) {
                continue;
            }
            if ((m = ADD.matcher(clause)).matches()) {
                if (m.group(1) != null) throw placement(table, clause);
                continue;
            }
            if (DROP_PRIMARY.matcher(clause).matches()) {
                droppedIndexes.add("primary");
                continue;
            }
            if ((m = DROP_INDEX.matcher(clause)).matches()) {
                droppedIndexes.add(name(m).toLowerCase(Locale.ROOT));
                continue;
            }
            if (PARTITIONING.matcher(clause).matches() || clause.matches("(?is)DROP\\s+PARTITION\\b.*")) throw placement(table, clause);
            if ((m = DROP_COLUMN.matcher(clause)).matches() || (m = MODIFY.matcher(clause)).matches() || (m = RENAME_COLUMN.matcher(clause)).matches()) {
                if (routing != null && name(m).equalsIgnoreCase(routing)) {
                    throw refused(table, clause, "it changes the routing column " + routing + ", which places the rows ("
                            + table.placement() + "); create a new table and copy the rows instead");
                }
                for (String col : indexed) {
                    if (name(m).equalsIgnoreCase(col)) {
                        throw refused(table, clause, "it changes " + col + ", the column of a secondary lookup (its entries hold the values as the column"
                                + " compares them); DROP SECONDARY LOOKUP first");
                    }
                }
                continue;
            }
            if (CHARSET.matcher(clause).matches()) {
                if (routing != null && table.keyType() == KeyType.STRING || !indexed.isEmpty()) {
                    throw refused(table, clause, "it may change the collation of the string routing column " + routing + " or of a secondary lookup's column"
                            + ", by which the router compares keys");
                }
                continue;
            }
            if (RENAME_TABLE.matcher(clause).matches()) {
                throw refused(table, clause, "renaming a table is not supported through the router (the stored catalog and other routers know it by name)");
            }
            throw refused(table, clause, "the router does not recognize this clause (it runs ADD, DROP, MODIFY, CHANGE, RENAME COLUMN/INDEX,"
                    + " ALTER COLUMN and table options that keep the placement)");
        }
        return droppedIndexes;
    }

    private static String name(Matcher m) {
        return m.group(1) != null ? m.group(1).replace("``", "`") : m.group(2);
    }

    private static SQLException placement(TableDef table, String clause) {
        return refused(table, clause, "the table's placement is the router's (" + table.placement() + "), not MySQL partitioning;"
                + " changing placement through ALTER is not supported");
    }

    static SQLException refused(TableDef table, String clause, String why) {
        String shown = clause.length() > 80 ? clause.substring(0, 77) + "..." : clause;
        return Refusal.of("Lutra does not support ALTER TABLE " + table.name() + " ... " + shown + ": " + why);
    }
}
