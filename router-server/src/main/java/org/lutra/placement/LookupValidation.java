package org.lutra.placement;

import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * The validation protocol (paper Fig. 2; docs/architecture.md, "The validation protocol") for one statement on keys of
 * a lookup group, read or write: the one drive loop both run through, each saying only what differs in a
 * {@link Statement}.
 *
 * <pre>
 *   guess: where the router's cache points (the caller's, counted as hits and misses)
 *     │
 *     ├─ {@link #run}: try the statement there ──▶ {@link Statement#settle}: complete? ──yes──▶ its answer
 *     │                                                   │ no (fewer rows than keys, nothing changed, a trigger's refusal,
 *     │                                                   │     or a move of the group since the transaction's snapshot there)
 *     └─ {@link #whereHomeRowsSay} ◀──────────────────────┘
 *          lock the keys' home rows ({@link HomeRows}, under {@code locks}) ─▶ learn them into the cache ─▶ count the fallback
 *          ─▶ (a read: check the transaction's snapshots there) ─▶ run the statement where they say, while they are locked
 * </pre>
 *
 * The try at the guess takes no lock, and is only an answer when the statement's own answer proves it; the run where the
 * home rows say is exact, because a move holds those rows locked exclusively from before it deletes anything until its
 * home branch commits ({@link HomeRows}). Callers choose where to start: a statement whose first try could not be taken
 * back (a write of several keys) or whose answer proves nothing (an aggregate) starts at the home rows.
 */
public final class LookupValidation {
    /** What the statement does with the rows, which decides the checks and the counting around its tries. */
    public enum Kind {
        /**
         * A read, in the statement's (or its transaction's) snapshot of each partition: inside a REPEATABLE READ
         * transaction that snapshot may be older than a move of the group there, so the try at the guess is dropped when a
         * move batch committed there since ({@link Shards#movesSinceSnapshot}), and the partitions the home rows name are
         * checked before they are read ({@link Shards#noMoveSinceSnapshot}). The run where the home rows say is no
         * statement of its own in the counters: its partitions are counted with the fallback.
         */
        READ,
        /**
         * A write: it changes the latest committed rows, so no snapshot of the transaction can be older than the locked
         * home rows and nothing is checked; each try counts its partitions itself, as a statement, where it is sent.
         */
        WRITE
    }

    /** The statement the protocol runs, as a read or a write runs it; {@code R} is its answer (rows, an update count, a place). */
    public interface AtHomeRows<R> {
        /** Runs the statement at {@code located} (partition → indexes of the keys there), where {@code home}, locked, says the keys live. */
        R runWhereHomeRowsSay(Map<Integer, List<Integer>> located, HomeRows home) throws SQLException;
    }

    /** A statement that tries where the cache points first, and knows from its answer whether that try was complete. */
    public interface Statement<R> extends AtHomeRows<R> {
        /** Runs the statement at the cache's {@code guess} (partition → indexes of the keys there); no lock is held. */
        R tryWhereCachePoints(Map<Integer, List<Integer>> guess) throws SQLException;

        /**
         * {@code first}, the try at the guess, if its answer proves it complete; else the answer of {@code retry} (the
         * statement where the home rows say), instead of it or after it. A read may settle as it streams, calling
         * {@code retry} later; a write settles at once.
         */
        R settle(R first, Retry<R> retry) throws SQLException;

        /** Drops {@code first} unread: a move batch of the group committed where it read since the transaction's snapshot. */
        void drop(R first);
    }

    /** The statement where the home rows say ({@link #whereHomeRowsSay}), run when called (at most once). */
    public interface Retry<R> {
        R run() throws SQLException;
    }

    private final Shards shards;
    private final ValidationCounters counters;
    private final TableDef table;
    private final Partitioning.LookedUp lookup;
    private final Object[] keys;
    private final Map<Integer, List<Integer>> guess;
    private final Kind kind;

    /**
     * @param table a table placed by a lookup table ({@link Partitioning.LookedUp})
     * @param keys  the statement's routing keys, normalized (none null)
     * @param guess where the router's cache places them: partition → indexes of {@code keys}
     */
    public LookupValidation(Shards shards, ValidationCounters counters, TableDef table, Object[] keys, Map<Integer, List<Integer>> guess, Kind kind) {
        this.shards = shards;
        this.counters = counters;
        this.table = table;
        this.lookup = (Partitioning.LookedUp) table.partitioning();
        this.keys = keys;
        this.guess = guess;
        this.kind = kind;
    }

    /**
     * Runs {@code statement} where the cache points and, if its answer does not prove it complete, again where the keys'
     * home rows say, under their lock in {@code locks} (held until the caller releases them).
     */
    public <R> R run(HomeRows.Locks locks, Statement<R> statement) throws SQLException {
        // read before the try is sent: the group's move-batch count in the transaction's older snapshots of the guess
        Shards.MovesSince moves = kind == Kind.READ ? shards.movesSinceSnapshot(lookup.owner(), guess.keySet()) : null;
        R first = statement.tryWhereCachePoints(guess);
        Retry<R> retry = () -> whereHomeRowsSay(locks, statement);
        if (moves != null && moves.any()) {
            statement.drop(first);
            return retry.run();
        }
        return statement.settle(first, retry);
    }

    /**
     * Runs {@code statement} where the keys' home rows say they live, while those rows are locked in {@code locks}; the
     * cache learns what they say, and a place that is not the guess counts as a fallback.
     */
    public <R> R whereHomeRowsSay(HomeRows.Locks locks, AtHomeRows<R> statement) throws SQLException {
        HomeRows home = HomeRows.lock(locks, shards, table, lookup, keys); // held until the statement's rows are read or written
        home.learn(keys, counters);
        var located = home.byPartition(keys);
        if (!located.equals(guess)) counters.fallback(lookup, kind == Kind.READ ? partitions(located) : new int[0]);
        if (kind == Kind.READ) shards.noMoveSinceSnapshot(lookup.owner(), located.keySet()); // a transaction's older snapshot there may not have them
        return statement.runWhereHomeRowsSay(located, home);
    }

    private static int[] partitions(Map<Integer, List<Integer>> byPartition) {
        return byPartition.keySet().stream().mapToInt(Integer::intValue).toArray();
    }
}
