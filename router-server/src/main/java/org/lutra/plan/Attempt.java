package org.lutra.plan;

import org.lutra.protocol.Refusal;
import org.lutra.sql.PlanException;

/**
 * The outcome of trying one way to plan a statement: its plan, or why that way does not apply.
 *
 * <p>Where several ways may answer a statement (a join placed inside each partition or joined in rounds, a merge of
 * each partition's answer or the tables copied to one partition), the planner asks each for an {@code Attempt} and
 * picks among the {@link Planned} ones ({@link Costs.Choice} by cost, else in the order it lists them); the reason of
 * a {@link NotApplicable} one is what the client gets when no way applies. A way whose applicability is cheap to
 * see answers {@code NotApplicable} itself, before it is tried ({@link JoinPlacement}, {@link TemporaryCopy#attempt},
 * {@link Fallback#notApplicable}, {@link SubqueryPlanner#notApplicable},
 * {@link DerivedTables#setOperationsNotApplicable}); the specialised planners, which find out deep inside (a construct
 * the merge cannot reproduce), refuse with the {@link PlanException} the client gets when nothing else answers, and
 * {@link #of} is the one place where such a refusal becomes "not applicable".
 */
sealed interface Attempt<T> {
    /** The way applies: its plan. */
    record Planned<T>(T plan) implements Attempt<T> {}

    /** The way does not apply to this statement; {@code reason}: a refusal (42000/1235) or an error of the statement as this way reads it. */
    record NotApplicable<T>(PlanException reason) implements Attempt<T> {
        /** Whether the reason is a refusal (what the router does not run), not an error of the statement (an unknown table, a syntax error). */
        boolean refused() {
            return Refusal.is(reason);
        }
    }

    /** One way to plan the statement, which refuses where it does not apply. */
    interface Way<T> {
        T plan() throws PlanException;
    }

    static <T> Attempt<T> notApplicable(PlanException reason) {
        return new NotApplicable<>(reason);
    }

    /** {@code way}'s plan, or, where it throws, why it does not apply: a refusal or an error of the statement alike. */
    static <T> Attempt<T> of(Way<T> way) {
        try {
            return new Planned<>(way.plan());
        } catch (PlanException reason) {
            return new NotApplicable<>(reason);
        }
    }

    /**
     * {@code way}'s plan, or, where it refuses, why it does not apply. An error that is not a refusal (an unknown table,
     * a syntax error) is the statement's whichever way plans it: thrown.
     */
    static <T> Attempt<T> refusable(Way<T> way) throws PlanException {
        Attempt<T> attempt = of(way);
        if (attempt instanceof NotApplicable<T> n && !n.refused()) throw n.reason();
        return attempt;
    }

    /** The plan, or the reason thrown. */
    default T orThrow() throws PlanException {
        return switch (this) {
            case Planned<T> p -> p.plan();
            case NotApplicable<T> n -> throw n.reason();
        };
    }
}
