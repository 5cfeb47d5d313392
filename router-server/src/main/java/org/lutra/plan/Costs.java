package org.lutra.plan;

import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.catalog.UniqueKeys;
import org.lutra.exec.Plan;
import org.lutra.sql.KeyMatch;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;

/**
 * What the ways of running a read over several partitions are estimated to cost, so that the
 * planner runs the cheapest of the plans that answer a statement rather than the first that does
 * not refuse.
 *
 * <p>A plan's cost is the round trips it makes one after another, each weighed as
 * {@link #ROUND_TRIP} rows, plus the rows that pass through the router (a row copied into a
 * temporary table passes twice: read, then written). The router keeps no statistics of the
 * tables, so a table read's rows are estimated from what its WHERE clause pins: one row a key on
 * a unique routing column, {@link #ROWS_PER_KEY} on another, {@link #TABLE_ROWS} where nothing is
 * pinned. Estimates only order plans; nothing depends on them being close.
 */
final class Costs {
    /** Rows of a table read that pins no key: the router knows no table's size. */
    static final double TABLE_ROWS = 10_000;
    /** Rows a key of a non-unique routing column (a warehouse, an author) is taken to have. */
    static final double ROWS_PER_KEY = 100;
    /** One round trip to a partition, in rows through the router (about 0.2 ms against about 2 µs a row here). */
    static final double ROUND_TRIP = 100;
    /** Rows a join in rounds sends to the inner table per round ({@link org.lutra.exec.JoinInRounds}). */
    private static final double ROUND_KEYS = 1_000;
    /** Rows a temporary table gets per INSERT ({@link org.lutra.exec.Materialize}). */
    private static final double ROWS_PER_INSERT = 500;

    private Costs() {}

    /** Round trips one after another, and rows through the router. */
    record Estimate(double roundTrips, double rows) {
        double total() {
            return roundTrips * ROUND_TRIP + rows;
        }

        Estimate plus(Estimate other) {
            return new Estimate(roundTrips + other.roundTrips, rows + other.rows);
        }

        @Override
        public String toString() {
            return String.format(java.util.Locale.ROOT, "%.0f round trips, %.0f rows", roundTrips, rows);
        }
    }

    /** A plan that answers the statement, and its estimated cost. */
    record Candidate(String strategy, Plan.Query plan, Estimate cost) {}

    /** The rows a read of {@code table} returns when its WHERE clause pins {@code keys} (null: nothing). */
    static double rows(TableDef table, KeyMatch keys) {
        if (keys == null || table.partitioning() instanceof Partitioning.Replicated) return TABLE_ROWS;
        double perKey = uniqueRouting(table) ? 1 : ROWS_PER_KEY;
        return switch (keys) {
            case KeyMatch.Equals e -> perKey;
            case KeyMatch.In in -> Math.min(TABLE_ROWS, in.values().size() * perKey);
            case KeyMatch.Range r -> TABLE_ROWS / 10;
        };
    }

    private static boolean uniqueRouting(TableDef table) {
        if (table.partitioning() instanceof Partitioning.LookedUp lookup) return lookup.unique();
        String column = table.partitioning().column();
        try {
            for (var key : UniqueKeys.of(table)) {
                if (key.parts().size() == 1 && key.holds(column)) return true;
            }
        } catch (RuntimeException unreadable) {
            return false;
        }
        return false;
    }

    /** Tables read one after another and copied into temporary tables ({@link org.lutra.exec.Materialize}), then one statement there. */
    static Estimate copied(List<Double> tableRows, int copies) {
        var cost = new Estimate(2 + 2.0 * copies, 0); // the statement over the copies, the DROP; each copy made and filled there
        for (double rows : tableRows) cost = cost.plus(new Estimate(2 + Math.ceil(rows / ROWS_PER_INSERT), 2 * rows));
        return cost;
    }

    /**
     * A join in rounds ({@link org.lutra.exec.JoinInRounds}): the outer rows, then per batch of their keys the inner
     * rows that match, at most {@code innerRows} in all.
     */
    static Estimate rounds(double outerRows, double innerRowsPerKey, double innerRows) {
        double matched = Math.min(innerRows, outerRows * innerRowsPerKey);
        return new Estimate(1 + Math.ceil(outerRows / ROUND_KEYS), outerRows + matched);
    }

    /**
     * Derived tables (or set operations' branches) each materialized from its own plan, {@code items} of them. Where such
     * a plan is materialized itself, the statement would hold two scratch connections of a partition at once, which
     * concurrent statements could wait on each other for: such a plan runs only where no other does.
     */
    static Candidate materialized(String strategy, Plan.Query plan, int items) {
        for (var in : plan.root().inputs()) {
            if (copies(in)) return new Candidate(strategy, plan, new Estimate(Double.MAX_VALUE / ROUND_TRIP / 4, 0));
        }
        return new Candidate(strategy, plan, copied(java.util.Collections.nCopies(items, TABLE_ROWS), 0));
    }

