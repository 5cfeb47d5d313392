package org.lutra.exec;

import org.lutra.backend.ShardQuery;
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
 * of a table has the same definition), its partition database's name becoming the logical one
 * (STATISTICS.CARDINALITY, the server's estimate of an index's distinct keys, is the sum over the partitions
 * holding the table's rows, every row then a literal);
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
    /** Per partition, the tables whose rows it holds (one copy of a replicated table): where STATISTICS.CARDINALITY is summed. */
    private final Map<Integer, List<String>> rowsAt;
    private final Target answer;

    public PartitionSchemaRows(String sql, List<Read> reads, String database, Map<Integer, List<String>> tablesAt,
                               Map<Integer, List<String>> rowsAt, Target answer) {
        this.sql = sql;
        this.reads = List.copyOf(reads);
        this.database = database;
        this.tablesAt = tablesAt;
        this.rowsAt = rowsAt;
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
        // with summed cardinalities every row is a literal, the answering partition's own too
        Map<String, Long> cardinalities = read.table().equals("STATISTICS") ? cardinalities(ctx) : null;
        var queries = new ArrayList<ShardQuery>();
        queries.add(new ShardQuery(here, "SELECT *" + from + "FALSE", List.of())); // the columns, as the answering server has them
        for (var e : tablesAt.entrySet()) {
            if (e.getKey() == here && cardinalities == null) continue;
            queries.add(tablesOf(e.getKey(), "SELECT *" + from + read.schemaColumn(), e.getValue()));
        }
        ctx.touched(queries);
        var rows = new ArrayList<String>();
        List<Column> columns = null;
        for (RowSource source : ctx.shards().query(queries)) {
            try (source) {
                if (columns == null) columns = source.columns();
                int schema = indexOf(source.columns(), read.schemaColumn());
                for (Row r = source.next(); r != null; r = source.next()) {
                    rows.add(literalRow(source.columns(), cardinalities == null ? r : withCardinality(source.columns(), r, cardinalities), schema));
                }
            }
        }
        // the answering partition's own tables straight from its information_schema: its types exactly, the database renamed
        var items = new ArrayList<String>();
        for (Column c : columns) {
            String name = "`" + c.getLabel().replace("`", "``") + "`";
            items.add(isSchema(c) ? "IF(" + name + " = DATABASE(), " + text(database) + ", " + name + ") AS " + name : name);
        }
        List<String> local = cardinalities != null ? List.of() : tablesAt.getOrDefault(here, List.of());
        String own = "SELECT " + String.join(", ", items) + from + (local.isEmpty() ? "FALSE"
                : read.schemaColumn() + " = DATABASE() AND TABLE_NAME IN (" + String.join(", ", local.stream().map(PartitionSchemaRows::text).toList()) + ")");
        return "(" + own + (rows.isEmpty() ? "" : " UNION ALL " + String.join(" UNION ALL ", rows)) + ")";
    }

    /** {@code sql} (ending in a schema column) for {@code tables} of the partition's database, their names bound. */
    private static ShardQuery tablesOf(int partition, String sql, List<String> tables) {
        var names = tables.stream().map(n -> Value.newBuilder().setStringValue(n).build()).toList();
        return new ShardQuery(partition, sql + " = DATABASE() AND TABLE_NAME IN (" + String.join(", ", names.stream().map(n -> "?").toList())
                + ")", names);
    }

    /** Each index column's CARDINALITY summed over the partitions holding the table's rows (null where none knows it), by {@link #key}. */
    private Map<String, Long> cardinalities(Context ctx) throws SQLException {
        var queries = new ArrayList<ShardQuery>();
        for (var e : rowsAt.entrySet()) {
            queries.add(tablesOf(e.getKey(), "SELECT TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_SCHEMA",
                    e.getValue()));
        }
        ctx.touched(queries);
        var sums = new java.util.HashMap<String, Long>();
        for (RowSource source : ctx.shards().query(queries)) {
            try (source) {
                for (Row r = source.next(); r != null; r = source.next()) {
                    String key = key(r.getValues(0).getStringValue(), r.getValues(1).getStringValue(), integer(r.getValues(2)));
                    Value n = r.getValues(3);
                    if (n.getKindCase() == Value.KindCase.IS_NULL || n.getKindCase() == Value.KindCase.KIND_NOT_SET) sums.putIfAbsent(key, null);
                    else sums.merge(key, integer(n), (a, b) -> a == null ? b : b == null ? a : a + b);
                }
            }
        }
        return sums;
    }

    private static String key(String table, String index, long seq) {
        return table + "\0" + index + "\0" + seq;
    }

    private static long integer(Value v) {
        return v.getKindCase() == Value.KindCase.DECIMAL_VALUE ? new java.math.BigDecimal(v.getDecimalValue()).longValueExact() : v.getIntValue();
    }

    /** {@code row} of STATISTICS with its CARDINALITY the whole table's. */
    private static Row withCardinality(List<Column> columns, Row row, Map<String, Long> sums) throws SQLException {
        int table = indexOf(columns, "TABLE_NAME"), index = indexOf(columns, "INDEX_NAME"), seq = indexOf(columns, "SEQ_IN_INDEX");
        int cardinality = indexOf(columns, "CARDINALITY");
        Long sum = sums.get(key(row.getValues(table).getStringValue(), row.getValues(index).getStringValue(), integer(row.getValues(seq))));
        Value v = sum == null ? Value.newBuilder().setIsNull(true).build() : Value.newBuilder().setIntValue(sum).build();
        return row.toBuilder().setValues(cardinality, v).build();
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
