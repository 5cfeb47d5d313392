package org.lutra.exec;

import org.lutra.merge.ListRows;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Shards for operator tests: each partition answers every query with rows written as text,
 * {@code "1|ann|0041"} under columns declared as {@code "id:INT", "name:VARCHAR", "w:VARBINARY"};
 * {@code \N} is NULL. Records what it was asked and which answers were closed.
 */
final class FakeShards implements Shards {
    final Map<Integer, List<String>> rows = new HashMap<>();
    final List<ShardQuery> asked = new ArrayList<>();
    final List<Integer> closed = new ArrayList<>();
    private final List<Column> columns;

    FakeShards(String... columns) {
        this.columns = new ArrayList<>();
        for (String c : columns) {
            String[] p = c.split(":");
            int type = switch (p[1]) {
                case "INT" -> Types.INTEGER;
                case "BIGINT" -> Types.BIGINT;
                case "DECIMAL" -> Types.DECIMAL;
                case "DOUBLE" -> Types.DOUBLE;
                case "VARBINARY" -> Types.VARBINARY;
                case "ENUM" -> Types.CHAR;
                default -> Types.VARCHAR;
            };
            int scale = p.length > 2 ? Integer.parseInt(p[2]) : 0;
            this.columns.add(Column.newBuilder().setName(p[0]).setLabel(p[0]).setJdbcType(type).setTypeName(p[1]).setScale(scale).setPrecision(10).build());
        }
    }

    FakeShards on(int partition, String... rows) {
        this.rows.put(partition, List.of(rows));
        return this;
    }

    @Override
    public List<RowSource> query(List<ShardQuery> queries) {
        var out = new ArrayList<RowSource>();
        for (ShardQuery q : queries) {
            asked.add(q);
            var parsed = new ArrayList<Row>();
            for (String line : rows.getOrDefault(q.partition(), List.of())) parsed.add(row(line));
            int partition = q.partition();
            var list = new ListRows(columns, parsed);
            out.add(new RowSource() {
                @Override
                public List<Column> columns() {
                    return list.columns();
                }

                @Override
                public Row next() {
                    return list.next();
                }

                @Override
                public void close() {
                    closed.add(partition);
                }
            });
        }
        return out;
    }

    private Row row(String line) {
        var b = Row.newBuilder();
        String[] cells = line.split("\\|", -1);
        for (int i = 0; i < cells.length; i++) {
            String cell = cells[i];
            var v = Value.newBuilder();
            if (cell.equals("\\N")) v.setIsNull(true);
            else switch (columns.get(i).getJdbcType()) {
                case Types.INTEGER, Types.BIGINT -> v.setIntValue(Long.parseLong(cell));
                case Types.DECIMAL -> v.setDecimalValue(cell);
                case Types.DOUBLE -> v.setDoubleValue(Double.parseDouble(cell));
                case Types.VARBINARY -> v.setBytesValue(com.google.protobuf.ByteString.fromHex(cell));
                default -> v.setStringValue(cell);
            }
            b.addValues(v);
        }
        return b.build();
    }

    /** What scratch connections ran, in order: "p0: SQL [params as text]", "p0: closed" when one is given back. */
    final List<String> scratchLog = new ArrayList<>();
    /** The table the columns of a scratch connection's answers name (MySQL's original table of each column). */
    String scratchTable = "";

    /** A scratch connection that records what it runs; its queries answer with the partition's rows. */
    @Override
    public Scratch scratch(int partition) {
        return new Scratch() {
            @Override
            public void execute(String sql, List<Value> params) {
                scratchLog.add("p" + partition + ": " + sql + (params.isEmpty() ? "" : " " + cells(params)));
            }

            @Override
            public RowSource query(String sql, List<Value> params) {
                scratchLog.add("p" + partition + ": " + sql + (params.isEmpty() ? "" : " " + cells(params)));
                var parsed = new ArrayList<Row>();
                for (String line : rows.getOrDefault(partition, List.of())) parsed.add(row(line));
                return new ListRows(columns.stream().map(c -> c.toBuilder().setTable(scratchTable).build()).toList(), parsed);
            }

            @Override
            public void close() {
                scratchLog.add("p" + partition + ": closed");
            }
        };
    }

    private static String cells(List<Value> values) {
        var out = new ArrayList<String>();
        for (Value v : values) out.add(cell(v));
        return out.toString();
    }

    @Override
    public long[] update(List<ShardQuery> queries) {
        throw new UnsupportedOperationException("reads only");
    }

    @Override
    public void atomic() {
    }

    /** Every row of {@code rows} as text, cells joined by '|'. */
    static List<String> text(RowSource rows) throws java.sql.SQLException {
        var out = new ArrayList<String>();
        Row r;
        while ((r = rows.next()) != null) {
            var cells = new ArrayList<String>();
            for (Value v : r.getValuesList()) cells.add(cell(v));
            out.add(String.join("|", cells));
        }
        rows.close();
        return out;
    }

    private static String cell(Value v) {
        return switch (v.getKindCase()) {
            case IS_NULL, KIND_NOT_SET -> "\\N";
            case INT_VALUE -> String.valueOf(v.getIntValue());
            case DECIMAL_VALUE -> v.getDecimalValue();
            case DOUBLE_VALUE -> String.valueOf(v.getDoubleValue());
            case BYTES_VALUE -> java.util.HexFormat.of().formatHex(v.getBytesValue().toByteArray());
            default -> v.getStringValue();
        };
    }
}
