package org.lutra.exec;

import org.lutra.backend.ShardQuery;
import org.lutra.catalog.Partitioning;
import org.lutra.merge.FallbackRows;
import org.lutra.merge.LimitRows;
import org.lutra.merge.RowSource;
import org.lutra.merge.UnionRows;
import org.lutra.placement.HomeRows;
import org.lutra.placement.LookupValidation;
import org.lutra.placement.Shards;
import org.lutra.sql.PlanException;

import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The root of a SELECT's plan. Where the statement's rows all live on one partition it runs
 * there unchanged ({@code pushdown}): MySQL itself answers it, whatever it contains. Otherwise
 * the {@code scatter} tree runs: the shard SQL rewritten for merging plus the router-side
 * operators that merge, or, when the planner could not build one, the refusal naming why.
 *
 * <p>Plain row reads routed by a lookup table are validated without an extra round trip when the
 * cache is right: run where the lookup table points and count the rows; if fewer answered than
 * keys were asked, read the keys' home rows under a lock and run again where they say
 * ({@link LookupValidation}, the protocol keyed writes run through too; {@link HomeRows}: the durable
 * form of the paper's Fig. 2 fallback, which no move can slip past, instead of asking every
 * partition). What is a read's own: its answer is rows, counted as they stream or held back; several
 * keys are tried where the cache points first (a read can be dropped, a write cannot); the
 * transaction's snapshots are checked ({@link LookupValidation.Kind#READ}). Reads whose shard results cannot be counted that way
 * (aggregates, ORDER BY, ...) first check where the keys' owner rows are ({@link Target#exact}),
 * except a read of one key whose every row proves the key lives where it was read ({@link #keyProvenRows}).
 */
public final class SelectPlan implements Choice {
    private final Target target;
    private final Route pushdown;
    private final Validation validation;
    private final long plainLimit;
    private final Operator scatter;
    private final PlanException refusal;

    /** How a read routed by a lookup table's guess learns that the guess was right, by what its rows are. */
    public enum Validation {
        /**
         * The statement returns rows that simply concatenate across partitions (no ORDER BY, aggregate, DISTINCT, OFFSET):
         * they are counted against the keys asked ({@link #validatedRows}).
         */
        COUNT_ROWS,
        /**
         * Every row the statement returns is made from rows of its tables (no aggregate over no rows), so with one routing
         * key pinned, a row returned is a row of that key ({@link #keyProvenRows}).
         */
        ROWS_PROVE_KEY,
        /** Neither: where the keys' owner rows are is checked first ({@link Target#exact}). */
        OWNER_ROWS
    }

    /**
     * @param plainLimit for {@link Validation#COUNT_ROWS}, a LIMIT to apply again over several partitions, or -1
     * @param scatter    the plan for several partitions, or null with {@code refusal} saying why there is none
     */
    public SelectPlan(Target target, Route pushdown, Validation validation, long plainLimit, Operator scatter, PlanException refusal) {
        this.target = target;
        this.pushdown = pushdown;
        this.validation = validation;
        this.plainLimit = plainLimit;
        this.scatter = scatter;
        this.refusal = refusal;
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        if (validation == Validation.COUNT_ROWS && target.guesses()) {
            RowSource validated = validatedRows(ctx);
            if (validated != null) return validated;
        }
        if (validation == Validation.ROWS_PROVE_KEY && target.guesses()) {
            RowSource proven = keyProvenRows(ctx);
            if (proven != null) return proven;
        }
        if (validation != Validation.OWNER_ROWS) {
            RowSource guessed = UniqueValueGuess.rows(ctx, target, pushdown.sql());
            if (guessed != null) return guessed;
        }
        Target.Resolution r = provenWhereRead(ctx);
        if (r == null) r = target.exact(ctx);
        ctx.remember(target, r);
        if (r.size() == 1) return pushdown.open(ctx);
        if (scatter == null) throw refusal;
        return scatter.open(ctx);
    }

    /**
     * Inside a REPEATABLE READ transaction, where the keys are proven on the partitions read, without their homes
     * ({@link OwnerRowsProof}); when one is not, where the home rows say ({@link Target#exact}, from the same guess). Null
     * where the proof does not apply (no keys, a range, a locking read, other levels, auto-commit).
     */
    private Target.Resolution provenWhereRead(Context ctx) throws SQLException {
        if (!target.guesses() || target.keys() instanceof org.lutra.sql.KeyMatch.Range || !OwnerRowsProof.applies(ctx, pushdown.sql())) return null;
        if (target.keyValues(ctx.params()) == null) return null;
        target.replicaLocks().check(target.table(), ctx.shards());
        Target.Resolution guess = target.guess(ctx);
        Target.Resolution proven = OwnerRowsProof.proven(ctx, target, guess);
        return proven != null ? proven : target.exact(ctx, guess);
    }

    /**
     * Rows of a lookup-routed read, validated by counting; null when counting cannot tell (several
     * non-unique keys). One key: its rows stream from where the cache points; if none came, the
     * statement runs again where the key's home row says it lives, under that row's lock
     * ({@link HomeRows}). Several keys: the first read is held back until it is known to be
     * complete; if it is not, it is dropped and the statement runs again for all keys under their
     * home rows' locks — a key seen in the first read may have moved since, and a second read of
     * only the missing keys could not tell which ones were seen.
     */
    private RowSource validatedRows(Context ctx) throws SQLException {
        if (target.keys() instanceof org.lutra.sql.KeyMatch.Range) return null; // keys of a range need not exist: counting cannot validate
        Object[] keys = target.keyValues(ctx.params());
        if (keys == null || keys.length == 0) return null;
        var lookup = (Partitioning.LookedUp) target.table().partitioning();
        long distinct = Arrays.stream(keys).distinct().count();
        if (!lookup.unique() && distinct > 1) return null;
        long expected = lookup.unique() ? distinct : 1;
        var read = new ValidatedRead(ctx, keys, expected, distinct == 1 ? Settle.AS_IT_STREAMS : Settle.HELD_BACK);
        return read.run(target.guess(ctx));
    }

    /**
     * A read of one key of a lookup group that the router must not cut (ORDER BY, LIMIT, GROUP BY, DISTINCT, a
     * co-located join), validated by its answer, as the paper's protocol validates a read: it runs whole where the
     * cache points; if it returns a row, that is the answer; if none, it runs again where the key's home row says,
     * under that row's lock ({@link LookupValidation}: the path every such read took before, two more statements at
     * the key's hash home and, in a transaction, the move-batch check). Null where this does not apply (several keys,
     * a range, a locking read).
     *
     * <p>Why a returned row makes the answer exact, in auto-commit and inside a transaction (whose snapshot of the
     * partition may be older than the statement). The read is one consistent read of one partition: one snapshot. A
     * key's rows, of every table of its group, are on one partition in every committed state (a replicated key's on
     * each copy, whole): a move copies them all to its target and deletes them all at its source, each in one branch;
     * a row of the key is inserted only where its partition's placement row lets it ({@code lutra_place_*} triggers).
     * So in the snapshot read, a row of the key there means all the key's rows are there, as they were when the
     * snapshot was taken — what one database with that snapshot answers, if the key still lives there as it did then.
     * A snapshot this statement takes is new. One a REPEATABLE READ transaction took in an earlier statement may be older
     * than a move of the key: away (the transaction's own writes of the key since went where it went, and the old rows
     * here miss them), in (the snapshot has only the transaction's own rows of it), or away and back (the transaction may
     * have read newer rows where it was in between). Each such move is a batch of the group committed on the partition,
     * which counts it there with its rows ({@code lutra_move_version}); so on such a partition the count in the snapshot
     * is compared with the latest committed one, read once the read was sent ({@link Shards#movesSinceSnapshot}): equal,
     * the key did not move on the partition between the snapshot and now, so its rows there are the latest with the
     * transaction's own writes; different, the read goes to the home rows ({@link LookupValidation.Kind#READ}). A
     * returned row is a row of the key: the routing column is pinned by {@code =} in the WHERE clause, the join is
     * co-located (its tables meet on the group's key), and the statement is no aggregate over no rows
     * ({@link Validation#ROWS_PROVE_KEY}). No row: the key may live elsewhere (or have no rows that match), which only
     * the home row can tell.
     */
    private RowSource keyProvenRows(Context ctx) throws SQLException {
        if (target.keys() instanceof org.lutra.sql.KeyMatch.Range) return null;
        if (ctx.shards().lockingRead(pushdown.sql())) return null; // reads the latest rows and locks them: the home row's protocol
        Object[] keys = target.keyValues(ctx.params());
        if (keys == null || keys.length == 0 || Arrays.stream(keys).distinct().count() != 1) return null;
        Target.Resolution guess = target.guess(ctx);
        if (guess.size() != 1) return null;
        target.replicaLocks().check(target.table(), ctx.shards());
        return new ValidatedRead(ctx, keys, 1, Settle.AS_IT_STREAMS).run(guess);
    }

    /** How a read validated by its rows learns that the try where the cache points was incomplete. */
    private enum Settle {
        /** Its rows stream as they come; fewer than expected at the end, the retry's rows follow (one key: none came). */
        AS_IT_STREAMS,
        /** Its rows are held back until counted; fewer than expected, they are dropped and the retry's replace them. */
        HELD_BACK
    }

    /**
     * The pushdown statement for the keys, as the validation protocol runs a read ({@link LookupValidation.Kind#READ}):
     * where the cache points first, counted as the statement; then, if its rows do not prove it complete, where the
     * home rows say, under their lock, held until the statement's rows are read ({@link Context#locks}).
     */
    private final class ValidatedRead implements LookupValidation.Statement<RowSource> {
        private final Context ctx;
        private final Object[] keys;
        private final long expected;
        private final Settle settle;

        ValidatedRead(Context ctx, Object[] keys, long expected, Settle settle) {
            this.ctx = ctx;
            this.keys = keys;
            this.expected = expected;
            this.settle = settle;
        }

        RowSource run(Target.Resolution guess) throws SQLException {
            RowSource rows = new LookupValidation(ctx.shards(), ctx.stats(), target.table(), keys, guess.byPartition(), LookupValidation.Kind.READ)
                    .run(ctx.locks(), this);
            return plainLimit >= 0 ? new LimitRows(rows, plainLimit) : rows;
        }

        @Override
        public RowSource tryWhereCachePoints(Map<Integer, List<Integer>> guess) throws SQLException {
            var first = target.cut(new Target.Resolution(guess, keys), pushdown.sql(), pushdown.template(), ctx.params());
            ctx.stats().statement(partitions(first));
            return rowsOf(first);
        }

        @Override
        public RowSource settle(RowSource first, LookupValidation.Retry<RowSource> retry) throws SQLException {
            return settle == Settle.AS_IT_STREAMS ? new FallbackRows(first, expected, retry::run) : FallbackRows.replacing(first, expected, retry::run);
        }

        @Override
        public void drop(RowSource first) {
            first.close();
        }

        @Override
        public RowSource runWhereHomeRowsSay(Map<Integer, List<Integer>> located, HomeRows home) throws SQLException {
            return rowsOf(target.cut(new Target.Resolution(located, keys), pushdown.sql(), pushdown.template(), ctx.params()));
        }

        /** The queries' rows, one partition's after another; over several partitions the LIMIT again on each try's. */
        private RowSource rowsOf(List<ShardQuery> queries) throws SQLException {
            ctx.touched(queries);
            RowSource rows = new UnionRows(ctx.shards().query(queries));
            return queries.size() > 1 && plainLimit >= 0 ? new LimitRows(rows, plainLimit) : rows;
        }
    }

    private static int[] partitions(List<ShardQuery> queries) {
        return queries.stream().mapToInt(ShardQuery::partition).toArray();
    }

    @Override
    public String describe() {
        return "Select " + target;
    }

    /**
     * Whether, once routed, its rows come from routes alone with nothing of the router querying
     * again while they stream: not a lookup read validated by counting or by its answer (its fallback asks more
     * partitions after reading), and a scatter tree {@code plain} accepts.
     */
    public boolean streamsPlainly(java.util.function.Predicate<Operator> plain) {
        return !(validation != Validation.OWNER_ROWS && target.guesses()) && (scatter == null || plain.test(scatter));
    }

    /** The tree that runs for the given parameters: the pushdown route when they resolve to one partition. */
    @Override
    public Operator chosen(Context ctx) throws SQLException {
        Target.Resolution r = ctx.explaining() ? target.guess(ctx) : target.exact(ctx);
        ctx.remember(target, r);
        if (r.size() == 1) return pushdown;
        if (scatter == null) throw refusal;
        return scatter;
    }

    @Override
    public List<Operator> inputs() {
        return scatter == null ? List.of(pushdown) : List.of(pushdown, scatter);
    }
}
