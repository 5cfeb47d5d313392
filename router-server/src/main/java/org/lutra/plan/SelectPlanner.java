package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.PlainSelect;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.exec.Operator;
import org.lutra.exec.Plan;
import org.lutra.exec.Route;
import org.lutra.exec.SelectPlan;
import org.lutra.exec.Target;
import org.lutra.sql.Guards;
import org.lutra.sql.KeyMatch;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The {@link Planner}'s SELECTs without UNION: on one partition, merged from each partition's answer
 * ({@link ScatterPlanner}), with subqueries run first, derived tables materialized, a join in rounds or the tables copied
 * to one partition, choosing by cost ({@link Costs}) where several answer.
 */
final class SelectPlanner {
    private static final Pattern WINDOW = Pattern.compile("(?i)\\bOVER\\s*(\\(|`?\\w)");
    /** Stands in for the table of a SELECT without FROM: one replica, anywhere. */
    private final TableDef NO_TABLE;
    private final Planner planner;

    SelectPlanner(Planner planner) {
        this.planner = planner;
        int[] all = planner.catalog().partitions().stream().mapToInt(org.lutra.catalog.Partition::id).toArray();
        this.NO_TABLE = new TableDef("(no table)", List.of(), new Partitioning.Replicated(all), "");
    }

    /** The plan of {@code select}, a SELECT without UNION; {@code sql}: the statement's text. */
    Plan plan(PlainSelect select, String sql) throws PlanException {
        Catalog catalog = planner.catalog();
        String original = select.toString();
        if (DerivedTables.applies(select)) {
            // on one partition MySQL answers the whole statement: a statement of its own goes there before it comes here (Planner);
            // a subquery or a UNION branch planned on its own is refused, as before the router ran statements whole
            if (planner.whole().partition(select) >= 0) throw PlanException.unsupported("derived tables here: the statement runs whole on one partition");
            int items = 1 + (select.getJoins() == null ? 0 : select.getJoins().size());
            return planner.whole().onOnePartition(original, new Costs.Choice()
                    .consider(() -> Costs.materialized("derived tables materialized", DerivedTables.plan(original, catalog, planner::subquery, true), items))
                    .consider(planner.fallbackNotApplicable(original), () -> planner.fallback(original)));
        }
        boolean inPlace = select.getFromItem() instanceof Table && (select.getJoins() == null || select.getJoins().isEmpty())
                && CoLocatedSubqueries.all(select, Sources.single(planner.table((Table) select.getFromItem()), alias((Table) select.getFromItem())), catalog);
        if (inPlace && select.getLimit() != null && planner.whole().partition(select) < 0) {
            // each partition evaluates the rows of its own LIMIT (offset + count), more than the merged LIMIT returns: a
            // scalar subquery of more than one row would give MySQL's 1242 for rows MySQL never evaluates (LIMIT 6
            // OFFSET 3 over three rows returns none). Uncorrelated ones run first instead, and raise it only
            // once a row is returned; correlated ones would need the rows first.
            int scalars = SubqueryPlanner.scalars(select, catalog);
            if (scalars == 2) {
                return planner.whole().onOnePartition(original, new Costs.Choice()
                        .refused(PlanException.unsupported("correlated scalar subqueries with LIMIT over several partitions yet (each partition"
                                + " would evaluate rows the LIMIT drops)"))
                        .consider(planner.fallbackNotApplicable(original), () -> planner.fallback(original)));
            }
            if (scalars == 1) inPlace = false;
        }
        if (!inPlace && SubqueryPlanner.hasSubquery(select)) {
            if (select.getFromItem() instanceof Table t) planner.table(t); // strip the schema qualifier, refuse unknown tables
            var reads = new ArrayList<Double>(java.util.Collections.nCopies(Guards.selectWords(original) - 1, Costs.TABLE_ROWS));
            reads.add(Costs.TABLE_ROWS);
            return planner.whole().onOnePartition(original, new Costs.Choice()
                    .consider(SubqueryPlanner.notApplicable(select, catalog), () -> new Costs.Candidate("subqueries first", SubqueryPlanner.plan(select, catalog, planner::subquery,
                            outer -> ((Plan.Query) planner.plan(outer)).root()), Costs.reads(reads)))
                    .consider(planner.fallbackNotApplicable(original), () -> planner.fallback(original)));
        }
        String text = select.toString();
        if (select.getFromItem() == null) {
            Guards.requireNoSubquery(text, 1);
            Guards.requireNoSessionState(text);
            // no table: any one partition computes it; a replicated "table" of no rows stands in for routing
            return new Plan.Query(new Route(new Target(NO_TABLE, null), text, null), ParamCounter.count(text));
        }
        if (!(select.getFromItem() instanceof Table from)) {
            throw PlanException.unsupported("derived tables (a subquery in FROM) yet");
        }
        Sources sources;
        if (select.getJoins() != null && !select.getJoins().isEmpty()) {
            switch (JoinPlacement.place(select, planner::table)) {
                case Attempt.Planned<Sources> coLocated -> sources = coLocated.plan();
                case Attempt.NotApplicable<Sources> notColocated -> {
                    // not co-located: the cheaper of a join in rounds (where the statement's shape allows) and its tables
                    // copied to one partition; else the reason it is not co-located
                    return planner.whole().onOnePartition(original, new Costs.Choice()
                            .refused(notColocated.reason())
                            .consider(() -> roundsJoin(select))
                            .consider(planner.fallbackNotApplicable(original), () -> planner.fallback(original)));
                }
            }
        } else {
            sources = Sources.single(planner.table(from), alias(from));
        }
        text = select.toString();
        if (!inPlace && Guards.selectWords(text) > 1) {
            // subqueries where the subquery planner does not look (ORDER BY, GROUP BY, ON): over copies of the tables, where
            // the statement's keys do not put them all on one partition (co-located ones run inside each partition instead)
            return planner.whole().onOnePartition(original, new Costs.Choice()
                    .refused(PlanException.unsupported("subqueries in ORDER BY, GROUP BY or ON over several partitions yet"))
                    .consider(planner.fallbackNotApplicable(original), () -> planner.fallback(original)));
        }
        Guards.requireNoSessionState(text);
        var driving = sources.drivingSource();
        TableDef table = driving.table();
        KeyMatch keys = table.partitioning() instanceof Partitioning.Replicated ? null
                : new KeyFinder(table.partitioning().column(), table.name(), driving.alias()).find(select.getWhere(), select);
        var secondary = sources.isJoin() || table.partitioning() instanceof Partitioning.Replicated ? null
                : planner.secondaryMatch(table, driving.alias(), select.getWhere(), select);
        var target = new Target(table, keys, secondary, groupColumns(catalog, table)).withReplicaLocks(LockedReplicas.of(select, catalog));
        var pushdown = new Route(target, text, keys instanceof KeyMatch.In in ? in.template() : null);
        boolean plain = !sources.isJoin() && !inPlace && plainRows(select); // a join's rows cannot be counted against its keys
        long plainLimit = plain && select.getLimit() != null && select.getLimit().getRowCount() instanceof LongValue n ? n.getValue() : -1;
        var validation = plain ? SelectPlan.Validation.COUNT_ROWS
                : !inPlace && eachRowFromRows(select) ? SelectPlan.Validation.ROWS_PROVE_KEY : SelectPlan.Validation.OWNER_ROWS;
        // over several partitions: the merge of each partition's answer; what the merging operators cannot answer, the
        // table's rows its WHERE selects copied to one partition; where neither applies, the merge's reason, given when an
        // execution needs several partitions
        Attempt<Operator> scatter = overSeveral(select, sources, target, text);
        if (scatter instanceof Attempt.NotApplicable<Operator> cannotMerge && cannotMerge.refused() && !sources.isJoin() && !inPlace) {
            var notCopied = planner.fallbackNotApplicable(original);
            if (notCopied.isPresent() && !org.lutra.protocol.Refusal.is(notCopied.get())) throw notCopied.get(); // the statement's own error
            if (notCopied.isEmpty()) {
                var copied = Attempt.refusable(() -> planner.fallback(original).plan().root());
                if (copied instanceof Attempt.Planned<Operator>) scatter = copied;
            }
        }
        var merged = switch (scatter) {
            case Attempt.Planned<Operator> p -> new SelectPlan(target, pushdown, validation, plainLimit, p.plan(), null);
            case Attempt.NotApplicable<Operator> n -> new SelectPlan(target, pushdown, validation, plainLimit, null, n.reason());
        };
        return new Plan.Query(merged, ParamCounter.count(text));
    }

