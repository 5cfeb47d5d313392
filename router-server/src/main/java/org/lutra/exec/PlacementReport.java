package org.lutra.exec;

import org.lutra.placement.PlacementRows;
import org.lutra.backend.Backends;
import org.lutra.backend.ValueCodec;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.KeyType;
import org.lutra.catalog.KeyValues;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.lookup.AdaptiveLookupTable;
import org.lutra.lookup.LookupTable;
import org.lutra.merge.ListRows;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The rows of the placement statements ({@link SessionCommand.ShowPlacement}), read from the router's own
 * state when the statement runs: the catalog, the partition pools, the lookup tables and their
 * counters. SHOW LOOKUP says what this router's lookup table holds, a cache that statements validate
 * against the shards (docs/sql.md, "How a statement is routed"); it asks the key's home partition
 * only whether the key is replicated (its set lives there, not in the cache).
 */
final class PlacementReport {
    private final Backends backends;
    private final Stats stats;

    PlacementReport(Backends backends, Stats stats) {
        this.backends = backends;
        this.stats = stats;
    }

    RowSource answer(SessionCommand.ShowPlacement statement, List<Value> params) throws SQLException {
        return switch (statement) {
            case SessionCommand.ShowPartitions p -> partitions();
            case SessionCommand.ShowLookupTables l -> lookupTables();
            case SessionCommand.ShowLookupSnapshot s -> s.position() ? logPosition() : snapshot();
            case SessionCommand.ShowLookup l -> lookup(l.table(), l.key().resolve(params, ValueCodec::decode));
        };
    }

    /** One row per logical partition: where it lives, what is placed there, its statement pool and its transactions pool now. */
    private RowSource partitions() {
        var columns = List.of(varchar("Partition"), bigint("Id"), varchar("Backend"), varchar("Database"), bigint("Tables"), bigint("Pool_size"),
                bigint("Connections_active"), bigint("Connections_idle"), bigint("Threads_waiting"),
                bigint("Transaction_connections_active"), bigint("Transaction_connections_idle"), bigint("Sub_queries"));
        var rows = new ArrayList<Row>();
        for (var placement : backends.placements()) {
            int id = placement.partition();
            long tables = catalog().tables().stream().filter(t -> Arrays.stream(t.partitioning().partitions()).anyMatch(p -> p == id)).count();
            var pool = placement.pool().getHikariPoolMXBean();
            var transactions = placement.transactions().getHikariPoolMXBean();
            rows.add(row(text(placement.name()), number(id), text(placement.backend()), text(placement.database()), number(tables),
                    number(placement.pool().getMaximumPoolSize()), number(pool.getActiveConnections()), number(pool.getIdleConnections()),
                    number(pool.getThreadsAwaitingConnection()), number(transactions.getActiveConnections()), number(transactions.getIdleConnections()),
                    number(stats.subQueries(id))));
        }
        return new ListRows(columns, rows);
    }

    /** Per partition, the change-log entry up to which every entry is applied here. */
    private RowSource logPosition() {
        long[] positions = stats.logPositions();
        var rows = new ArrayList<Row>();
        for (int p = 0; p < positions.length; p++) rows.add(row(text(catalog().partition(p).name()), number(positions[p])));
        return new ListRows(List.of(varchar("Partition"), bigint("Position")), rows);
    }

    /** Bytes of one row of SHOW LOOKUP SNAPSHOT: a few rows fill a fetch batch (4 MB), well under a frame. */
    static final int SNAPSHOT_CHUNK = 1 << 20;

