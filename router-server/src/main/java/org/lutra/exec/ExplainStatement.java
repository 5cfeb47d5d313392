package org.lutra.exec;

import org.lutra.backend.Connections;
import org.lutra.backend.ShardQuery;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.List;

/**
 * EXPLAIN of a plan: plain EXPLAIN is MySQL's own plan where one partition runs the whole statement;
 * EXPLAIN ROUTE (FORMAT=LUTRA) the router's operator tree and the SQL each partition gets
 * (docs/architecture.md, "EXPLAIN ROUTE").
 */
final class ExplainStatement {
    private ExplainStatement() {}

    /** The rows of EXPLAIN or EXPLAIN ROUTE of {@code plan.statement()}. */
    static Result run(Executor executor, Plan.Explain plan, List<Value> params, Connections c) throws SQLException {
        var backends = executor.backends();
        var fanOut = executor.fanOut();
        if (!plan.route()) {
            // plain EXPLAIN: MySQL's own plan, where one partition runs the whole statement
            if (plan.statement() instanceof Plan.Query q && q.root() instanceof Choice select) {
                var ctx = new Context(params, executor.shards(c), executor.stats());
                try {
                    if (select.chosen(ctx) instanceof Route route) {
                        var queries = route.shardQueries(ctx);
                        if (queries.size() == 1) {
                            var only = queries.getFirst();
                            var rows = fanOut.query(List.of(new ShardQuery(only.partition(), "EXPLAIN " + only.sql(), only.params())), c);
                            return new Result.Rows(ctx.releasing(rows.getFirst()), 1);
                        }
                    }
                    ctx.release();
                } catch (SQLException | RuntimeException e) {
                    ctx.release();
                    throw e;
                }
            }
            throw Refusal.of("EXPLAIN of a statement over several partitions: use EXPLAIN ROUTE to see the router's plan");
        }
        var ctx = Context.explain(params, new Stats(backends.placements().size()));
        List<Explain.Line> lines = Explain.route(plan.statement(), ctx, backends.catalog());
        return textRows(List.of("operator", "partition", "sql"), lines.stream().map(l -> List.of(l.operator(), l.partition(), l.sql())).toList());
    }

    /** Rows of text columns, as the router answers itself (EXPLAIN, SHOW TABLES, SHOW DATABASES). */
    static Result.Rows textRows(List<String> labels, List<List<String>> values) {
        var columns = labels.stream().map(ExplainStatement::textColumn).toList();
        var out = values.stream().map(r -> {
            var b = org.lutra.protocol.Row.newBuilder();
            r.forEach(v -> b.addValues(text(v)));
            return b.build();
        }).toList();
        return new Result.Rows(new org.lutra.merge.ListRows(columns, out), 0);
    }

    private static Value text(String s) {
        return Value.newBuilder().setStringValue(s).build();
    }

    private static org.lutra.protocol.Column textColumn(String name) {
        return org.lutra.protocol.Column.newBuilder().setName(name).setLabel(name).setJdbcType(java.sql.Types.VARCHAR).setTypeName("VARCHAR")
                .setPrecision(1024).setDisplaySize(1024).setNullable(false).build();
    }
}
