package org.lutra.exec;

import org.lutra.backend.Connections;
import org.lutra.backend.ValueCodec;
import org.lutra.backend.Warnings;
import org.lutra.catalog.ColumnType;
import org.lutra.catalog.ForeignKey;
import org.lutra.catalog.StoredValue;
import org.lutra.catalog.TableDef;
import org.lutra.merge.RowSource;
import org.lutra.sql.ValueRef;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The child side of the foreign keys the router enforces (docs/foreign-keys.md): a row an INSERT writes, or the values an
 * UPDATE's SET gives, must reference a parent row that exists. The router asks the parent table through its own planner
 * (any placement, lookups validated) with {@code LOCK IN SHARE MODE}, in the statement's transaction — the lock InnoDB's
 * own check takes, so the parent row cannot be deleted or changed before the transaction ends — and then writes the rows
 * with the shards' checks off ({@link Connections#foreignKeyChecksOff}), where a shard would look for the parent on its own partition
 * only.
 *
 * <p>As MariaDB: a key with a NULL column is not checked (MATCH SIMPLE); the value checked is the one the column stores
 * ({@link StoredValue}); a row without its parent fails the statement with 1452, or with IGNORE is left out with warning
 * 1452; a row may reference a row the same INSERT wrote before it.
 *
 * <p>In {@code exec}, not {@code placement}: its probes are statements the router plans ({@code Plan.Statements}) and runs
 * through the {@link Executor} (which counts them in {@code Stats}), and it reads {@code Plan.Insert}; placement, below
 * exec, could reach none of them.
 */
final class ForeignKeyChecks {
    /** Parent keys asked for in one statement. */
    private static final int CHUNK = 200;

    private ForeignKeyChecks() {}

    /** {@code c} whose writes run with the shards' foreign key checks off. */
    static Connections checksOff(Connections c) {
        return new Connections.Forwarding(c) {
            @Override
            public boolean foreignKeyChecksOff() {
                return true;
            }
        };
    }

    /** Whether the session set foreign_key_checks off: then MariaDB checks nothing, cascades nothing, and neither does the router. */
    static boolean offInSession(Connections c) {
        String v = c.variables().values().get("foreign_key_checks");
        return v != null && v.replace("'", "").matches("(?i)0|OFF|FALSE");
    }

    /** The router's checks need MariaDB's per-statement variables. */
    static void requireMariaDb(Executor executor, ForeignKey fk) throws SQLException {
        if (!executor.mariaDb()) {
            throw Refusal.of("writes that foreign key " + fk.name() + " of " + fk.child() + " checks across partitions on backends other than"
                    + " MariaDB (the router turns the shards' own check off per statement with SET STATEMENT)");
        }
    }