    /**
     * The merge of each partition's answer ({@link ScatterPlanner}, on a tree of its own), or why the merge does not answer
     * the statement: window functions, or what the merge finds it cannot reproduce.
     */
    private Attempt<Operator> overSeveral(PlainSelect select, Sources sources, Target target, String text) {
        if (WINDOW.matcher(Guards.stripQuoted(text)).find()) {
            return Attempt.notApplicable(PlanException.unsupported("window functions (OVER ...) over several partitions of " + target.table().name() + " yet"));
        }
        return PrivateTree.copy(select).then(copy -> new ScatterPlanner(copy, sources, target, planner.catalog()).build());
    }

    /** A join of two tables in rounds ({@link RoundsJoinPlanner}) with its cost, or null where its shape does not allow one. */
    private Costs.Candidate roundsJoin(PlainSelect select) throws PlanException {
        var tables = new ArrayList<Sources.Source>();
        var items = new ArrayList<Object>();
        items.add(select.getFromItem());
        for (var j : select.getJoins()) items.add(j.getRightItem());
        for (Object item : items) {
            if (!(item instanceof Table t)) return null;
            tables.add(new Sources.Source(planner.table(t), t.getAlias() == null ? null : KeyFinder.unquote(t.getAlias().getName())));
        }
        Guards.requireNoSessionState(select.toString());
        var rows = new ArrayList<Double>();
        for (var s : tables) {
            String column = s.table().partitioning().column();
            rows.add(Costs.rows(s.table(), column == null ? null : new KeyFinder(column, s.table().name(), s.alias()).find(select.getWhere(), null)));
        }
        Plan.Query plan = RoundsJoinPlanner.plan(select, new Sources(tables, 0), sql -> (Plan.Query) planner.plan(sql));
        return plan == null ? null : new Costs.Candidate("join in rounds", plan, Costs.rounds(rows.getFirst(), 1, rows.getLast()));
    }

