package org.lutra.exec;

import org.lutra.backend.Connections;
import org.lutra.backend.InsertIdReading;
import org.lutra.backend.ValueCodec;
import org.lutra.backend.WrittenPartitions;
import org.lutra.placement.SecondaryEntries;
import org.lutra.catalog.Partitioning;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs {@link Plan.Routed}, an UPDATE or DELETE of one table: the router's foreign keys first where it enforces some
 * ({@link ReferentialWrite}); then the rows, on a REPLICATED table's every copy ({@link ReplicaWrite}), where the keys the
 * WHERE names live ({@link KeyedWrite}), or where a secondary lookup's entries say, else everywhere ({@link UnkeyedWrite});
 * with what the UPDATE asks besides: the entries of a secondary lookup's column it sets, and the session's
 * LAST_INSERT_ID() where its SET has {@code LAST_INSERT_ID(expr)}.
 */
final class RoutedWrite {
    private RoutedWrite() {}

    static Result.Count run(Plan.Routed plan, Context ctx) throws SQLException {
        if (plan.references() != null) return ReferentialWrite.run(plan, ctx);
        if (plan.setsInsertId()) return settingInsertId(plan, ctx);
        return plan.sets().isEmpty() ? rows(plan, ctx) : settingSecondaries(plan, ctx);
    }

    /**
     * An UPDATE with {@code c = LAST_INSERT_ID(expr)} in its SET, on one partition (or every replica alike):
     * the session's LAST_INSERT_ID() becomes what the OK packet of the backend that matched rows carried.
     */
    private static Result.Count settingInsertId(Plan.Routed plan, Context ctx) throws SQLException {
        if (!plan.sets().isEmpty()) {
            // the secondary lookup's entries are written through the same connections: only the UPDATE's own OK packets may count
            throw Refusal.of("Lutra does not support LAST_INSERT_ID(expr) in an UPDATE that also sets a secondary lookup's column of "
                    + plan.table().name());
        }
        var reading = new InsertIdReading(ctx.connections());
        var done = rows(plan, ctx.over(reading));
        return new Result.Count(done.count(), done.partitions(), done.keys(), done.generated(), reading.value());
    }

    /** UPDATE of a secondary lookup's columns: its value's entries, for the partitions where rows now have it, in the same transaction. */
    private static Result.Count settingSecondaries(Plan.Routed plan, Context ctx) throws SQLException {
        List<Value> params = ctx.params();
        var keys = new ArrayList<Object>();
        for (var set : plan.sets()) {
            var raw = new Object[set.values().size()];
            for (int c = 0; c < raw.length; c++) raw[c] = set.values().get(c).resolve(params, ValueCodec::decode);
            keys.add(SecondaryKeys.of(plan.table(), set.lookup(), SecondaryKeys.written(plan.table(), set.lookup(), raw)));
        }
        Connections c = ctx.connections();
        c.atomic();
        var written = new WrittenPartitions(c);
        Result.Count result = rows(plan, ctx.over(written));
        for (int i = 0; i < plan.sets().size(); i++) {
            if (keys.get(i) == null) continue;
            var entries = new ArrayList<SecondaryEntries.Entry>();
            for (int p : written.partitions()) entries.add(new SecondaryEntries.Entry(keys.get(i), p));
            SecondaryEntries.write(ctx.shards(), plan.table(), plan.sets().get(i).lookup(), entries);
        }
        return result;
    }

    /** The rows themselves: every copy of a REPLICATED table's, the named keys', or the rows wherever they are. */
    private static Result.Count rows(Plan.Routed plan, Context ctx) throws SQLException {
        if (plan.table().partitioning() instanceof Partitioning.Replicated r) {
            return ctx.services().replicas().onReplicatedTable(plan, r, ctx.params(), ctx.connections());
        }
        Object[] keys = Routes.keys(plan, ctx.params());
        ctx.trace().write(plan.table().name(), keys);
        return keys == null ? UnkeyedWrite.run(plan, ctx) : KeyedWrite.run(plan, keys, ctx);
    }
}