    /**
     * An INSERT's rows checked against their parents: which rows to leave out (IGNORE), in the statement's transaction.
     * Throws MariaDB's 1452 for the first row without its parent otherwise.
     */
    static boolean[] insert(Executor executor, Plan.Insert plan, List<Value> params, Connections c) throws SQLException {
        var refs = plan.references();
        int rows = plan.rows().itemCount();
        var skip = new boolean[rows];
        if (offInSession(c)) return skip;
        TableDef table = plan.table();
        var missing = new ArrayList<Map.Entry<Integer, ForeignKey>>(); // rows without a parent, in row order
        var strictlyRefused = new boolean[rows];
        var failing = new HashMap<Integer, ForeignKey>();
        for (var key : refs.keys()) {
            ForeignKey fk = key.fk();
            requireMariaDb(executor, fk);
            TableDef parent = executor.catalog().table(fk.parent());
            var tuples = new ArrayList<List<Object>>();
            for (int r = 0; r < rows; r++) {
                var stored = stored(table, fk.columns(), key.perRow().get(r), params);
                tuples.add(stored == null ? null : stored.values());
                if (stored != null && stored.refusedWhenStrict()) strictlyRefused[r] = true;
            }
            var distinct = new ArrayList<List<Object>>();
            var seen = new java.util.HashSet<List<Object>>();
            for (var t : tuples) if (t != null && seen.add(t)) distinct.add(t);
            var found = exist(executor, parent, fk, distinct, refs.statements(), c);
            var earlier = new java.util.HashSet<List<Object>>(); // a self-reference may name a row this INSERT wrote before
            for (int r = 0; r < rows; r++) {
                var t = tuples.get(r);
                if (fk.selfReferencing()) { // a row may reference itself, or a row this INSERT wrote before it
                    var own = stored(table, fk.referenced(), referencedRefs(plan, fk, r), params);
                    if (own != null) earlier.add(own.values());
                }
                boolean ok = t == null || found.get(t);
                if (!ok && fk.selfReferencing() && earlier.contains(t)) {
                    if (refs.ignore()) {
                        throw Refusal.of("INSERT IGNORE of " + table.name() + " rows that reference rows of the same statement through foreign key "
                                + fk.name() + ", which the router enforces (an earlier row the backend skips would leave them without a parent)");
                    }
                    ok = true;
                }
                if (!ok && !failing.containsKey(r)) failing.put(r, fk);
            }
        }
        if (failing.isEmpty()) return skip;
        // MariaDB finds a row that repeats the primary key before it looks for the row's parent: such a row goes to its
        // partition, which reports the duplicate (or, ON DUPLICATE KEY UPDATE, updates the row it repeats)
        var duplicates = Duplicates.of(executor, table, refs, params, failing.keySet(), c);
        for (int r = 0; r < rows; r++) if (failing.containsKey(r) && !duplicates.repeats(r)) missing.add(Map.entry(r, failing.get(r)));
        if (missing.isEmpty()) return skip;
        if (refs.upsert() && (refs.otherUnique() || refs.primaryKey().isEmpty())) {
            throw Refusal.of("INSERT ... ON DUPLICATE KEY UPDATE of " + table.name() + " rows whose parent row does not exist (foreign key "
                    + missing.getFirst().getValue().name() + ", which the router enforces): whether the row would update an existing one (it may"
                    + " repeat a UNIQUE key) or fail could not be told");
        }
        if (!refs.ignore()) {
            var first = missing.getFirst();
            int before = duplicates.firstBefore(first.getKey());
            if (before >= 0) throw duplicates.error(before);
            // strict mode refuses the row's value before MariaDB ever looks for its parent: the partition raises that error
            if (strictlyRefused[first.getKey()] && strict(executor, c)) return skip;
            throw new SQLException(first.getValue().childFails(refs.database()), "23000", 1452);
        }
        Warnings warnings = c.warnings();
        for (var m : missing) {
            skip[m.getKey()] = true;
            if (warnings != null) warnings.add("Warning", 1452, "23000", m.getValue().childFails(refs.database()));
        }
        return skip;
    }

    /** Whether the session's sql_mode is strict (STRICT_TRANS_TABLES or STRICT_ALL_TABLES), as its backend connections have it. */
    static boolean strict(Executor executor, Connections c) throws SQLException {
        String mode = c.variables().values().get("sql_mode");
        if (mode == null) {
            try (var scratch = executor.shards(c).scratch(0); RowSource rows = scratch.query("SELECT @@SESSION.sql_mode", List.of())) {
                Row row = rows.next();
                mode = row == null ? "" : String.valueOf(ValueCodec.decode(row.getValues(0)));
            }
        }
        return mode.toUpperCase(java.util.Locale.ROOT).contains("STRICT_");
    }

    /** The values a self-referencing key's referenced columns get in row {@code r}, from the plan's rows. */
    private static List<ValueRef> referencedRefs(Plan.Insert plan, ForeignKey fk, int r) {
        for (var key : plan.references().keys()) {
            if (key.fk() == fk && key.referencedPerRow() != null) return key.referencedPerRow().get(r);
        }
        return null;
    }

    /** Converted values of a key's columns, and whether strict mode refuses one of them. */
    record Tuple(List<Object> values, boolean refusedWhenStrict) {}

    /** The values {@code columns} of {@code table} store for {@code refs} (null ref: NULL); null when one is NULL (nothing to check). */
    static Tuple stored(TableDef table, List<String> columns, List<ValueRef> refs, List<Value> params) throws SQLException {
        if (refs == null) return null;
        var values = new ArrayList<Object>();
        boolean refused = false;
        for (int i = 0; i < columns.size(); i++) {
            ValueRef ref = refs.get(i);
            Object raw = ref == null ? null : ref.resolve(params, ValueCodec::decode);
            if (raw == null) return null;
            var stored = table.stored(columns.get(i), raw);
            if (stored == null) {
                throw Refusal.of("checking a foreign key of " + table.name() + " on " + table.name() + "." + columns.get(i) + " = " + raw
                        + ": the router cannot tell the value the column would hold (" + table.column(columns.get(i)).typeName() + ")");
            }
            if (stored.value() == null) return null;
            refused |= stored.refusedWhenStrict();
            values.add(normal(stored.value()));
        }
        return new Tuple(List.copyOf(values), refused);
    }

    /** A value in the one form equal values share (so that tuples can be compared and hashed): numbers as BigDecimal without trailing zeros. */
    static Object normal(Object v) {
        return switch (v) {
            case Long l -> new BigDecimal(l);
            case BigInteger b -> new BigDecimal(b);
            case BigDecimal d -> d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
            default -> v;
        };
    }

