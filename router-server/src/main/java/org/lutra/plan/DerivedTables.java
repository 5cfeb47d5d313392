package org.lutra.plan;

import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.WithItem;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.TableDef;
import org.lutra.exec.Materialize;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Plans a SELECT that reads derived tables ({@code FROM (SELECT ...) AS d}) or common table
 * expressions over several partitions as a {@link Materialize}: each derived SELECT gets its own
 * plan, and the outer statement, reading their temporary tables instead, runs on one partition
 * that holds every table the derived SELECTs read (so that MySQL there can give the temporary
 * tables the derived tables' column types).
 *
 * <p>Refused: an outer statement that also reads a table (it would see one partition's rows),
 * recursive CTEs, CTEs that read other CTEs, derived tables with a '?' outside them only where
 * the text cannot be cut back into place.
 */
final class DerivedTables {
    private static final String MARK = "__LUTRA_DERIVED_";

    private DerivedTables() {}

    static boolean applies(PlainSelect select) {
        if (select.getWithItemsList() != null && !select.getWithItemsList().isEmpty()) return true;
        if (select.getFromItem() instanceof ParenthesedSelect) return true;
        if (select.getJoins() != null) {
            for (Join j : select.getJoins()) if (j.getRightItem() instanceof ParenthesedSelect) return true;
        }
        return false;
    }

    static Plan.Query plan(PlainSelect select, Catalog catalog, SubqueryPlanner.Inner inner) throws PlanException {
        var ctes = new LinkedHashMap<String, WithItem<?>>();
        var cteOffsets = new LinkedHashMap<String, Integer>();
        int cteParams = 0;
        if (select.getWithItemsList() != null) {
            for (WithItem<?> w : select.getWithItemsList()) {
                if (w.isRecursive()) throw PlanException.unsupported("recursive common table expressions over several partitions yet");
                if (w.getWithItemList() != null && !w.getWithItemList().isEmpty()) {
                    throw PlanException.unsupported("column lists of common table expressions (WITH " + w.getAlias().getName() + " (...)) over several partitions yet");
                }
                String name = KeyFinder.unquote(w.getAlias().getName()).toLowerCase(Locale.ROOT);
                ctes.put(name, w);
                cteOffsets.put(name, cteParams);
                cteParams += ParamCounter.count(unwrap(w.getSelect()).toString());
            }
            select.setWithItemsList(null);
        }
        var derived = new ArrayList<Materialize.Derived>();
        var readTables = new HashSet<String>();
        List<FromItem> items = new ArrayList<>();
        items.add(select.getFromItem());
        if (select.getJoins() != null) for (Join j : select.getJoins()) items.add(j.getRightItem());
        for (int i = 0; i < items.size(); i++) {
            FromItem item = items.get(i);
            String table = "lutra_derived_" + i;
            Table replacement;
            if (item instanceof ParenthesedSelect ps) {
                if (ps.getAlias() == null) throw new PlanException("42000", 1248, "Every derived table must have its own alias");
                Select body = unwrap(ps.getSelect());
                derived.add(new Materialize.Derived(inner.plan(body).root(), Planner.alone(body).toString(), ParamCounter.count(body.toString()), -1, table));
                readTables.addAll(tables(body));
                replacement = new Table(MARK + (derived.size() - 1) + "__").withAlias(ps.getAlias());
            } else if (item instanceof Table t && t.getSchemaName() == null && ctes.containsKey(KeyFinder.unquote(t.getName()).toLowerCase(Locale.ROOT))) {
                String name = KeyFinder.unquote(t.getName()).toLowerCase(Locale.ROOT);
                Select body = unwrap(ctes.get(name).getSelect());
                derived.add(new Materialize.Derived(inner.plan(body).root(), Planner.alone(body).toString(), ParamCounter.count(body.toString()),
                        cteOffsets.get(name), table));
                readTables.addAll(tables(body));
                replacement = new Table("`" + table + "`").withAlias(t.getAlias() != null ? t.getAlias()
                        : new net.sf.jsqlparser.expression.Alias(t.getName(), true));
            } else {
                throw PlanException.unsupported("a derived table or common table expression together with the table " + item
                        + " over several partitions yet");
            }
            if (i == 0) select.setFromItem(replacement);
            else select.getJoins().get(i - 1).setRightItem(replacement);
        }
        String text = select.toString();
        Guards.requireNoSessionState(text);
        for (String name : tables(select)) {
            if (!name.startsWith(MARK) && !name.startsWith("`lutra_derived_")) {
                throw PlanException.unsupported("a derived table or common table expression with a subquery on " + name + " outside it over several partitions yet");
            }
        }
        // the outer text, cut at each derived table's place
        var parts = new ArrayList<Object>();
        int from = 0;
        int inPlace = 0;
        for (var d : derived) {
            if (d.cteOffset() >= 0) {
                parts.add(d);
                continue;
            }
            String mark = MARK + inPlace++ + "__";
            int at = text.indexOf(mark, from);
            if (at < 0) throw PlanException.unsupported("this derived table's shape over several partitions yet");
            parts.add(text.substring(from, at));
            parts.add(d);
            from = at + mark.length();
        }
        parts.add(text.substring(from));
        // CTE tables first: they are created before the outer text is read
        parts.sort((a, b) -> Boolean.compare(!(a instanceof Materialize.Derived d && d.cteOffset() >= 0),
                !(b instanceof Materialize.Derived d2 && d2.cteOffset() >= 0)));
        int partition = commonPartition(readTables, catalog);
        int params = cteParams + ParamCounter.count(String.join("", parts.stream().filter(p -> p instanceof String).map(p -> (String) p).toList()))
                + derived.stream().filter(d -> d.cteOffset() < 0).mapToInt(Materialize.Derived::params).sum();
        return new Plan.Query(new Materialize(partition, parts, cteParams), params);
    }

    /** {@code ((SELECT ...))} as {@code SELECT ...}, where the parentheses add no ORDER BY or LIMIT of their own. */
    private static Select unwrap(Select s) {
        while (s instanceof ParenthesedSelect p && p.getOrderByElements() == null && p.getLimit() == null && p.getOffset() == null) {
            s = p.getSelect();
        }
        return s;
    }

    private static Set<String> tables(Object statement) throws PlanException {
        try {
            return new net.sf.jsqlparser.util.TablesNamesFinder().getTables((net.sf.jsqlparser.statement.Statement) statement);
        } catch (RuntimeException e) {
            throw PlanException.unsupported("this derived table's shape over several partitions yet (" + e.getMessage() + ")");
        }
    }

    /** A partition holding every table the derived SELECTs read: there MySQL types their columns. */
    private static int commonPartition(Set<String> names, Catalog catalog) throws PlanException {
        Set<Integer> common = null;
        for (String name : names) {
            TableDef t = catalog.table(KeyFinder.unquote(name));
            if (t == null) {
                throw PlanException.unsupported("a derived table or common table expression that reads " + name
                        + " (another CTE, or a table outside the logical database) over several partitions yet");
            }
            var set = new HashSet<Integer>();
            for (int p : t.partitioning().partitions()) set.add(p);
            if (common == null) common = set; else common.retainAll(set);
        }
        if (common == null) common = new HashSet<>(List.of(catalog.partitions().getFirst().id()));
        if (common.isEmpty()) throw PlanException.unsupported("derived tables over tables that share no partition yet");
        return common.stream().min(Integer::compare).get();
    }
}
