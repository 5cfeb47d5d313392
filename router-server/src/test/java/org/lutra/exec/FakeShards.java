package org.lutra.exec;

import org.lutra.placement.MoveFence;
import org.lutra.placement.Shards;
import org.lutra.backend.ShardQuery;
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
 * {@code \N} is NULL; a write on a partition changes as many rows as {@link #changes} says (none unless told), and an
 * insert on a partition {@link #misplaces} names (an update on one {@link #refusesWrites} names) is refused as the placement
 * trigger refuses it; scratch and locking connections answer with a partition's {@link #placement} rows where it has some.
 * Records what it was asked and which answers were closed, and in {@link #log} everything it was asked, in order.
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

    /** Everything asked, in order: "query p0: SQL [params]", "update p1: ...", "insert p1: ...", "atomic", "p2: ..." (scratch), "locking fence users at p0". */
    final List<String> log = new ArrayList<>();
    /** Rows a write changes, by partition. */
    final Map<Integer, Long> changes = new HashMap<>();
    boolean transactional;
    int isolation = java.sql.Connection.TRANSACTION_REPEATABLE_READ;

    FakeShards changes(int partition, long rows) {
        changes.put(partition, rows);
        return this;
    }

    /** Partitions whose placement trigger refuses every insert ({@link Shards#MISPLACED}): the rows' keys live elsewhere. */
    final java.util.Set<Integer> refusingInserts = new java.util.HashSet<>();

    FakeShards misplaces(int partition) {
        refusingInserts.add(partition);
        return this;
    }

    FakeShards on(int partition, String... rows) {
        this.rows.put(partition, List.of(rows));
        return this;
    }

    /** Rows the scratch and locking connections of a partition answer with (its placement rows), where they differ from {@link #on}'s. */
    final Map<Integer, List<String>> placementRows = new HashMap<>();

    FakeShards placement(int partition, String... rows) {
        placementRows.put(partition, List.of(rows));
        return this;
    }

    /** Partitions where a move batch of every lookup group committed since the transaction's snapshot ({@link #movesSinceSnapshot}). */
    final java.util.Set<Integer> movedSinceSnapshot = new java.util.HashSet<>();

    FakeShards movedSinceSnapshot(int partition) {
        movedSinceSnapshot.add(partition);
        return this;
    }

    /** Partitions whose placement trigger refuses every UPDATE or DELETE: the key's placement row there names another partition. */
    final java.util.Set<Integer> refusingWrites = new java.util.HashSet<>();

    FakeShards refusesWrites(int partition) {
        refusingWrites.add(partition);
        return this;
    }

    @Override
    public List<RowSource> query(List<ShardQuery> queries) {
        var out = new ArrayList<RowSource>();
        for (ShardQuery q : queries) {
            asked.add(q);
            log.add("query " + text(q));
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
                ran("p" + partition + ": " + sql + (params.isEmpty() ? "" : " " + cells(params)));
            }

            @Override
            public RowSource query(String sql, List<Value> params) {
                ran("p" + partition + ": " + sql + (params.isEmpty() ? "" : " " + cells(params)));
                var parsed = new ArrayList<Row>();
                for (String line : placementRows.getOrDefault(partition, rows.getOrDefault(partition, List.of()))) parsed.add(row(line));
                return new ListRows(columns.stream().map(c -> c.toBuilder().setTable(scratchTable).build()).toList(), parsed);
            }

            @Override
            public void close() {
                ran("p" + partition + ": closed");
            }
        };
    }

    private void ran(String line) {
        scratchLog.add(line);
        log.add(line);
    }

    /** As {@link #scratch}: the fake keeps no locks, it records the statements. */
    @Override
    public Scratch locking(int partition) {
        return scratch(partition);
    }

    @Override
    public Scratch inTransaction(int partition) {
        return scratch(partition);
    }

    @Override
    public MoveFence.Held holdFence(String group, int at) {
        log.add("fence " + group + " at p" + at);
        return null;
    }

    @Override
    public MoveFence.Held holdLockingFence(String group, int at) {
        log.add("locking fence " + group + " at p" + at);
        return null;
    }

    @Override
    public boolean transactional() {
        return transactional;
    }

    @Override
    public int isolation() {
        return isolation;
    }

    @Override
    public boolean everyReadLocks() {
        return transactional && isolation == java.sql.Connection.TRANSACTION_SERIALIZABLE;
    }

    /**
     * Inside a transaction where a test named partitions {@link #movedSinceSnapshot}, a check (logged when asked) that finds
     * a move on those among {@code partitions}; elsewhere none, as outside a REPEATABLE READ transaction.
     */
    @Override
    public MovesSince movesSinceSnapshot(String group, java.util.Collection<Integer> partitions) {
        if (!transactional || movedSinceSnapshot.isEmpty()) return null;
        log.add("moves since snapshot " + group + " " + partitions);
        boolean moved = partitions.stream().anyMatch(movedSinceSnapshot::contains);
        return () -> moved;
    }

    @Override
    public void noMoveSinceSnapshot(String group, java.util.Collection<Integer> partitions) {
        log.add("no move since snapshot " + group + " " + partitions);
    }

    /** Partition {@code i} is named {@code "p" + i}. */
    @Override
    public String partitionName(int id) {
        return "p" + id;
    }

    @Override
    public int partitionNamed(String name) {
        return Integer.parseInt(name.substring(1));
    }

    private static String cells(List<Value> values) {
        var out = new ArrayList<String>();
        for (Value v : values) out.add(cell(v));
        return out.toString();
    }

    @Override
    public long[] update(List<ShardQuery> queries) throws java.sql.SQLException {
        long[] counts = new long[queries.size()];
        for (int i = 0; i < counts.length; i++) {
            log.add("update " + text(queries.get(i)));
            if (refusingWrites.contains(queries.get(i).partition())) {
                throw new java.sql.SQLException(org.lutra.backend.Misplaced.MARKER + " p" + queries.get(i).partition(), "45000");
            }
            counts[i] = changes.getOrDefault(queries.get(i).partition(), 0L);
        }
        return counts;
    }

    @Override
    public long[] insert(List<ShardQuery> queries) {
        long[] counts = new long[queries.size()];
        for (int i = 0; i < counts.length; i++) {
            int partition = queries.get(i).partition();
            log.add("insert " + text(queries.get(i)) + (refusingInserts.contains(partition) ? " (refused: misplaced)" : ""));
            counts[i] = refusingInserts.contains(partition) ? MISPLACED : changes.getOrDefault(partition, 0L);
        }
        return counts;
    }

    @Override
    public void atomic() {
        log.add("atomic");
    }

    private static String text(ShardQuery q) {
        return "p" + q.partition() + ": " + q.sql() + (q.params().isEmpty() ? "" : " " + cells(q.params()));
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
