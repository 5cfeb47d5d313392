package org.lutra.catalog;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A FOREIGN KEY of a table's definition, and whether its rows can live apart: {@code crossing} when a child row and the
 * parent row it references may be on different partitions. Every foreign key is created on the shards as written (so
 * SHOW CREATE TABLE and information_schema answer as one MariaDB); a crossing one is enforced by the router (docs/foreign-keys.md).
 *
 * @param name       the constraint's name on the backends (as written, or InnoDB's {@code child_ibfk_N})
 * @param columns    the child's columns, in key order
 * @param referenced the parent's columns, in the same order
 */
public record ForeignKey(String name, String child, List<String> columns, String parent, List<String> referenced,
                         Action onDelete, Action onUpdate, boolean crossing) {
    public enum Action {
        RESTRICT, NO_ACTION, CASCADE, SET_NULL, SET_DEFAULT;

        static Action of(String written) {
            if (written == null || written.isBlank()) return RESTRICT;
            return valueOf(written.strip().toUpperCase(Locale.ROOT).replaceAll("\\s+", "_"));
        }

        /** RESTRICT and NO ACTION, the same in InnoDB: a parent row with children is not deleted or changed. */
        public boolean restricts() {
            return this == RESTRICT || this == NO_ACTION;
        }

        String written() {
            return name().replace('_', ' ');
        }
    }

    public boolean selfReferencing() {
        return child.equalsIgnoreCase(parent);
    }

    /** Whether {@code column} is one of the child's columns. */
    public boolean hasColumn(String column) {
        return columns.stream().anyMatch(c -> c.equalsIgnoreCase(column));
    }

    /** Whether {@code column} is one of the parent's referenced columns. */
    public boolean referencesColumn(String column) {
        return referenced.stream().anyMatch(c -> c.equalsIgnoreCase(column));
    }

    ForeignKey crossing(boolean crossing) {
        return new ForeignKey(name, child, columns, parent, referenced, onDelete, onUpdate, crossing);
    }

    /**
     * The constraint as MariaDB's 1451 and 1452 messages print it: {@code `db`.`child`, CONSTRAINT `fk` FOREIGN KEY (`a`)
     * REFERENCES `parent` (`id`) ON DELETE CASCADE}.
     */
    public String described(String database) {
        return quote(database) + "." + quote(child) + ", CONSTRAINT " + quote(name) + " FOREIGN KEY (" + quoted(columns) + ") REFERENCES "
                + quote(parent) + " (" + quoted(referenced) + ")" + (onDelete == Action.RESTRICT ? "" : " ON DELETE " + onDelete.written())
                + (onUpdate == Action.RESTRICT ? "" : " ON UPDATE " + onUpdate.written());
    }

    /** MariaDB's 1452: a child row whose parent does not exist. */
    public String childFails(String database) {
        return "Cannot add or update a child row: a foreign key constraint fails (" + described(database) + ")";
    }

    /** MariaDB's 1451: a parent row that children reference. */
    public String parentFails(String database) {
        return "Cannot delete or update a parent row: a foreign key constraint fails (" + described(database) + ")";
    }

    private static String quoted(List<String> names) {
        return names.stream().map(ForeignKey::quote).collect(Collectors.joining(", "));
    }

    static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}
