package org.lutra.exec;

import org.lutra.backend.ShardQuery;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.SecondaryLookup;
import org.lutra.merge.ListRows;
import org.lutra.merge.RowSource;
import org.lutra.merge.UnionRows;
import org.lutra.placement.SecondaryGuesses;
import org.lutra.placement.Shards;
import org.lutra.protocol.Row;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * A read by one value v of a {@code UNIQUE} secondary lookup ({@code SELECT ... FROM t WHERE col = v ...}), tried where
 * this router guesses v's row lives ({@link SecondaryGuesses}) before the lookup's protocol (the move fence and the
 * entries at v's home, {@link Target#exact}): kept if it returned a row, else dropped and the protocol runs. The same
 * validation as a read by a lookup's key ({@link SelectPlan}'s), with v's uniqueness in place of the key's placement.
 * An UPDATE or DELETE by v is tried there too, and kept when it matched a row ({@link #write}: why, below).
 *
 * <p><b>What it applies to.</b> One table (a secondary lookup routes no join), {@code col = v} a top-level conjunct of the
 * WHERE clause (so every row that can match has value v under the column's collation, which the entries and the unique
 * index compare with), the routing column not pinned, and a statement each of whose rows is made from rows of the table
 * that match the WHERE clause ({@link SelectPlan.Validation#COUNT_ROWS} or {@link SelectPlan.Validation#ROWS_PROVE_KEY}:
 * no aggregate over no rows): a row returned means the partition read has a row with value v. Not for locking reads
 * (they read the latest rows and lock: the protocol's locking fence), nor READ UNCOMMITTED (a row there may be one a
 * failing insert or an unfinished move wrote).
 *
 * <p><b>Why a row found makes the answer exact.</b> The read runs on one partition p, in one snapshot S of it. Say S has
 * row r with value v.
 * <ol>
 *   <li><i>No other row has v in the moment S was taken.</i> A row of v is written on a partition only by a transaction
 *       that claims v (its entry, {@code SecondaryEntries}): it locks the entry, and where the entry names another
 *       partition it reads v's rows there with a locking read, which waits for any transaction writing them and then sees
 *       the latest; a row there ends the write with 1062. The entries are a superset (a committed row of v on p has the
 *       entry (v, p); UNIQUE keeps one entry per value), so while r is committed on p any other writer of v finds r and
 *       fails. So a second row of v commits only after r's removal (deleted, updated to another value) has committed,
 *       later than S, which has r. An insert of v in flight on another partition q while the read runs is no row of S's
 *       moment: it commits after r's removal or fails with 1062.
 *   <li><i>A move of r.</i> A move copies r to its target and deletes it at its source, each in one branch, the target's
 *       committed first, and rewrites v's entry in the same transaction (its claim, under the entry's lock): between its
 *       commits r is committed on both partitions, one row in two places, unchanged (a write of r's key waits for the
 *       move's locks or its home row). S on either partition has r once: it is the answer, and no other row of v exists
 *       (1.). So a row found on the source before its commit, or on the target after its commit, is exact, whichever
 *       order the read and the commits take; no row found (S after the source's commit, or before the target's) is a miss.
 *   <li><i>The snapshot.</i> So S's answer is what one database answers in the moment S was taken. A snapshot this
 *       statement takes (auto-commit, READ COMMITTED, or a transaction's first read of p) is the statement's own moment.
 *       Inside a REPEATABLE READ transaction that read p before, S may be older, and the transaction may have seen more
 *       since: as for a read by key, a move batch of the table's group committed on p since S (r moved away, in, or away
 *       and back) is found by comparing the group's move-batch counts ({@link Shards#movesSinceSnapshot}: none where S is
 *       all the transaction has seen), and the answer is then dropped. Unlike a key's rows, the transaction's own writes
 *       of v need not be on p: once another transaction deleted r (after S), this one may insert a row of v elsewhere,
 *       which it sees and S does not. So the older snapshot is used only while the transaction has run consistent reads
 *       alone ({@link Shards#consistentReadsOnly}: it has written nothing). A snapshot this statement takes cannot miss
 *       such a write: while the transaction holds its claim of v (its row written, uncommitted), no other row of v
 *       commits (1.), so S can show r only if r was committed before the claim, and the claim would have found it.
 * </ol>
 * No row found: v's row may live elsewhere (the guess is stale or wrong, or v has no row, or the WHERE clause's other
 * conjuncts reject it), which only the entries can tell: the protocol runs as without a guess, and learns. The try's cost
 * then is one read of p; inside a REPEATABLE READ transaction it has begun p's snapshot, which the protocol's read of p
 * (if the entries name p) checks against move batches as for any partition read before (40001 where one committed in
 * between, as after a read by key whose guess missed).
 */
final class UniqueValueGuess {
    private UniqueValueGuess() {}

    /** The statement's rows read where the router guesses its UNIQUE value's row lives, if one was there; else null (nothing kept). */
    static RowSource rows(Context ctx, Target target, String sql) throws SQLException {
        Object value = target.uniqueSecondaryValue(ctx);
        if (value == null) return null;
        Shards shards = ctx.shards();
        if (shards.lockingRead(sql)) return null;
        if (shards.transactional() && shards.isolation() == Connection.TRANSACTION_READ_UNCOMMITTED) return null;
        SecondaryLookup lookup = target.secondaryLookup();
        SecondaryGuesses guesses = ctx.stats().secondaryGuesses();
        int p = guesses.get(lookup, value);
        if (p < 0 && ctx.services() != null) guesses.warmOnce(ctx.services().backends(), target.table(), lookup);
        if (p < 0 || !placedOn(target, p)) return null;
        boolean olderSnapshot = shards.transactional() && shards.isolation() == Connection.TRANSACTION_REPEATABLE_READ
                && shards.begun(p) && !shards.onlySnapshotOf(p);
        if (olderSnapshot && !shards.consistentReadsOnly()) return null; // its own write of v may be elsewhere: see 3.
        target.replicaLocks().check(target.table(), shards);
        // read before the try is sent: the group's move-batch count in the transaction's older snapshot of p
        Shards.MovesSince moves = olderSnapshot && target.table().partitioning() instanceof Partitioning.LookedUp l
                ? shards.movesSinceSnapshot(l.owner(), List.of(p)) : null;
        var query = List.of(new ShardQuery(p, sql, ctx.params()));
        ctx.touched(query);
        RowSource rows = shards.query(query).getFirst();
        Row first;
        try {
            first = rows.next();
            if (first != null) org.lutra.placement.FailPoints.reach(org.lutra.placement.FailPoints.SECONDARY_GUESS_READ);
            if (first != null && moves != null && moves.any()) first = null;
        } catch (SQLException | RuntimeException e) {
            rows.close();
            throw e;
        }
        ctx.stats().secondaryGuess(first != null);
        if (first == null) {
            rows.close();
            return null;
        }
        ctx.stats().statement(new int[] {p});
        return new UnionRows(List.of(new ListRows(rows.columns(), List.of(first)), rows));
    }

    /**
     * An UPDATE or DELETE by one value v of a {@code UNIQUE} secondary lookup (the same shapes as a read's: one table,
     * {@code col = v} a top-level conjunct, the routing column not pinned), run first where this router guesses v's row
     * lives, without the locking fence and the entries; its count if it matched a row (backends count found rows), else
     * null: the write changed nothing there, and the caller runs it as without a guess (fence, entries, the write where
     * they name), which learns the guess. Not for an UPDATE setting a secondary lookup's column (its entries are written
     * for the partitions where it matched rows, in the statement's transaction: {@link RoutedWrite}).
     *
     * <p><b>Why a row matched makes the outcome exact.</b> The write w runs on one partition p. Unlike a read, it reads
     * p's latest committed rows (and its transaction's own) with locks, waiting for rows another transaction holds, at
     * every isolation level and whatever the transaction's snapshots: so no snapshot is compared, as for a write by a
     * lookup key ({@code LookupValidation.Kind.WRITE}). Say it matched row r of value v; r stays locked until w's
     * transaction ends (the statement's, in auto-commit).
     * <ol>
     *   <li><i>No other row of v, committed or in flight.</i> The claim protocol (1. above) keeps at most one row of v at a
     *       time: another writer of v finds the entry naming r's partition and reads r there with a locking read, which
     *       now waits for w, then finds r ({@code 1062}: w does not change v) or r deleted by w (the entry taken over,
     *       after w's transaction, as one MariaDB's unique index orders them). A row of v another transaction wrote before
     *       w locked r could not have been written while r was committed, nor r committed while it was in flight. The
     *       transaction's own row of v elsewhere: its claim would have found r (1062), and nothing of v commits while the
     *       claim holds.
     *   <li><i>A move of r</i> (from s to t) reads and deletes r at s with locks and copies it to t, the target's branch
     *       committed first. If p = s, w either locked r first (the move's locking read waits for w's transaction, then
     *       copies r as w left it) or waited for the move's delete and matched nothing (a miss). If p = t, w waited for the
     *       move's copy to commit and changed it: the copy at s is the move's deleted row, committed next, so the one row
     *       left is w's. A move between the guess and w (the fail point {@code secondary-guess-write}) is one of these.
     *   <li>So w's outcome is one MariaDB's at the moment w locked r: auto-commit and inside transactions alike.
     * </ol>
     * <b>A miss</b> (no row matched: v's row is elsewhere, or none, or the WHERE clause's other conjuncts reject it)
     * changed no row and fired no trigger. Inside a transaction its branch on p matched nothing, so the router counts p
     * as read only ({@code docs/transactions.md}): a branch opened just for the miss does not make a one-partition
     * transaction two-phase. It may hold a gap lock on p's index of the column near v until the transaction ends
     * (REPEATABLE READ, SERIALIZABLE), as a write by a lookup key whose guess missed does: another transaction's insert
     * into that gap on p waits for this one (a wait, or a deadlock InnoDB reports as 1213, one MariaDB would not have),
     * never a different outcome.
     */
    static Result.Count write(Plan.Routed plan, Context ctx) throws SQLException {
        if (plan.secondary() == null || !plan.sets().isEmpty()) return null;
        Object value = Target.uniqueSecondaryValue(ctx, plan.table(), plan.secondary());
        if (value == null) return null;
        SecondaryLookup lookup = plan.secondary().lookup();
        SecondaryGuesses guesses = ctx.stats().secondaryGuesses();
        int p = guesses.get(lookup, value);
        if (p < 0 && ctx.services() != null) guesses.warmOnce(ctx.services().backends(), plan.table(), lookup);
        if (p < 0 || !placedOn(plan.table(), p)) return null;
        org.lutra.placement.FailPoints.reach(org.lutra.placement.FailPoints.SECONDARY_GUESS_WRITE);
        var query = Routes.wholeOn(plan, new int[] {p}, ctx.params());
        Writes.record(ctx.stats(), query);
        long matched;
        try {
            matched = Writes.sum(ctx.shards().update(query));
        } catch (SQLException e) {
            if (org.lutra.placement.PlacementRows.misplaced(e) == null) throw e;
            matched = 0; // a placement trigger refused a copy of a replicated key: the usual path writes every copy
        }
        ctx.stats().secondaryGuess(matched > 0);
        return matched > 0 ? new Result.Count(matched, 1) : null;
    }

    private static boolean placedOn(Target target, int partition) {
        return placedOn(target.table(), partition);
    }

    private static boolean placedOn(org.lutra.catalog.TableDef table, int partition) {
        for (int p : table.partitioning().partitions()) if (p == partition) return true;
        return false;
    }
}
