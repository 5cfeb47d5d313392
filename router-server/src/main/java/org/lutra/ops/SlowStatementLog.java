package org.lutra.ops;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.lutra.config.RouterConfig;
import org.lutra.exec.Node;
import org.lutra.exec.RouterMetrics;
import org.lutra.backend.ValueCodec;
import org.lutra.exec.Plan;
import org.lutra.exec.Planned;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * One JSON line on logger {@code lutra.slow} per client statement slower than the config's
 * {@code slow_log.threshold_ms}: its kind, outcome, plan summary, partitions, total, router and
 * backend times, and its text (escaped and cut); parameter values only with {@code parameters: true},
 * since they are an application's data.
 */
final class SlowStatementLog implements RouterMetrics {
    static final String LOGGER = "lutra.slow";
    private static final Logger log = LoggerFactory.getLogger(LOGGER);
    /** JSON escapes control characters (no forged lines, no terminal escapes); non-ASCII too, so the line is plain ASCII. */
    private static final ObjectMapper JSON = new ObjectMapper().configure(com.fasterxml.jackson.core.json.JsonWriteFeature.ESCAPE_NON_ASCII.mappedFeature(), true);
    private static final int MAX_SQL = 2000;
    private static final int MAX_PLAN = 400;

    private final long thresholdNanos;
    private final boolean parameters;

    SlowStatementLog(RouterConfig.SlowLog config) {
        this.thresholdNanos = config.thresholdMillis() * 1_000_000L;
        this.parameters = config.parameters();
    }

    @Override
    public void statement(Planned plan, String sql, List<Value> params, int partitions, SQLException error, long nanos, long backendNanos) {
        if (nanos < thresholdNanos) return;
        log.info(line(plan, sql, params, partitions, error, nanos, backendNanos));
    }

    String line(Planned plan, String sql, List<Value> params, int partitions, SQLException error, long nanos, long backendNanos) {
        var fields = new LinkedHashMap<String, Object>();
        fields.put("event", "slow_statement");
        fields.put("kind", StatementKind.of(sql).label);
        fields.put("outcome", outcome(error));
        fields.put("ms", millis(nanos));
        fields.put("router_ms", millis(Math.max(0, nanos - backendNanos)));
        fields.put("backend_ms", millis(backendNanos));
        fields.put("partitions", partitions);
        fields.put("plan", summary(plan));
        if (error != null) {
            fields.put("sqlstate", error.getSQLState());
            fields.put("error_code", error.getErrorCode());
        }
        fields.put("sql", sql == null ? null : cut(sql, MAX_SQL));
        if (parameters && params != null && !params.isEmpty()) {
            var values = new ArrayList<String>();
            for (var v : params) values.add(cut(String.valueOf(ValueCodec.decode(v)), 200));
            fields.put("params", values);
        } else if (params != null && !params.isEmpty()) {
            fields.put("params", params.size() + " not logged (slow_log.parameters: false)");
        }
        try {
            return JSON.writeValueAsString(fields);
        } catch (JsonProcessingException e) {
            return "{\"event\":\"slow_statement\",\"error\":\"unprintable\"}";
        }
    }

    static String outcome(SQLException error) {
        if (error == null) return "answered";
        return Refusal.is(error) ? "refused" : "error";
    }

    /** {@code text} cut at {@code max} characters, its length said where it was cut. */
    static String cut(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "... (" + text.length() + " characters)";
    }

    private static double millis(long nanos) {
        return Math.round(nanos / 1e3) / 1e3;
    }

    /** What the plan does, in a line: its tree for a read or a write, its kind otherwise. */
    static String summary(Planned plan) {
        String s = switch (plan) {
            case null -> "none (a batch, or refused before planning)";
            case Plan.Query q -> tree(q.root());
            case Plan.Writing w -> tree(w);
            case Plan.OnePartition o -> "one partition (" + o.partition() + ")";
            case Plan.Explain e -> "explain";
            default -> plan.getClass().getSimpleName();
        };
        return cut(s, MAX_PLAN);
    }

    private static String tree(Node op) {
        var b = new StringBuilder(op.describe());
        if (!op.inputs().isEmpty()) {
            b.append(" <- [");
            for (int i = 0; i < op.inputs().size(); i++) b.append(i == 0 ? "" : ", ").append(tree(op.inputs().get(i)));
            b.append(']');
        }
        return b.length() > MAX_PLAN ? b.substring(0, MAX_PLAN) : b.toString();
    }
}
