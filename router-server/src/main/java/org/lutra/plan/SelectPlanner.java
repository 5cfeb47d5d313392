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

    /**
     * The plan of {@code select}, a SELECT without UNION; {@code sql}: the statement's text. Where no way answers it, why:
     * a refusal, or an error of the statement as the planner reads it (an unknown table), which its caller gives where it
     * needs a plan ({@link Planner}) and which a way of many gives as its reason ({@link Costs.Choice}).
     */
    Attempt<Plan> plan(PlainSelect select, String sql) throws PlanException {
        Catalog catalog = planner.catalog();
        String original = select.toString();
        if (DerivedTables.applies(select)) {
            // on one partition MySQL answers the whole statement: a statement of its own goes there before it comes here (Planner);
            // a subquery or a UNION branch planned on its own is refused, as before the router ran statements whole
            if (planner.whole().partition(select) >= 0) return Attempt.notApplicable(PlanException.unsupported("derived tables here: the statement runs whole on one partition"));
            int items = 1 + (select.getJoins() == null ? 0 : select.getJoins().size());
            return planner.whole().onOnePartition(original, new Costs.Choice()
                    .consider(() -> DerivedTables.attempt(original, catalog, planner::subqueryWay, true)
                            .map(plan -> Costs.materialized("derived tables materialized", plan, items)))
                    .consider(planner.fallbackNotApplicable(original), () -> planner.fallback(original))).map(Plan.class::cast);
        }
        boolean inPlace = false;
        if (select.getFromItem() instanceof Table first && (select.getJoins() == null || select.getJoins().isEmpty())) {
            var table = planner.resolved(first);
            if (!(table instanceof Attempt.Planned<TableDef>(var def))) return table.passUp();
            inPlace = CoLocatedSubqueries.all(select, Sources.single(def, alias(first)), catalog);
        }
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
                        .consider(planner.fallbackNotApplicable(original), () -> planner.fallback(original))).map(Plan.class::cast);
            }
            if (scalars == 1) inPlace = false;
        }
        if (!inPlace && SubqueryPlanner.hasSubquery(select)) {
            if (select.getFromItem() instanceof Table t) { // strip the schema qualifier, refuse unknown tables
                var table = planner.resolved(t);
                if (table instanceof Attempt.NotApplicable<TableDef>) return table.passUp();
            }
            var reads = new ArrayList<Double>(java.util.Collections.nCopies(Guards.selectWords(original) - 1, Costs.TABLE_ROWS));
            reads.add(Costs.TABLE_ROWS);
            return planner.whole().onOnePartition(original, new Costs.Choice()
                    .consider(SubqueryPlanner.notApplicable(select, catalog), () -> SubqueryPlanner.plan(select, catalog, planner::subqueryWay,
                            outer -> ((Plan.Query) planner.plan(outer)).root()).map(plan -> new Costs.Candidate("subqueries first", plan, Costs.reads(reads))))
                    .consider(planner.fallbackNotApplicable(original), () -> planner.fallback(original))).map(Plan.class::cast);
        }
        String text = select.toString();
        if (select.getFromItem() == null) {
            var refused = Guards.subquery(text, 1).or(() -> Guards.sessionState(text));
            if (refused.isPresent()) return Attempt.notApplicable(refused.get());
            // no table: any one partition computes it; a replicated "table" of no rows stands in for routing
            return Attempt.planned(new Plan.Query(new Route(new Target(NO_TABLE, null), text, null), ParamCounter.count(text)));
        }
        if (!(select.getFromItem() instanceof Table from)) {
            return Attempt.notApplicable(PlanException.unsupported("derived tables (a subquery in FROM) yet"));
        }
        Sources sources;
        if (select.getJoins() != null && !select.getJoins().isEmpty()) {
            // a table the catalog does not know, or refuses, is the statement's: no way of joining reads it. Resolved first, in
            // JoinPlacement's order (up to a FROM item that is no table), so that its resolver meets only known tables
            var fromItems = new ArrayList<Object>(List.of(from));
            for (var j : select.getJoins()) fromItems.add(j.getRightItem());
            for (Object item : fromItems) {
                if (!(item instanceof Table t)) break;
                var table = planner.resolved(t);
                if (table instanceof Attempt.NotApplicable<TableDef>) return table.passUp();
            }
            switch (JoinPlacement.place(select, planner::table)) {
                case Attempt.Planned<Sources> coLocated -> sources = coLocated.plan();
                case Attempt.NotApplicable<Sources> notColocated -> {
                    // not co-located: the cheaper of a join in rounds (where the statement's shape allows) and its tables
                    // copied to one partition; else the reason it is not co-located
                    return planner.whole().onOnePartition(original, new Costs.Choice()
                            .refused(notColocated.reason())
                            .consider(() -> roundsJoin(select))
                            .consider(planner.fallbackNotApplicable(original), () -> planner.fallback(original))).map(Plan.class::cast);
                }
            }
        } else {
            var table = planner.resolved(from);
            if (!(table instanceof Attempt.Planned<TableDef>(var def))) return table.passUp();
            sources = Sources.single(def, alias(from));
        }
        String joined = select.toString();
        if (!inPlace && Guards.selectWords(joined) > 1) {
            // subqueries where the subquery planner does not look (ORDER BY, GROUP BY, ON): over copies of the tables, where
            // the statement's keys do not put them all on one partition (co-located ones run inside each partition instead)
            return planner.whole().onOnePartition(original, new Costs.Choice()
                    .refused(PlanException.unsupported("subqueries in ORDER BY, GROUP BY or ON over several partitions yet"))
                    .consider(planner.fallbackNotApplicable(original), () -> planner.fallback(original))).map(Plan.class::cast);
        }
        var sessionState = Guards.sessionState(joined);
        if (sessionState.isPresent()) return Attempt.notApplicable(sessionState.get());
        return overSeveral(select, sources, inPlace, original, joined);
    }

    /**
     * {@code select}'s plan over its tables' partitions: where its keys put it, or merged from several; an error of the
     * statement the copies of its tables meet, as a reason.
     */
    private Attempt<Plan> overSeveral(PlainSelect select, Sources sources, boolean inPlace, String original, String text) throws PlanException {
        Catalog catalog = planner.catalog();
        var driving = sources.drivingSource();
        TableDef table = driving.table();
        KeyMatch keys = table.partitioning() instanceof Partitioning.Replicated ? null
                : new KeyFinder(table.partitioning().column(), table.name(), driving.alias()).find(select.getWhere(), select);
        var secondary = sources.isJoin() || table.partitioning() instanceof Partitioning.Replicated ? null
                : SecondaryMatches.of(planner.catalog(), table, driving.alias(), select.getWhere(), select);
        var target = new Target(table, keys, secondary, groupColumns(catalog, table)).withReplicaLocks(LockedReplicas.of(select, catalog));
        var pushdown = new Route(target, text, keys instanceof KeyMatch.In in ? in.template() : null);
        boolean plain = !sources.isJoin() && !inPlace && plainRows(select); // a join's rows cannot be counted against its keys
        long plainLimit = plain && select.getLimit() != null && select.getLimit().getRowCount() instanceof LongValue n ? n.getValue() : -1;
        var validation = plain ? SelectPlan.Validation.COUNT_ROWS
                : !inPlace && eachRowFromRows(select) ? SelectPlan.Validation.ROWS_PROVE_KEY : SelectPlan.Validation.OWNER_ROWS;
        // over several partitions: the merge of each partition's answer; what the merging operators cannot answer, the
        // table's rows its WHERE selects copied to one partition; where neither applies, the merge's reason, given when an
        // execution needs several partitions
        Attempt<Operator> scatter = merged(select, sources, target, text);
        if (scatter instanceof Attempt.NotApplicable<Operator> cannotMerge && cannotMerge.refused() && !sources.isJoin() && !inPlace) {
            var notCopied = planner.fallbackNotApplicable(original);
            if (notCopied.isPresent() && !org.lutra.protocol.Refusal.is(notCopied.get())) return Attempt.notApplicable(notCopied.get()); // the statement's own error
            if (notCopied.isEmpty()) {
                var copied = planner.fallback(original).map(candidate -> candidate.plan().root());
                if (copied instanceof Attempt.NotApplicable<Operator> n && !n.refused()) return n.passUp(); // the statement's own error
                if (copied instanceof Attempt.Planned<Operator>) scatter = copied;
            }
        }
        var merged = switch (scatter) {
            case Attempt.Planned<Operator> p -> new SelectPlan(target, pushdown, validation, plainLimit, p.plan(), null);
            case Attempt.NotApplicable<Operator> n -> new SelectPlan(target, pushdown, validation, plainLimit, null, n.reason());
        };
        return Attempt.planned(new Plan.Query(merged, ParamCounter.count(text)));
    }

    /**
     * The merge of each partition's answer ({@link ScatterPlanner}, on a tree of its own), or why the merge does not answer
     * the statement: window functions, or what the merge finds it cannot reproduce.
     */
    private Attempt<Operator> merged(PlainSelect select, Sources sources, Target target, String text) {
        if (WINDOW.matcher(Guards.stripQuoted(text)).find()) {
            return Attempt.notApplicable(PlanException.unsupported("window functions (OVER ...) over several partitions of " + target.table().name() + " yet"));
        }
        return PrivateTree.copy(select).then(copy -> new ScatterPlanner(copy, sources, target, planner.catalog()).build());
    }

    /**
     * A join of two tables in rounds ({@link RoundsJoinPlanner}) with its cost, or why its outer read has no plan; a planned
     * null where its shape does not allow one.
     */
    private Attempt<Costs.Candidate> roundsJoin(PlainSelect select) throws PlanException {
        var tables = new ArrayList<Sources.Source>();
        var items = new ArrayList<Object>();
        items.add(select.getFromItem());
        for (var j : select.getJoins()) items.add(j.getRightItem());
        for (Object item : items) {
            if (!(item instanceof Table t)) return Attempt.planned(null);
            var table = planner.resolved(t);
            if (!(table instanceof Attempt.Planned<TableDef>(var def))) return table.passUp();
            tables.add(new Sources.Source(def, t.getAlias() == null ? null : KeyFinder.unquote(t.getAlias().getName())));
        }
        var sessionState = Guards.sessionState(select.toString());
        if (sessionState.isPresent()) return Attempt.notApplicable(sessionState.get());
        var rows = new ArrayList<Double>();
        for (var s : tables) {
            String column = s.table().partitioning().column();
            rows.add(Costs.rows(s.table(), column == null ? null : new KeyFinder(column, s.table().name(), s.alias()).find(select.getWhere(), null)));
        }
        var plan = RoundsJoinPlanner.plan(select, new Sources(tables, 0), this::read, sql -> (Plan.Query) planner.plan(sql));
        if (plan == null) return Attempt.planned(null);
        return plan.map(p -> new Costs.Candidate("join in rounds", p, Costs.rounds(rows.getFirst(), 1, rows.getLast())));
    }

    /**
     * A read a way plans for itself (the outer rows of a join in rounds), planned as the statement {@code sql} would be
     * ({@link Planner#plan}: whole where one partition holds its rows and this planner refuses it), not cached; its refusal
     * or the statement's error as a value.
     */
    private Attempt<Plan.Query> read(String sql) throws PlanException {
        if (!(Parsing.parse(sql, planner.limits().parseTimeoutMillis()) instanceof PlainSelect select)) throw new IllegalStateException("not a read: " + sql);
        var standIns = Labels.pin(select, sql, null);
        int partition = planner.whole().partition(select);
        String asWritten = select.toString(); // plan rewrites the tree
        var planned = plan(select, sql);
        if (partition >= 0 && planned instanceof Attempt.NotApplicable<Plan> n && n.refused()) planned = Attempt.planned(planner.whole().plan(asWritten, partition));
        return planned.map(p -> (Plan.Query) Planner.relabelled(p, standIns));
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
