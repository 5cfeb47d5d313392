package org.lutra.exec;

import org.lutra.backend.Connections;
import org.lutra.backend.FanOut;
import org.lutra.backend.ShardQuery;
import org.lutra.backend.Warnings;
import org.lutra.catalog.TableDef;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Warning;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Runs a write on every copy of the same rows — every partition of a REPLICATED table, every partition of a replicated
 * key's set — and makes sure it had the same effect on each: the same update count and the same warnings. A copy can
 * differ where the statement meets something that is not the same on every partition (an INSERT IGNORE or UPDATE IGNORE
 * whose unique key meets a row only one partition holds, a foreign key checked per partition, a trigger, rows written
 * behind the router's back); then the statement fails, in its transaction, and nothing of it stays: reads would depend
 * on which copy answers.
 *
 * <p>Each {@link Copies} is one statement on several partitions that hold the same rows; the first partition's count
 * is the client's, and its warnings speak for all (one MariaDB reports them once). Sets run in rounds, each round at
 * most one statement per partition, all of a round's at once; each round waits for the one before.
 */
final class SameEffect {
    private SameEffect() {}

    /** One statement on every partition that holds the same rows ({@code queries}: the same rows, any partitions). */
    record Copies(List<ShardQuery> queries) {}

    /** What one copy's statement did. */
    private record Outcome(long count, Warnings warnings) {}

    /** Runs every set (in the statement's transaction, which the caller made atomic); returns each set's count. */
    static long[] run(FanOut fanOut, Connections c, TableDef table, List<Copies> sets) throws SQLException {
        var outcomes = new ArrayList<List<Outcome>>();
        for (int i = 0; i < sets.size(); i++) outcomes.add(new ArrayList<>(java.util.Collections.nCopies(sets.get(i).queries().size(), null)));
        for (var round : rounds(sets)) {
            var queries = new ArrayList<ShardQuery>();
            var collected = new ArrayList<Warnings>();
            for (int[] at : round) queries.add(sets.get(at[0]).queries().get(at[1]));
            long[] counts = fanOut.updateEach(queries, c, collected);
            for (int k = 0; k < round.size(); k++) {
                int[] at = round.get(k);
                outcomes.get(at[0]).set(at[1], new Outcome(counts[k], collected.get(k)));
            }
        }
        long[] counts = new long[sets.size()];
        for (int i = 0; i < sets.size(); i++) {
            var mine = outcomes.get(i);
            String difference = difference(fanOut, sets.get(i).queries(), mine);
            if (difference != null) {
                var e = new SQLException("Lutra does not support this write of " + table.name() + ": its copies " + difference
                        + " (a unique key, a foreign key or a trigger meeting what only some partitions hold); the statement was rolled back, as"
                        + " the copies must stay identical", Refusal.SQL_STATE, Refusal.VENDOR_CODE);
                c.broken(e);
                throw e;
            }
            counts[i] = mine.getFirst().count();
            Warnings to = c.warnings();
            if (to != null) to.addAll(mine.getFirst().warnings());
        }
        return counts;
    }

    /** Null when every copy counted and warned alike; else what differed, naming the partitions. */
    private static String difference(FanOut fanOut, List<ShardQuery> queries, List<Outcome> outcomes) {
        Outcome first = outcomes.getFirst();
        for (int i = 1; i < outcomes.size(); i++) {
            Outcome o = outcomes.get(i);
            if (o.count() != first.count() || !same(first.warnings(), o.warnings())) {
                return "came out different: " + fanOut.name(queries.getFirst().partition()) + " " + describe(first) + ", "
                        + fanOut.name(queries.get(i).partition()) + " " + describe(o);
            }
        }
        return null;
    }

    private static String describe(Outcome o) {
        var codes = o.warnings().list().stream().map(w -> w.getLevel() + " " + w.getCode()).toList();
        return o.count() + " row(s)" + (codes.isEmpty() ? "" : " and " + codes);
    }

    private static boolean same(Warnings a, Warnings b) {
        if (a.count() != b.count()) return false;
        var x = a.list();
        var y = b.list();
        for (int i = 0; i < x.size(); i++) {
            if (!x.get(i).getLevel().equals(y.get(i).getLevel()) || x.get(i).getCode() != y.get(i).getCode()
                    || !unplaced(x.get(i)).equals(unplaced(y.get(i)))) return false;
        }
        return true;
    }

    /** A warning's message without the partition it names ("[p1@shard1] ...") nor the partition's database. */
    private static String unplaced(Warning w) {
        return w.getMessage().replaceFirst("^\\[[^\\]]*\\] ", "").replaceAll("`[^`]*`\\.", "");
    }

    /** {set, index} pairs in rounds with at most one statement per partition each. */
    private static List<List<int[]>> rounds(List<Copies> sets) {
        var rounds = new ArrayList<List<int[]>>();
        var used = new ArrayList<Set<Integer>>();
        for (int i = 0; i < sets.size(); i++) {
            var partitions = new HashSet<Integer>();
            for (var q : sets.get(i).queries()) partitions.add(q.partition());
            int r = 0;
            while (r < rounds.size() && used.get(r).stream().anyMatch(partitions::contains)) r++;
            if (r == rounds.size()) {
                rounds.add(new ArrayList<>());
                used.add(new HashSet<>());
            }
            for (int k = 0; k < sets.get(i).queries().size(); k++) rounds.get(r).add(new int[] {i, k});
            used.get(r).addAll(partitions);
        }
        return rounds;
    }
}
