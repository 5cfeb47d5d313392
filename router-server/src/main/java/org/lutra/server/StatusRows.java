package org.lutra.server;

import org.lutra.merge.ListRows;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;

/** SHOW LUTRA STATUS: (Variable_name, Value) rows, as MySQL's SHOW STATUS, read off the running router. */
final class StatusRows {
    private StatusRows() {}

    /** SHOW LUTRA STATUS of {@code server}. */
    static RowSource of(RouterServer server) {
        var transactions = server.transactions();
        var txn = transactions.stats();
        var values = new LinkedHashMap<String, Object>();
        values.put("sessions", server.openSessions());
        values.put("backend_connections_active", server.activeBackendConnections());
        var stats = server.stats();
        values.put("plan_cache_bytes", server.planner().cachedPlanBytes());
        values.put("statements_single_partition", stats.singlePartition());
        values.put("statements_multi_partition", stats.multiPartition());
        values.put("statements_by_partitions", stats.statementPartitions().toString());
        values.put("lookup_fallbacks", stats.fallbacks());
        values.put("lookup_learned", stats.learned());
        var from = server.started();
        values.put("lookup_start_source", from == null ? "warming up" : from.source());
        values.put("lookup_start_ms", from == null ? "" : from.millis());
        values.put("lookup_log_position", java.util.Arrays.toString(server.tailer().positions()));
        values.put("txn_one_phase_commits", txn.onePhaseCommits.sum());
        values.put("txn_two_phase_commits", txn.twoPhaseCommits.sum());
        values.put("txn_by_partitions", txn.partitions.toString());
        values.put("txn_rollbacks", txn.rollbacks.sum());
        values.put("txn_aborts", txn.aborts.sum());
        values.put("txn_read_only_branches", txn.readOnlyBranches.sum());
        values.put("txn_prepare_ms_mean", String.format(Locale.ROOT, "%.3f", txn.prepare.meanMillis()));
        values.put("txn_decision_ms_mean", String.format(Locale.ROOT, "%.3f", txn.decision.meanMillis()));
        values.put("txn_commit_ms_mean", String.format(Locale.ROOT, "%.3f", txn.commit.meanMillis()));
        values.put("deadlocks_detected", txn.deadlocksDetected.sum());
        values.put("deadlocks_by_timeout", txn.deadlocksByTimeout.sum());
        values.put("deadlock_checks", txn.deadlockChecks.sum());
        values.put("deadlock_restarts", txn.deadlockRestarts.sum());
        values.put("xa_in_doubt_branches", transactions.recovery().inDoubt());
        values.put("xa_unreachable_partitions", transactions.recovery().unreachable());
        values.put("xa_recovered_commits", txn.recoveredCommits.sum());
        values.put("xa_recovered_rollbacks", txn.recoveredRollbacks.sum());
        var rows = new ArrayList<Row>();
        values.forEach((name, value) -> rows.add(Row.newBuilder()
                .addValues(Value.newBuilder().setStringValue(name)).addValues(Value.newBuilder().setStringValue(String.valueOf(value))).build()));
        return new ListRows(List.of(textColumn("Variable_name"), textColumn("Value")), rows);
    }

    private static Column textColumn(String name) {
        return Column.newBuilder().setName(name).setLabel(name).setJdbcType(Types.VARCHAR).setTypeName("VARCHAR")
                .setPrecision(64).setDisplaySize(64).setNullable(false).build();
    }

}
