package org.lutra.plan;

import org.lutra.protocol.Refusal;
import org.lutra.sql.PlanException;

/**
 * The outcome of trying one way to plan a statement: its plan, or why that way does not apply.
 *
 * <p>Where several ways may answer a statement (a join placed inside each partition or joined in rounds, a merge of
 * each partition's answer or the tables copied to one partition), the planner asks each for an {@code Attempt} and
 * picks among the {@link Planned} ones ({@link Costs.Choice} by cost, else in the order it lists them); the reason of
 * a {@link NotApplicable} one is what the client gets when no way applies.
 *
 * <p>The rule: a way says whether it applies as a value, never by throwing for its caller to catch. A way whose
 * applicability is cheap to see answers {@code NotApplicable} itself, before it is tried ({@link JoinPlacement},
 * {@link TemporaryCopy#attempt}, {@link Fallback#notApplicable}, {@link SubqueryPlanner#notApplicable},
 * {@link DerivedTables#setOperationsNotApplicable}). A way that finds out deep inside answers an {@code Attempt} from
 * each step: the merge of each partition's answer ({@link ScatterPlanner#build}) and the steps it is made of (the
 * compiler of expressions over groups, the partial aggregates, the merged LIMIT, the resolution of names) each return
 * one, and a step that meets a part that does not apply passes that reason up ({@link #passUp}, {@link #then},
 * {@link #map}): the first construct met is the one the client is told of. Such a way also answers an error of the
 * statement as it reads it (an unknown column, an ambiguous name) as a {@code NotApplicable} whose reason is no refusal
 * ({@link NotApplicable#refused}): its caller gives it when the way is needed, as it would the refusal.
 *
 * <p>No way is chosen by catching: {@link Costs.Choice} takes each way's {@code Attempt}, and the select planner answers
 * one ({@link SelectPlanner#plan}), its refusals and the errors it meets alike. What still throws is what no other way
 * could answer: an error of the statement where the caller needs a plan (an unknown table, a syntax error; see
 * {@link #errorThrown}), and a statement refused outright (a write the router does not run, a guard with no way around
 * it). The parser's exception on re-reading the planner's own printed text ({@link PrivateTree},
 * {@link NumberedText#parsedAgain}) is caught where it is met: it is no way's answer.
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

    static <T> Attempt<T> notApplicable(PlanException reason) {
        return new NotApplicable<>(reason);
    }

    static <T> Attempt<T> planned(T plan) {
        return new Planned<>(plan);
    }

    /** The plan made into another, or, where the way does not apply, the same reason. */
    default <U> Attempt<U> map(java.util.function.Function<? super T, ? extends U> next) {
        return switch (this) {
            case Planned<T> p -> new Planned<>(next.apply(p.plan()));
            case NotApplicable<T> n -> new NotApplicable<>(n.reason());
        };
    }

    /** The next step's attempt, taken with the plan; or, where this way does not apply, its reason (the next step is not tried). */
    default <U> Attempt<U> then(java.util.function.Function<? super T, Attempt<U>> next) {
        return switch (this) {
            case Planned<T> p -> next.apply(p.plan());
            case NotApplicable<T> n -> new NotApplicable<>(n.reason());
        };
    }

    /**
     * The reason this way does not apply, as the attempt of the step that asked it (of another type): how a step that
     * finds one of its parts does not apply says so in turn. Only for a {@link NotApplicable}.
     */
    default <U> Attempt<U> passUp() {
        if (this instanceof NotApplicable<T> n) return new NotApplicable<>(n.reason());
        throw new IllegalStateException("the way applies: " + this);
    }

    /**
     * This attempt, where the way applies or is refused; an error of the statement (not a refusal) thrown: for a caller that
     * chooses among ways by refusals only, where an error is the statement's whichever way plans it.
     */
    default Attempt<T> errorThrown() throws PlanException {
        if (this instanceof NotApplicable<T> n && !n.refused()) throw n.reason();
        return this;
    }

    /** The plan, or the reason thrown. */
    default T orThrow() throws PlanException {
        return switch (this) {
            case Planned<T> p -> p.plan();
            case NotApplicable<T> n -> throw n.reason();
        };
    }
}
