package org.lutra.plan;

import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.Select;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.exec.Plan;
import org.lutra.exec.Route;
import org.lutra.exec.Target;
import org.lutra.sql.Guards;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads that run whole on one partition, as the client wrote them: MySQL there answers them exactly.
 * <ul>
 *   <li>Always, where every table the statement names is on that partition: replicated there, or placed there alone
 *       ({@link #partition}). The {@link Planner} still plans such a statement the specialised way first where that
 *       way applies (its plan validates lookup keys and shows in EXPLAIN ROUTE as any read), and sends it whole
 *       where that way does not apply;</li>
 *   <li>for each execution whose keys put every table's rows on one partition ({@link PinnedTables}), chosen when the
 *       statement runs, with the cheapest plan over several partitions for the other executions ({@link #onOnePartition}).</li>
 * </ul>
 */
final class WholeStatements {
    private final Planner planner;

    WholeStatements(Planner planner) {
        this.planner = planner;
    }

    /**
     * The partition holding every row {@code select} can read, or -1: each table it names is replicated there or placed
     * on that partition alone. A table qualified with the logical database counts as unqualified (its qualifier is taken
     * off when the statement is sent); other qualified names, and names the catalog does not know, give -1.
     * Reads the tree as the client wrote it: call it before any planner rewrites the statement.
     */
    int partition(Select select) {
        var finder = new PinnedTables.Finder();
        try {
            finder.getTables((net.sf.jsqlparser.statement.Statement) select);
        } catch (RuntimeException notWalked) {
            return -1; // a shape the finder does not walk: its tables are not known
        }
        Catalog catalog = planner.catalog();
        Set<Integer> common = null;
        for (Table t : finder.tables) {
            if (commonTableExpression(t, finder)) continue;
            TableDef def = known(t, catalog);
            if (def == null) return -1;
            int[] partitions = def.partitioning().partitions();
            if (!(def.partitioning() instanceof Partitioning.Replicated) && partitions.length != 1) return -1;
            var on = new HashSet<Integer>();
            for (int p : partitions) on.add(p);
            if (common == null) common = on; else common.retainAll(on);
        }
        return common == null || common.isEmpty() ? -1 : common.stream().min(Integer::compare).get();
    }

    private static boolean commonTableExpression(Table t, PinnedTables.Finder finder) {
        return t.getSchemaName() == null && t.getName() != null && finder.ctes.contains(KeyFinder.unquote(t.getName()).toLowerCase(Locale.ROOT));
    }

    /** The catalog's table {@code t} names (unqualified or qualified with the logical database), or null. */
    private TableDef known(Table t, Catalog catalog) {
        if (t.getName() == null) return null;
        if (t.getSchemaName() != null && !KeyFinder.unquote(t.getSchemaName()).equalsIgnoreCase(planner.database())) return null;
        return catalog.table(KeyFinder.unquote(t.getName()));
    }

    /**
     * The plan that sends the statement {@code text} (as the client wrote it, before any planner rewrote its tree) whole
     * to {@code partition}: parsed again, each table named as the catalog spells it, without the logical database's
     * qualifier.
     */
    Plan.Query plan(String text, int partition) throws PlanException {
        if (!(Parsing.parse(text, Planner.Limits.defaults().parseTimeoutMillis()) instanceof Select select)) {
            throw new IllegalStateException("a SELECT's text parsed again is another statement: " + text);
        }
        var finder = new PinnedTables.Finder();
        finder.getTables((net.sf.jsqlparser.statement.Statement) select); // walked before, by partition()
        for (Table t : finder.tables) {
            if (commonTableExpression(t, finder)) continue;
            TableDef def = known(t, planner.catalog());
            if (def == null) continue; // partition() found every table; a name it did not know is not here
            t.setSchemaName(null);
            if (!KeyFinder.unquote(t.getName()).equals(def.name())) { // sent as the catalog spells it, called as the statement does
                if (t.getAlias() == null) t.setAlias(new Alias(t.getName(), false));
                t.setName(TemporaryCopy.quote(def.name()));
            }
        }
        String sql = select.toString();
        Guards.requireNoSessionState(sql);
        var stand = new TableDef("(statement)", List.of(), new Partitioning.Replicated(new int[] {partition}), "");
        var target = new Target(stand, null).withReplicaLocks(LockedReplicas.of(select, planner.catalog()));
        return new Plan.Query(new Route(target, sql, null), ParamCounter.count(sql));
    }

    /**
     * The cheapest of {@code choice}'s plans, run whole on one partition instead where each execution's keys put every
     * table's rows there ({@link PinnedTables}); where it has no plan and the tables are not all pinned, why (its refusal,
     * or the statement's error).
     */
    Attempt<Plan.Query> onOnePartition(String text, Costs.Choice choice) {
        PinnedTables pinned = PinnedTables.of(text, planner.catalog(), planner.database());
        if (pinned == null) return choice.attempt();
        int everywhere = pinned.commonPartition();
        var sessionState = Guards.sessionState(pinned.sql());
        if (everywhere >= 0) { // replicated tables, or tables of one partition, that one partition holds all of
            if (sessionState.isPresent()) return Attempt.notApplicable(sessionState.get());
            var stand = new TableDef("(statement)", List.of(), new Partitioning.Replicated(new int[] {everywhere}), "");
            return Attempt.planned(new Plan.Query(new Route(new Target(stand, null), pinned.sql(), null), ParamCounter.count(text)));
        }
        // where no plan over several partitions answers, an execution whose keys are not on one partition is refused when it runs
        var overSeveral = choice.attempt();
        if (overSeveral instanceof Attempt.NotApplicable<Plan.Query> n && !n.refused()) return overSeveral; // the statement's error
        if (sessionState.isPresent()) return Attempt.notApplicable(sessionState.get());
        var root = switch (overSeveral) {
            case Attempt.Planned<Plan.Query> p -> new org.lutra.exec.OnePartition(pinned.targets(), pinned.sql(), p.plan().root(), null);
            case Attempt.NotApplicable<Plan.Query> n -> new org.lutra.exec.OnePartition(pinned.targets(), pinned.sql(), null, n.reason());
        };
        return Attempt.planned(new Plan.Query(root, ParamCounter.count(text)));
    }
}