    private static boolean copies(org.lutra.exec.Operator op) {
        if (op instanceof org.lutra.exec.Materialize) return true;
        for (var in : op.inputs()) if (copies(in)) return true;
        return false;
    }

    /** Reads one after another, each its own rows: subqueries run first, then the statement with their values. */
    static Estimate reads(List<Double> rows) {
        var cost = new Estimate(0, 0);
        for (double r : rows) cost = cost.plus(new Estimate(1, r));
        return cost;
    }

    /**
     * The cheapest candidate; ties go to the one listed first (the specialised plans come first). {@code refusals}
     * hold why the other ways do not answer the statement: the first one is the statement's refusal when no
     * candidate is left.
     */
    static Plan.Query cheapest(List<Candidate> candidates, List<PlanException> refusals) throws PlanException {
        return best(candidates, refusals).orThrow();
    }

    /** As {@link #cheapest}, the refusal where no candidate is left as the reason of a {@link Attempt.NotApplicable}. */
    private static Attempt<Plan.Query> best(List<Candidate> candidates, List<PlanException> refusals) {
        Candidate best = null;
        for (Candidate c : candidates) {
            if (c != null && (best == null || c.cost().total() < best.cost().total())) best = c;
        }
        if (best != null) return new Attempt.Planned<>(best.plan());
        if (refusals.isEmpty()) return Attempt.notApplicable(PlanException.unsupported("this statement over several partitions yet"));
        if (refusals.size() == 1) return Attempt.notApplicable(refusals.getFirst());
        // the first way's reason, then why each other way does not answer either
        var message = new StringBuilder(refusals.getFirst().getMessage());
        for (var other : refusals.subList(1, refusals.size())) {
            message.append("; nor ").append(other.getMessage().replaceFirst("^Lutra does not support ", ""));
        }
        return Attempt.notApplicable(new PlanException(refusals.getFirst().getSQLState(), refusals.getFirst().getErrorCode(), message.toString()));
    }

    /** Collects candidates and the reasons other ways do not apply, in the order the planner lists them. */
    static final class Choice {
        private final List<Candidate> candidates = new ArrayList<>();
        private final List<PlanException> refusals = new ArrayList<>();
        private PlanException error;

        /**
         * One way of answering the statement: its candidate, or why it does not apply (a refusal, or an error of the
         * statement as this way reads it). A planned null: the statement's shape is not one this way takes, which is no
         * reason to tell the client (a join in rounds of a shape it does not take).
         */
        interface Way {
            Attempt<Candidate> attempt() throws PlanException;
        }

        /**
         * Adds the candidate {@code way} makes; a way that cannot answer the statement adds its reason instead. An error
         * that is not a refusal (an unknown table, a syntax error) is the statement's own where no way answers it; a way
         * that cannot read the statement (a CTE it takes for a table) gives one where another way does.
         */
        Choice consider(Way way) throws PlanException {
            switch (way.attempt()) {
                case Attempt.Planned<Candidate> p -> {
                    if (p.plan() != null) candidates.add(p.plan());
                }
                case Attempt.NotApplicable<Candidate> n -> notApplicable(n);
            }
            return this;
        }

        /**
         * As {@link #consider(Way)}, for a way that says before it is tried whether it applies: {@code notApplicable},
         * its reason where it does not, is taken as the reason {@code way} would give, and it is not tried.
         */
        Choice consider(java.util.Optional<PlanException> notApplicable, Way way) throws PlanException {
            if (notApplicable.isEmpty()) return consider(way);
            notApplicable(new Attempt.NotApplicable<>(notApplicable.get()));
            return this;
        }

        private void notApplicable(Attempt.NotApplicable<Candidate> n) {
            if (n.refused()) refusals.add(n.reason()); else if (error == null) error = n.reason();
        }

        /** Why the way the planner would take first does not answer the statement: the refusal when no candidate is left. */
        Choice refused(PlanException why) {
            refusals.add(why);
            return this;
        }

        Plan.Query cheapest() throws PlanException {
            return attempt().orThrow();
        }

        /**
         * The cheapest plan, or, where no way answers, why: the refusals, in the order the ways were listed, combined; or,
         * where one of the ways met an error that is not a refusal, the first such error (the statement's own).
         */
        Attempt<Plan.Query> attempt() {
            if (candidates.isEmpty() && error != null) return Attempt.notApplicable(error);
            return best(candidates, refusals);
        }

        List<Candidate> candidates() {
            return candidates;
        }
    }
}
