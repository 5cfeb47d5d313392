package org.lutra.plan;

import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.placement.ReplicaLocks;
import org.lutra.sql.Guards;
import org.lutra.sql.LockInShareMode;
import org.lutra.sql.LockedTables;
import org.lutra.sql.TableFinder;

import java.util.LinkedHashSet;
import java.util.List;

/** The REPLICATED tables a read locks and reads, for {@link ReplicaLocks}; which tables a clause locks is {@link LockedTables}' rule. */
final class LockedReplicas {
    private LockedReplicas() {}

    /** The REPLICATED tables {@code statement} locks with its clauses, and those it reads anywhere ({@link ReplicaLocks}). */
    static ReplicaLocks of(Select statement, Catalog catalog) {
        var locked = new LinkedHashSet<TableDef>();
        var read = new LinkedHashSet<TableDef>();
        try {
            find(statement, catalog, locked, read);
        } catch (RuntimeException unread) {
            // a shape the finder does not walk: every REPLICATED table the text names (in a string too) counts, as locked if
            // the text has a locking clause anywhere
            String text = statement.toString();
            for (TableDef t : catalog.tables()) {
                if (t.partitioning() instanceof Partitioning.Replicated
                        && java.util.regex.Pattern.compile("(?i)(?<![\\w$])" + java.util.regex.Pattern.quote(t.name()) + "(?![\\w$])").matcher(text).find()) {
                    if (Guards.lockingRead(text)) locked.add(t);
                    read.add(t);
                }
            }
        }
        return read.isEmpty() ? ReplicaLocks.NONE : new ReplicaLocks(List.copyOf(locked), List.copyOf(read));
    }

    private static void find(Select statement, Catalog catalog, LinkedHashSet<TableDef> locked, LinkedHashSet<TableDef> read) {
        new TableFinder() {
            @Override
            public <S> Void visit(PlainSelect plain, S context) {
                // a clause MariaDB does not read (its backend answers it) counts as one too: never fewer checks
                if (LockInShareMode.locks(plain)) LockedTables.readDirectly(plain.getFromItem(), plain.getJoins(), t -> add(t, locked));
                return super.visit(plain, context);
            }

            @Override
            public <S> Void visit(Table table, S context) {
                add(table, read);
                return super.visit(table, context);
            }

            private void add(Table t, LinkedHashSet<TableDef> to) {
                TableDef def = t.getSchemaName() == null && t.getName() != null ? catalog.table(KeyFinder.unquote(t.getName())) : null;
                if (def != null && def.partitioning() instanceof Partitioning.Replicated) to.add(def);
            }
        }.getTables((Statement) statement);
    }
}
