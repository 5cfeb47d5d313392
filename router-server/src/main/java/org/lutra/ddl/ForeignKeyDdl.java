package org.lutra.ddl;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.ForeignKey;
import org.lutra.catalog.ForeignKeys;
import org.lutra.catalog.TableDef;
import org.lutra.backend.Backends;
import org.lutra.protocol.Refusal;

import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * DDL's side of foreign keys (docs/foreign-keys.md): what one MariaDB refuses because of a foreign key, the router refuses
 * with MariaDB's error before any partition is touched, since each shard sees only the tables and rows of its own
 * partition — a table dropped or emptied while another references it, a key naming a table that does not exist. A
 * crossing key the router cannot enforce exactly is refused when it is created.
 */
final class ForeignKeyDdl {
    private static final Pattern ADD_FOREIGN_KEY = Pattern.compile(
            "(?is)\\s*ADD\\s+(?:CONSTRAINT\\s*(?:`[^`]+`|\\w+)?\\s*)?FOREIGN\\s+KEY\\s*(?:IF\\s+NOT\\s+EXISTS\\s+)?(?:`[^`]+`|\\w+)?\\s*\\(([^)]*)\\)\\s*"
                    + "REFERENCES\\s+(?:`?\\w+`?\\s*\\.\\s*)?`?(\\w+)`?\\s*\\(([^)]*)\\)(.*)");

    private ForeignKeyDdl() {}

    /** CREATE TABLE {@code t} (already in {@code next}): its keys' tables exist (unless the session's checks are off), its crossing keys can be enforced. */
    static void checkCreate(Catalog next, TableDef t, boolean checks, String database) throws SQLException {
        if (checks && !ForeignKeys.missingParents(next, t).isEmpty()) {
            throw new SQLException("Can't create table `" + database + "`.`" + t.name() + "` (errno: 150 \"Foreign key constraint is incorrectly formed\")",
                    "HY000", 1005);
        }
        for (ForeignKey fk : next.foreignKeysOf(t.name())) requireEnforceable(next, fk);
    }

    /** DROP TABLE of {@code dropped} (lower-case names): no other table references one of them. */
    static void checkDrop(Catalog catalog, Set<String> dropped) throws SQLException {
        for (ForeignKey fk : catalog.foreignKeys()) {
            if (dropped.contains(fk.parent().toLowerCase(Locale.ROOT)) && !dropped.contains(fk.child().toLowerCase(Locale.ROOT))
                    && catalog.table(fk.child()) != null) {
                throw new SQLException("Cannot delete or update a parent row: a foreign key constraint fails", "23000", 1451);
            }
        }
    }

    /** TRUNCATE of {@code t}: no other table references it (MariaDB's 1701). */
    static void checkTruncate(Catalog catalog, TableDef t, String database) throws SQLException {
        for (ForeignKey fk : catalog.referencing(t.name())) {
            if (fk.selfReferencing()) continue;
            throw new SQLException("Cannot truncate a table referenced in a foreign key constraint (`" + database + "`.`" + fk.child() + "`, CONSTRAINT `"
                    + fk.name() + "` FOREIGN KEY (" + quoted(fk.columns()) + ") REFERENCES `" + database + "`.`" + fk.parent() + "` ("
                    + quoted(fk.referenced()) + "))", "42000", 1701);
        }
    }

    /**
     * ALTER TABLE {@code t} with {@code clauses}: a foreign key it adds must name a table that exists and be one the router
     * can enforce; a crossing one is added only while no row of {@code t} has a value for it (the shards cannot check rows
     * whose parents are on other partitions, nor can the router yet). Returns whether the shards' checks may stay on (the
     * key added is not crossing, and every partition of {@code t} holds the tables it names).
     */
    static boolean checkAlter(Catalog catalog, TableDef t, List<String> clauses, Backends backends, String database) throws SQLException {
        boolean checks = true;
        for (String clause : clauses) {
            var m = ADD_FOREIGN_KEY.matcher(clause);
            if (!m.matches()) continue;
            List<String> columns = names(m.group(1));
            String parentName = m.group(2);
            TableDef parent = parentName.equalsIgnoreCase(t.name()) ? t : catalog.table(parentName);
            if (parent == null) {
                throw new SQLException("Can't create table `" + database + "`.`" + t.name() + "` (errno: 150 \"Foreign key constraint is incorrectly formed\")",
                        "HY000", 1005);
            }
            var fk = new ForeignKey("(added)", t.name(), columns, parent.name(), names(m.group(3)), ForeignKey.Action.RESTRICT, ForeignKey.Action.RESTRICT,
                    true);
            for (int p : t.partitioning().partitions()) {
                if (Arrays.stream(parent.partitioning().partitions()).noneMatch(q -> q == p)) checks = false;
            }
            if (!ForeignKeys.isCrossing(t, parent, fk)) continue;
            requireEnforceable(catalog, fk);
            if (holdsValues(backends, t, columns)) {
                throw Refusal.of("ALTER TABLE " + t.name() + " ADD FOREIGN KEY (" + String.join(", ", columns) + ") REFERENCES " + parent.name()
                        + " while " + t.name() + " has rows with values for it: their parent rows may be on other partitions, and the router does not"
                        + " check existing rows; add the key before the rows (docs/foreign-keys.md)");
            }
            checks = false;
        }
        return checks;
    }

    private static void requireEnforceable(Catalog catalog, ForeignKey fk) throws SQLException {
        if (!fk.crossing()) return;
        String why = ForeignKeys.unenforceable(catalog, fk);
        if (why != null) {
            throw Refusal.of("foreign key " + fk.name() + " of " + fk.child() + ", whose rows may be on other partitions than their " + fk.parent()
                    + " rows (the router enforces such keys): " + why + " (docs/foreign-keys.md)");
        }
    }

    /** Whether a partition of {@code t} holds a row with no NULL in {@code columns}. */
    private static boolean holdsValues(Backends backends, TableDef t, List<String> columns) throws SQLException {
        String where = String.join(" AND ", columns.stream().map(c -> quote(c) + " IS NOT NULL").toList());
        for (int p : t.partitioning().partitions()) {
            try (var c = backends.placement(p).borrow(); var st = c.createStatement();
                 var rs = st.executeQuery("SELECT 1 FROM " + quote(t.name()) + " WHERE " + where + " LIMIT 1")) {
                if (rs.next()) return true;
            }
        }
        return false;
    }

    private static List<String> names(String list) {
        return Arrays.stream(list.split(",")).map(s -> s.strip().replace("`", "").replaceAll("\\s*\\(\\d+\\)$", "")).toList();
    }

    private static String quoted(List<String> names) {
        return String.join(", ", names.stream().map(ForeignKeyDdl::quote).toList());
    }

    private static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}
