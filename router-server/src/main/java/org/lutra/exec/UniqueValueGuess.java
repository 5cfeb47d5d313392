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

    private static boolean placedOn(Target target, int partition) {
        for (int p : target.table().partitioning().partitions()) if (p == partition) return true;
        return false;
    }
}
