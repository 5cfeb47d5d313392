package org.lutra.plan;

import net.sf.jsqlparser.schema.Column;
import org.lutra.catalog.ColumnDef;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;

import java.util.ArrayList;
import java.util.List;

/**
 * The tables a SELECT reads, in FROM order, with the names the statement calls them by, and the
 * one whose routing column decides the partitions ({@code driving}; every other partitioned table
 * is co-located with it, see {@link JoinPlacement}).
 */
record Sources(List<Source> all, int driving) {
    record Source(TableDef table, String alias) {
        /** The name a column qualifier must use: the alias if there is one, else the table's name. */
        String qualifier() {
            return alias != null ? alias : table.name();
        }

        boolean answersTo(String qualifier) {
            return alias != null ? alias.equalsIgnoreCase(qualifier) : table.name().equalsIgnoreCase(qualifier);
        }
    }

    static Sources single(TableDef table, String alias) {
        return new Sources(List.of(new Source(table, alias)), 0);
    }

    Source drivingSource() {
        return all.get(driving);
    }

    TableDef drivingTable() {
        return all.get(driving).table();
    }

    boolean isJoin() {
        return all.size() > 1;
    }

    /** The source a column reference reads, or null if it names none (or, unqualified, several). */
    Source sourceOf(Column c) {
        String name = KeyFinder.unquote(c.getColumnName());
        if (c.getTable() != null && c.getTable().getName() != null) {
            String q = KeyFinder.unquote(c.getTable().getName());
            for (Source s : all) {
                if (s.answersTo(q)) return s.table().column(name) != null ? s : null;
            }
            return null;
        }
        Source found = null;
        for (Source s : all) {
            if (s.table().column(name) != null) {
                if (found != null) return null; // ambiguous: MySQL refuses it too
                found = s;
            }
        }
        return found;
    }

    ColumnDef columnOf(Column c) {
        Source s = sourceOf(c);
        return s == null ? null : s.table().column(KeyFinder.unquote(c.getColumnName()));
    }

    /** Whether {@code c} is the routing column of a partitioned table (all of them are co-located). */
    boolean isRoutingColumn(Column c) {
        Source s = sourceOf(c);
        if (s == null || s.table().partitioning() instanceof Partitioning.Replicated) return false;
        return KeyFinder.unquote(c.getColumnName()).equalsIgnoreCase(s.table().partitioning().column());
    }

    /** The columns of {@code *}: every table's, in FROM order, each qualified. */
    List<Column> star() {
        var out = new ArrayList<Column>();
        for (Source s : all) out.addAll(columns(s));
        return out;
    }

    /** The columns of {@code t.*}, or null if no table answers to {@code qualifier}. */
    List<Column> star(String qualifier) {
        for (Source s : all) {
            if (s.answersTo(qualifier)) return columns(s);
        }
        return null;
    }

    private static List<Column> columns(Source s) {
        var out = new ArrayList<Column>();
        for (ColumnDef c : s.table().columns()) {
            out.add(new Column(new net.sf.jsqlparser.schema.Table(quote(s.qualifier())), quote(c.name())));
        }
        return out;
    }

    static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}