    private static String alias(Table t) {
        return t.getAlias() == null ? null : KeyFinder.unquote(t.getAlias().getName());
    }

    /** Rows that simply concatenate across partitions: nothing to sort, group, count or skip. */
    /**
     * Whether every row the statement returns is made from rows its FROM and JOINs read (so, with its routing key pinned, from
     * rows of that key): not an aggregate without GROUP BY, which answers a row over no rows ({@code COUNT(*)} is 0).
     */
    private static boolean eachRowFromRows(PlainSelect select) {
        if (select.getGroupBy() != null) return true;
        if (select.getHaving() != null) return false;
        for (var item : select.getSelectItems()) {
            if (item.getExpression() instanceof Expression e && AggregateFunctions.hasAggregate(e)) return false;
        }
        return select.getOrderByElements() == null || select.getOrderByElements().stream().noneMatch(o -> AggregateFunctions.hasAggregate(o.getExpression()));
    }

    private static boolean plainRows(PlainSelect select) {
        if (select.getDistinct() != null || select.getGroupBy() != null || select.getHaving() != null || select.getOffset() != null) return false;
        if (select.getOrderByElements() != null && !select.getOrderByElements().isEmpty()) return false;
        if (select.getLimit() != null && (select.getLimit().getOffset() != null || !(select.getLimit().getRowCount() instanceof LongValue))) return false;
        if (WINDOW.matcher(Guards.stripQuoted(select.toString())).find()) return false;
        for (var item : select.getSelectItems()) {
            if (item.getExpression() instanceof Expression e && AggregateFunctions.hasAggregate(e)) return false;
        }
        return true;
    }

    /** The routing column of every table in {@code table}'s lookup group, by lower-case name; empty for other placements. */
    private static Map<String, String> groupColumns(Catalog catalog, TableDef table) {
        if (!(table.partitioning() instanceof Partitioning.LookedUp lookup)) return Map.of();
        var columns = new java.util.HashMap<String, String>();
        for (TableDef t : catalog.tables()) {
            if (t.partitioning() instanceof Partitioning.LookedUp l && l.owner().equalsIgnoreCase(lookup.owner())) {
                columns.put(t.name().toLowerCase(java.util.Locale.ROOT), l.column());
            }
        }
        return Map.copyOf(columns);
    }
}
