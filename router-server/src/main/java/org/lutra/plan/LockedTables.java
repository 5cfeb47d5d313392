package org.lutra.plan;

import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.ParenthesedFromItem;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.exec.ReplicaLocks;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.Consumer;

/**
 * Which tables a locking read locks, as MariaDB decides it: a SELECT's {@code FOR UPDATE} or {@code LOCK IN SHARE MODE}
 * locks the rows of the tables in its own FROM and JOINs (nested joins in parentheses too), not those of a derived table or
 * a subquery there, which are read without locks unless they carry a clause of their own; a UNION's clause belongs to its
 * last SELECT. (Checked on MariaDB 11.4: with another transaction holding a row FOR UPDATE, {@code SELECT SUM(b) FROM (SELECT
 * * FROM t) d FOR UPDATE}, {@code ... WHERE x IN (SELECT id FROM t) FOR UPDATE} and the UNION's first SELECT answer at once.)
 * In a SERIALIZABLE transaction InnoDB locks every read, wherever it stands.
 */
public final class LockedTables {
    private LockedTables() {}

    /** Each table whose rows {@code select}'s own locking clause locks; none for a plain read. */
    public static void of(PlainSelect select, Consumer<Table> each) throws PlanException {
        if (LockInShareMode.clause(select) != null) readDirectly(select.getFromItem(), select.getJoins(), each);
    }

    private static void readDirectly(FromItem from, List<Join> joins, Consumer<Table> each) {
        if (from instanceof Table t) each.accept(t);
        if (from instanceof ParenthesedFromItem nested) readDirectly(nested.getFromItem(), nested.getJoins(), each);
        if (joins != null) for (Join j : joins) readDirectly(j.getFromItem(), null, each);
    }

    /** The REPLICATED tables {@code statement} locks with its clauses, and those it reads anywhere ({@link ReplicaLocks}). */
    static ReplicaLocks replicas(Select statement, Catalog catalog) {
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
                boolean locking;
                try {
                    locking = LockInShareMode.clause(plain) != null;
                } catch (PlanException notMariaDbs) {
                    locking = true; // a clause MariaDB does not read (its backend answers it): counted as one, never fewer checks
                }
                if (locking) readDirectly(plain.getFromItem(), plain.getJoins(), t -> add(t, locked));
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
