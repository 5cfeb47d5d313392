package org.lutra.exec;

import org.lutra.merge.RowSource;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A read of {@code information_schema.TABLE_CONSTRAINTS} for the logical database (Flyway asks
 * whether a schema is empty with it): each table's constraints are read where its first partition
 * keeps it (every copy of a table has the same definition), then the client's statement runs on
 * partition {@code answerPartition} with each reference ({@code marker} in {@code sql}) replaced by
 * a derived table of those rows, as {@code plan.InformationSchema} does for the catalog's tables.
 */
public final class TableConstraints implements Operator {
    private final String sql;
    private final String marker;
    private final String database;
    /** Per partition, the tables whose constraints are read there. */
    private final Map<Integer, List<String>> tablesAt;
    private final Target answer;

    public TableConstraints(String sql, String marker, String database, Map<Integer, List<String>> tablesAt, Target answer) {
        this.sql = sql;
        this.marker = marker;
        this.database = database;
        this.tablesAt = tablesAt;
        this.answer = answer;
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        var queries = new ArrayList<ShardQuery>();
        for (var e : tablesAt.entrySet()) {
            var names = e.getValue().stream().map(n -> Value.newBuilder().setStringValue(n).build()).toList();
            queries.add(new ShardQuery(e.getKey(), "SELECT CONSTRAINT_NAME, TABLE_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS"
                    + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (" + String.join(", ", names.stream().map(n -> "?").toList())
                    + ") ORDER BY TABLE_NAME, CONSTRAINT_NAME", names));
        }
        var rows = new ArrayList<String>();
        if (!queries.isEmpty()) {
            ctx.touched(queries);
            for (RowSource source : ctx.shards().query(queries)) {
                try (source) {
                    for (Row r = source.next(); r != null; r = source.next()) {
                        rows.add("SELECT " + text("def") + " AS CONSTRAINT_CATALOG, " + text(database) + " AS CONSTRAINT_SCHEMA, "
                                + text(r.getValues(0).getStringValue()) + " AS CONSTRAINT_NAME, " + text(database) + " AS TABLE_SCHEMA, "
                                + text(r.getValues(1).getStringValue()) + " AS TABLE_NAME, " + text(r.getValues(2).getStringValue())
                                + " AS CONSTRAINT_TYPE");
                    }
                }
            }
        }
        String derived = rows.isEmpty()
                ? "(SELECT " + String.join(", ", List.of("CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME", "TABLE_SCHEMA", "TABLE_NAME",
                        "CONSTRAINT_TYPE").stream().map(c -> text("") + " AS " + c).toList()) + " FROM DUAL WHERE FALSE)"
                : "(" + String.join(" UNION ALL ", rows) + ")";
        return new Route(answer, sql.replace(marker, derived), null).open(ctx);
    }

    /** A literal as information_schema holds it: utf8mb3, compared case-insensitively. */
    public static String text(String value) {
        return "_utf8mb3'" + value.replace("\\", "\\\\").replace("'", "''") + "' COLLATE utf8mb3_general_ci";
    }

    @Override
    public String describe() {
        return "TableConstraints of " + tablesAt;
    }

    @Override
    public List<Operator> inputs() {
        return List.of();
    }
}