    /**
     * Every lookup table (owner tables in schema order) in the lookup library's snapshot encoding
     * ({@code org.lutra.lookup.SnapshotAccess}; partitions as catalog ids), cut into rows of at most
     * {@link #SNAPSHOT_CHUNK} bytes: (Table, Chunk, Partial, Data). A dense array travels as its pages.
     */
    private RowSource snapshot() throws SQLException {
        var rows = new ArrayList<Row>();
        for (TableDef t : catalog().tablesInSchemaOrder()) {
            if (!(t.partitioning() instanceof Partitioning.LookedUp lookup) || !lookup.owner().equalsIgnoreCase(t.name())) continue;
            LookupTable serving = lookup.table() instanceof AdaptiveLookupTable a ? a.current() : lookup.table();
            var bytes = new java.io.ByteArrayOutputStream();
            try (var out = new java.io.DataOutputStream(bytes)) {
                org.lutra.lookup.SnapshotAccess.write(serving, out);
            } catch (java.io.IOException e) {
                throw new SQLException("SHOW LOOKUP SNAPSHOT: " + t.name() + ": " + e.getMessage(), "HY000", 0, e);
            }
            byte[] all = bytes.toByteArray();
            for (int from = 0, chunk = 0; from < all.length || chunk == 0; from += SNAPSHOT_CHUNK, chunk++) {
                var data = com.google.protobuf.ByteString.copyFrom(all, from, Math.min(SNAPSHOT_CHUNK, all.length - from));
                rows.add(row(text(t.name()), number(chunk), number(serving instanceof org.lutra.lookup.PartialLookupTable ? 1 : 0),
                        Value.newBuilder().setBytesValue(data).build()));
            }
        }
        return new ListRows(List.of(varchar("Table"), bigint("Chunk"), bigint("Partial"), varbinary("Data")), rows);
    }

    /** One row per lookup table, in schema order: its owner table, the SAME AS tables sharing it, its representation and counters. */
    private RowSource lookupTables() {
        var columns = List.of(varchar("Table"), varchar("Column"), varchar("Same_as"), varchar("Partitions"), bigint("Keys"), varchar("Representation"),
                bigint("Bytes"), bigint("Hits"), bigint("Misses"), bigint("Broadcasts"), bigint("Fallbacks"), bigint("Learned"), bigint("Log_applied"), varchar("Reason"));
        var rows = new ArrayList<Row>();
        for (TableDef t : catalog().tablesInSchemaOrder()) {
            if (!(t.partitioning() instanceof Partitioning.LookedUp lookup) || !lookup.owner().equalsIgnoreCase(t.name())) continue;
            String sameAs = catalog().tablesInSchemaOrder().stream()
                    .filter(o -> o != t && o.partitioning() instanceof Partitioning.LookedUp l && l.table() == lookup.table())
                    .map(TableDef::name).collect(Collectors.joining(", "));
            LookupTable table = lookup.table();
            LookupTable serving = table instanceof AdaptiveLookupTable adaptive ? adaptive.current() : table;
            String reason = table instanceof AdaptiveLookupTable adaptive ? adaptive.reason() : "fixed by the catalog";
            long bytes = table.estimatedBytes();
            var counters = stats.lookup(lookup);
            rows.add(row(text(t.name()), text(lookup.column()), text(sameAs), text(names(lookup.partitions())), number(table.size()),
                    text(serving.getClass().getSimpleName()), bytes < 0 ? NULL : number(bytes), number(counters.hits()), number(counters.misses()),
                    number(counters.broadcasts()), number(counters.fallbacks()), number(counters.learned()), number(counters.logApplied()), text(reason)));
        }
        return new ListRows(columns, rows);
    }

