package org.lutra.plan;

import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.statement.select.Limit;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SetOperationList;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.TableDef;
import org.lutra.exec.Union;
import org.lutra.exec.UnionCollations;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;
import org.lutra.sql.TableFinder;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the {@link UnionCollations} probe of a UNION: the statement that asks a backend which
 * collation each branch's items and each union column compare in. It runs where the tables the
 * union reads are: on the partition holding most of them, the others copied there as empty
 * temporary tables of the same definitions (a column's collation is all the probe reads).
 */
final class UnionProbes {
    private UnionProbes() {}

    /**
     * A branch's text as the probe runs it: the same SELECT, with {@code LIMIT 0} (MySQL then reads no row); null where that
     * takes parameters out (a {@code LIMIT ?}: the probe binds the branch's parameters as the branch does).
     */
    static String branch(PlainSelect select) throws PlanException {
        PlainSelect copy = Planner.alone(select);
        copy.setLimit(new Limit().withRowCount(new LongValue(0)));
        copy.setOffset(null);
        copy.setFetch(null);
        copy.setForMode(null);
        copy.setForUpdateTable(null);
        copy.setIntoTables(null);
        String text = copy.toString();
        return ParamCounter.count(text) == ParamCounter.count(select.toString()) ? text : null;
    }

    /**
     * The probe of a union of {@code branches} (each as {@link #branch} gave it), or null where it cannot run: a table the
     * catalog does not know, or one no temporary table can copy.
     */
    static UnionCollations of(SetOperationList list, List<String> branches, Union.Duplicates duplicates, Catalog catalog) {
        if (branches.contains(null)) return null;
        var tables = new LinkedHashMap<String, TableDef>();
        try {
            for (String name : new TableFinder().getTables((net.sf.jsqlparser.statement.Statement) list)) {
                TableDef t = catalog.table(KeyFinder.unquote(name));
                if (t == null) return null;
                tables.put(t.name(), t);
            }
        } catch (RuntimeException e) {
            return null;
        }
        int partition = partitionOfMost(tables.values(), catalog);
        var setup = new ArrayList<String>();
        var teardown = new ArrayList<String>();
        for (TableDef t : tables.values()) {
            if (holds(t, partition)) continue;
            if (!(TemporaryCopy.attempt(t) instanceof Attempt.Planned<TemporaryCopy> copy)) return null;
            setup.add(copy.plan().definition(t.name()));
            teardown.add("DROP TEMPORARY TABLE IF EXISTS " + TemporaryCopy.quote(t.name()));
        }
        return new UnionCollations(partition, setup, branches, duplicates, teardown, ShardColumns.EXPRESSION_TEXT_LENGTH);
    }

    /** The partition holding most of {@code tables} (the lowest of equals); with no tables, the first. */
    private static int partitionOfMost(Iterable<TableDef> tables, Catalog catalog) {
        Map<Integer, Integer> count = new HashMap<>();
        for (TableDef t : tables) for (int p : t.partitioning().partitions()) count.merge(p, 1, Integer::sum);
        int best = catalog.partitions().getFirst().id();
        int most = 0;
        for (var e : count.entrySet()) {
            if (e.getValue() > most || e.getValue() == most && e.getKey() < best) {
                best = e.getKey();
                most = e.getValue();
            }
        }
        return best;
    }

    private static boolean holds(TableDef t, int partition) {
        for (int p : t.partitioning().partitions()) if (p == partition) return true;
        return false;
    }
}
