package org.lutra.exec;

import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A read of information_schema tables that describe the logical database's tables as only the
 * partitions know them ({@code COLUMNS}, {@code STATISTICS}, {@code KEY_COLUMN_USAGE},
 * {@code TABLE_CONSTRAINTS}, {@code REFERENTIAL_CONSTRAINTS}: ORMs, migration tools and database
 * browsers ask them). Each table's rows are read where its first partition keeps it (every copy
 * of a table has the same definition), its partition database's name becoming the logical one;
 * then the client's statement runs on partition {@code answer} with each reference ({@link Read#marker}
 * in {@code sql}) replaced by a derived table of those rows, as {@code plan.InformationSchema} does
 * for the catalog's tables.
 *
 * <p>The derived table is {@code SELECT cols FROM information_schema.X WHERE <the answering
 * partition's own tables> UNION ALL SELECT <literals of the other partitions' rows> ...}: its first
 * branch gives every column information_schema's own name and type (the literals' types merge into
 * it: text as utf8mb3, integers and their NULLs cast to the column's signedness), so the client sees
 * the types one server gives — where literal rows are there, but for the long text columns
 * (COLUMN_TYPE, COLUMN_DEFAULT, GENERATION_EXPRESSION), which the union widens to LONGTEXT.
 */
public final class PartitionSchemaRows implements Operator {
    /** One information_schema table the statement reads. */
    public record Read(String marker, String table, String schemaColumn) {}

    private final String sql;
    private final List<Read> reads;
    private final String database;
    /** Per partition, the tables whose rows are read there. */
    private final Map<Integer, List<String>> tablesAt;
    private final Target answer;

    public PartitionSchemaRows(String sql, List<Read> reads, String database, Map<Integer, List<String>> tablesAt, Target answer) {
        this.sql = sql;
        this.reads = List.copyOf(reads);
        this.database = database;
        this.tablesAt = tablesAt;
        this.answer = answer;
    }

    @Override
    public RowSource open(Context ctx) throws SQLException {
        String text = sql;
        for (Read read : reads) text = text.replace(read.marker(), derived(read, ctx));
        return new Route(answer, text, null).open(ctx);
    }

    private String derived(Read read, Context ctx) throws SQLException {
        int here = answer.table().partitioning().partitions()[0];
        String from = " FROM information_schema." + read.table() + " WHERE ";
        var queries = new ArrayList<ShardQuery>();
        queries.add(new ShardQuery(here, "SELECT *" + from + "FALSE", List.of())); // the columns, as the answering server has them
        for (var e : tablesAt.entrySet()) {
            if (e.getKey() == here) continue;
            var names = e.getValue().stream().map(n -> Value.newBuilder().setStringValue(n).build()).toList();
            queries.add(new ShardQuery(e.getKey(), "SELECT *" + from + read.schemaColumn() + " = DATABASE() AND TABLE_NAME IN ("
                    + String.join(", ", names.stream().map(n -> "?").toList()) + ")", names));
        }
        ctx.touched(queries);
        var rows = new ArrayList<String>();
        List<Column> columns = null;
        for (RowSource source : ctx.shards().query(queries)) {
            try (source) {
                if (columns == null) columns = source.columns();
                int schema = indexOf(source.columns(), read.schemaColumn());
                for (Row r = source.next(); r != null; r = source.next()) rows.add(literalRow(source.columns(), r, schema));
            }
        }
        // the answering partition's own tables straight from its information_schema: its types exactly, the database renamed
        var items = new ArrayList<String>();
        for (Column c : columns) {
            String name = "`" + c.getLabel().replace("`", "``") + "`";
            items.add(isSchema(c) ? "IF(" + name + " = DATABASE(), " + text(database) + ", " + name + ") AS " + name : name);
        }
        List<String> local = tablesAt.getOrDefault(here, List.of());
        String own = "SELECT " + String.join(", ", items) + from + (local.isEmpty() ? "FALSE"
                : read.schemaColumn() + " = DATABASE() AND TABLE_NAME IN (" + String.join(", ", local.stream().map(PartitionSchemaRows::text).toList()) + ")");
        return "(" + own + (rows.isEmpty() ? "" : " UNION ALL " + String.join(" UNION ALL ", rows)) + ")";
    }

    private static boolean isSchema(Column c) {
        return c.getLabel().toUpperCase(Locale.ROOT).endsWith("_SCHEMA");
    }

    private static int indexOf(List<Column> columns, String name) throws SQLException {
        for (int i = 0; i < columns.size(); i++) if (columns.get(i).getLabel().equalsIgnoreCase(name)) return i;
        throw new SQLException("information_schema answered without " + name, "HY000", 0);
    }

    /** One row as literals; a {@code *_SCHEMA} value naming the partition's database names the logical one. */
    private String literalRow(List<Column> columns, Row row, int schema) throws SQLException {
        String partitionDatabase = row.getValues(schema).getStringValue();
        var items = new ArrayList<String>(columns.size());
        for (int i = 0; i < columns.size(); i++) {
            Column c = columns.get(i);
            Value v = row.getValues(i);
            items.add(switch (v.getKindCase()) {
                case IS_NULL, KIND_NOT_SET -> isInteger(c) ? "CAST(NULL AS " + (c.getSigned() ? "SIGNED" : "UNSIGNED") + ")" : "NULL";
                case STRING_VALUE -> text(isSchema(c) && v.getStringValue().equals(partitionDatabase)
                        ? database : v.getStringValue());
                case INT_VALUE -> "CAST(" + v.getIntValue() + " AS " + (c.getSigned() ? "SIGNED" : "UNSIGNED") + ")";
                case DECIMAL_VALUE -> "CAST(" + new java.math.BigDecimal(v.getDecimalValue()).toPlainString() + " AS " + (c.getSigned() ? "SIGNED" : "UNSIGNED") + ")";
                case TIMESTAMP_VALUE -> "CAST(" + text(v.getTimestampValue()) + " AS DATETIME)";
                default -> throw new SQLException("information_schema column " + c.getLabel() + " holds a " + v.getKindCase()
                        + " value the router cannot restate", "HY000", 0);
            });
        }
        return "SELECT " + String.join(", ", items);
    }

    /** An integer column: its NULLs are cast to its signedness, else the union would make it DECIMAL. */
    private static boolean isInteger(Column c) {
        return c.getJdbcType() == java.sql.Types.BIGINT || c.getJdbcType() == java.sql.Types.INTEGER || c.getJdbcType() == java.sql.Types.SMALLINT
                || c.getJdbcType() == java.sql.Types.TINYINT;
    }

    /** A literal as information_schema holds it: utf8mb3, compared case-insensitively. */
    public static String text(String value) {
        return "_utf8mb3'" + value.replace("\\", "\\\\").replace("'", "''") + "' COLLATE utf8mb3_general_ci";
    }

    @Override
    public String describe() {
        return "PartitionSchemaRows of " + reads.stream().map(Read::table).toList() + " from " + tablesAt;
    }

    @Override
    public List<Operator> inputs() {
        return List.of();
    }
}