    /**
     * Where {@code table}'s placement puts {@code value}: the rule's partition for hash and range;
     * for a lookup (or SAME AS) table the partitions its entry names, or, with no entry, where
     * DEFAULT NEW places the key. The key is normalized as the column compares it ('7' is 7).
     */
    private RowSource lookup(TableDef table, Object value) throws SQLException {
        var partitioning = table.partitioning();
        String column = partitioning.column();
        var columns = List.of(varchar("Table"), table.keyType() == KeyType.LONG ? bigint("Key") : varchar("Key"), varchar("Partition"), varchar("Source"));
        if (value == null) {
            return one(columns, table, NULL, partitioning.partitions()[0], "NULL: the first partition, as MySQL's own partitioning places it");
        }
        Object key = table.key(value);
        if (key == null) {
            throw new SQLException("'" + value + "' is not one key of " + table.name() + "." + column + " (a " + table.keyType().name().toLowerCase()
                    + " column): MySQL would compare it with several, so statements with it go to every partition", "22007", 1292);
        }
        Object shown = KeyValues.normalize(value, table.keyType()); // as written, but for the normalization: a collation's representative is internal
        Value keyValue = shown instanceof Long l ? number(l) : text(String.valueOf(shown));
        return switch (partitioning) {
            case Partitioning.Hashed h -> one(columns, table, keyValue, h.locate(key), "hash(" + column + ") rule");
            case Partitioning.Ranged r -> {
                int p = r.locate(key);
                yield p == Partitioning.NONE
                        ? new ListRows(columns, List.of(row(text(table.name()), keyValue, NULL, text("range(" + column + ") rule: beyond every partition"))))
                        : one(columns, table, keyValue, p, "range(" + column + ") rule");
            }
            case Partitioning.LookedUp l -> {
                String replicas = replicas(l, key);
                if (replicas != null) {
                    yield new ListRows(columns, List.of(row(text(table.name()), keyValue, text(replicas.replace(",", ", ")),
                            text("home row: replicated, primary " + replicas.split(",")[0] + (l.owner().equalsIgnoreCase(table.name()) ? "" : " (lookup table of " + l.owner() + ")")))));
                }
                var entry = l.table().getAll(key);
                String of = l.owner().equalsIgnoreCase(table.name()) ? "" : " (lookup table of " + l.owner() + ")";
                if (entry.isEmpty()) yield one(columns, table, keyValue, l.placeNew(key), "no entry" + of + ": DEFAULT NEW hash(" + l.ownerColumn() + ")");
                yield new ListRows(columns, List.of(row(text(table.name()), keyValue, text(names(entry.toArray())), text("lookup entry" + of))));
            }
            case Partitioning.Replicated r -> one(columns, table, keyValue, r.partitions()[0], "replicated: every partition");
        };
    }

    /**
     * The partitions {@code key}'s home row names if they are several (a replicated key), else null. The one
     * question SHOW LOOKUP asks a shard: this router's lookup table holds one partition per key (the primary).
     */
    private String replicas(Partitioning.LookedUp lookup, Object key) throws SQLException {
        try (var c = backends.placement(lookup.placeNew(key)).pool().getConnection();
             var ps = c.prepareStatement(PlacementRows.resolveSql(lookup.owner(), 1))) {
            ps.setObject(1, org.lutra.catalog.KeyValues.bindable(key));
            try (var rs = ps.executeQuery()) {
                if (rs.next() && PlacementRows.replicated(rs.getString(2))) return rs.getString(2);
            }
        }
        return null;
    }

    private RowSource one(List<Column> columns, TableDef table, Value key, int partition, String source) {
        return new ListRows(columns, List.of(row(text(table.name()), key, text(catalog().partition(partition).name()), text(source))));
    }

    private Catalog catalog() {
        return backends.catalog();
    }

    private String names(int[] partitions) {
        return Arrays.stream(partitions).mapToObj(p -> catalog().partition(p).name()).collect(Collectors.joining(", "));
    }

    private static final Value NULL = Value.newBuilder().setIsNull(true).build();

    private static Row row(Value... values) {
        return Row.newBuilder().addAllValues(Arrays.asList(values)).build();
    }

    private static Value text(String s) {
        return Value.newBuilder().setStringValue(s).build();
    }

    private static Value number(long n) {
        return Value.newBuilder().setIntValue(n).build();
    }

    private static Column varchar(String name) {
        return Column.newBuilder().setName(name).setLabel(name).setJdbcType(Types.VARCHAR).setTypeName("VARCHAR")
                .setPrecision(1024).setDisplaySize(1024).setNullable(true).build();
    }

    private static Column varbinary(String name) {
        return Column.newBuilder().setName(name).setLabel(name).setJdbcType(Types.VARBINARY).setTypeName("VARBINARY")
                .setPrecision(SNAPSHOT_CHUNK).setDisplaySize(SNAPSHOT_CHUNK).setNullable(false).build();
    }

    private static Column bigint(String name) {
        return Column.newBuilder().setName(name).setLabel(name).setJdbcType(Types.BIGINT).setTypeName("BIGINT")
                .setPrecision(20).setDisplaySize(20).setSigned(true).setNullable(true).build();
    }
}
