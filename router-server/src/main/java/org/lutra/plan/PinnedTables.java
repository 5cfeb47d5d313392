package org.lutra.plan;

import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.WithItem;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.exec.Target;
import org.lutra.sql.KeyMatch;
import org.lutra.sql.PlanException;
import org.lutra.sql.TableFinder;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Whether a statement over tables that are not co-located may still run whole on one partition:
 * every table it names is replicated, placed on one partition, or pinned by what the WHERE clause
 * of the SELECT that reads it says of its routing column ({@code s_w_id = 1}, an IN list, a range)
 * — a row with another key cannot reach that SELECT's answer, so only the pinned keys' rows
 * matter, wherever else the table has rows. Whether those keys meet on one partition is known
 * from each execution's values ({@link org.lutra.exec.OnePartition}).
 *
 * @param targets each table's routing, as a read of it alone would route (a replicated table: its replicas)
 * @param sql     the statement as sent to that partition: tables as the catalog spells them, the database's
 *                qualifier taken off, everything else as planned
 */
record PinnedTables(List<Target> targets, String sql) {
    /** The statement's pinned tables, or null where one of them is neither pinned, replicated nor on one partition. */
    static PinnedTables of(String text, Catalog catalog, String database) {
        Select select = NumberedText.parsedAgain(text).orElse(null);
        if (select == null) return null; // a text that does not parse again
        var finder = new Finder();
        try {
            finder.getTables((net.sf.jsqlparser.statement.Statement) select);
        } catch (RuntimeException e) {
            return null;
        }
        var targets = new ArrayList<Target>();
        for (int i = 0; i < finder.tables.size(); i++) {
            Table t = finder.tables.get(i);
            String name = KeyFinder.unquote(t.getName());
            if (t.getSchemaName() == null && finder.ctes.contains(name.toLowerCase(Locale.ROOT))) continue;
            if (t.getSchemaName() != null && !KeyFinder.unquote(t.getSchemaName()).equalsIgnoreCase(database)) return null;
            TableDef def = catalog.table(name);
            if (def == null) return null;
            Partitioning p = def.partitioning();
            PlainSelect reader = finder.readers.get(i);
            if (p instanceof Partitioning.Replicated || p.partitions().length == 1) {
                targets.add(new Target(def, null));
            } else {
                String alias = t.getAlias() == null ? null : KeyFinder.unquote(t.getAlias().getName());
                KeyMatch keys = reader == null ? null : new KeyFinder(p.column(), def.name(), alias).find(reader.getWhere(), null);
                if (keys == null) return null;
                targets.add(new Target(def, keys));
            }
            t.setSchemaName(null);
            if (!name.equals(def.name())) { // sent as the catalog spells it, called as the statement does (see Planner)
                if (t.getAlias() == null) t.setAlias(new Alias(t.getName(), false));
                t.setName(TemporaryCopy.quote(def.name()));
            }
        }
        return targets.isEmpty() ? null : new PinnedTables(List.copyOf(targets), select.toString());
    }

    /** Where no table is pinned by keys (all replicated or on one partition), the lowest partition holding all of them; else -1. */
    int commonPartition() {
        java.util.Set<Integer> common = null;
        for (Target t : targets) {
            if (t.keys() != null) return -1;
            var on = new java.util.HashSet<Integer>();
            for (int p : t.table().partitioning().partitions()) on.add(p);
            if (common == null) common = on; else common.retainAll(on);
        }
        return common == null || common.isEmpty() ? -1 : common.stream().min(Integer::compare).get();
    }

    /** Every table node of a statement with the SELECT whose FROM clause names it, and the names its WITH clauses define. */
    static final class Finder extends TableFinder {
        final List<Table> tables = new ArrayList<>();
        final List<PlainSelect> readers = new ArrayList<>();
        final Set<String> ctes = new HashSet<>();
        private final Set<Table> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        private final Deque<PlainSelect> selects = new ArrayDeque<>();

        @Override
        public <S> Void visit(PlainSelect select, S context) {
            selects.push(select);
            try {
                return super.visit(select, context);
            } finally {
                selects.pop();
            }
        }

        @Override
        public <S> Void visit(Table table, S context) {
            if (seen.add(table)) {
                tables.add(table);
                readers.add(selects.peek());
            }
            return super.visit(table, context);
        }

        @Override
        public <S> Void visit(WithItem<?> with, S context) {
            ctes.add(KeyFinder.unquote(with.getAlias().getName()).toLowerCase(Locale.ROOT));
            return super.visit(with, context);
        }
    }
}