    /**
     * Which of {@code tuples} (values of {@code fk}'s referenced columns) the parent table holds, each found row locked in
     * share mode in the statement's transaction. Numbers are asked for many at a time and compared here; text one at a time,
     * the server comparing it under the column's collation.
     */
    static Map<List<Object>, Boolean> exist(Executor executor, TableDef parent, ForeignKey fk, List<List<Object>> tuples, Plan.Statements statements,
                                           Connections c) throws SQLException {
        var out = new LinkedHashMap<List<Object>, Boolean>();
        for (var t : tuples) out.put(t, false);
        if (tuples.isEmpty()) return out;
        boolean numeric = fk.referenced().stream().allMatch(col -> {
            ColumnType type = parent.column(col).type();
            return type.integer() || type.kind() == ColumnType.Kind.DECIMAL;
        });
        if (numeric) {
            for (int from = 0; from < tuples.size(); from += CHUNK) {
                var chunk = tuples.subList(from, Math.min(tuples.size(), from + CHUNK));
                String sql = "SELECT " + columns(fk.referenced()) + " FROM " + quote(parent.name()) + " WHERE " + in(fk.referenced(), chunk.size(),
                        parent.partitioning().column()) + " LOCK IN SHARE MODE";
                for (List<Object> row : rows(executor, statements, sql, inParams(fk.referenced(), chunk, parent.partitioning().column()), c)) {
                    var key = row.stream().map(ForeignKeyChecks::normal).toList();
                    if (out.containsKey(key)) out.put(key, true);
                }
            }
            return out;
        }
        String sql = "SELECT 1 FROM " + quote(parent.name()) + " WHERE " + equalities(fk.referenced()) + " LIMIT 1 LOCK IN SHARE MODE";
        for (var t : tuples) out.put(t, !rows(executor, statements, sql, values(t), c).isEmpty());
        return out;
    }

    /** The rows of {@code sql}, planned by the router, as Java values. */
    static List<List<Object>> rows(Executor executor, Plan.Statements statements, String sql, List<Value> params, Connections c) throws SQLException {
        var result = executor.execute(statements.plan(sql), params, c);
        var out = new ArrayList<List<Object>>();
        try (RowSource rows = ((Result.Rows) result).rows()) {
            Row row;
            while ((row = rows.next()) != null) {
                var values = new ArrayList<Object>();
                for (Value v : row.getValuesList()) values.add(ValueCodec.decode(v));
                out.add(values);
            }
        }
        return out;
    }

    static String columns(List<String> names) {
        return String.join(", ", names.stream().map(ForeignKeyChecks::quote).toList());
    }

    /** {@code a IN (?, ...)}, or {@code (a, b) IN ((?, ?), ...)} after {@code routing IN (...)} when the routing column is one of them (it routes). */
    static String in(List<String> names, int n, String routing) {
        if (names.size() == 1) return quote(names.getFirst()) + " IN (" + marks(n) + ")";
        String tuple = "(" + marks(names.size()) + ")";
        String all = "(" + columns(names) + ") IN (" + String.join(", ", java.util.Collections.nCopies(n, tuple)) + ")";
        return routing != null && names.stream().anyMatch(routing::equalsIgnoreCase) ? quote(routing) + " IN (" + marks(n) + ") AND " + all : all;
    }

    static List<Value> inParams(List<String> names, List<List<Object>> tuples, String routing) {
        var out = new ArrayList<Value>();
        if (names.size() > 1 && routing != null) {
            int at = -1;
            for (int i = 0; i < names.size(); i++) if (names.get(i).equalsIgnoreCase(routing)) at = i;
            if (at >= 0) for (var t : tuples) out.add(value(t.get(at)));
        }
        for (var t : tuples) out.addAll(values(t));
        return out;
    }

    static String equalities(List<String> names) {
        return String.join(" AND ", names.stream().map(n -> quote(n) + " = ?").toList());
    }

    static List<Value> values(List<Object> tuple) {
        return tuple.stream().map(ForeignKeyChecks::value).toList();
    }

    static Value value(Object v) {
        return switch (v) {
            case BigDecimal d -> d.scale() <= 0 && d.precision() - d.scale() <= 18 ? Value.newBuilder().setIntValue(d.longValueExact()).build()
                    : Value.newBuilder().setDecimalValue(d.toPlainString()).build();
            case Long l -> Value.newBuilder().setIntValue(l).build();
            case String s -> Value.newBuilder().setStringValue(s).build();
            case byte[] b -> Value.newBuilder().setBytesValue(com.google.protobuf.ByteString.copyFrom(b)).build();
            default -> Value.newBuilder().setStringValue(String.valueOf(v)).build();
        };
    }

    static String marks(int n) {
        return String.join(", ", java.util.Collections.nCopies(n, "?"));
    }

    static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}
