package org.lutra.jdbc;

import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Writes the rows of a CONCUR_UPDATABLE result back to its table, under Connector/J's rules: the
 * result is updatable if every column comes from one table (the original table name the router
 * passes on from the shard) and the columns include that table's whole primary key
 * ({@code DatabaseMetaData.getPrimaryKeys}, each key column once). Otherwise {@link #reason} says
 * why, in Connector/J's words, and every write throws it ({@link #notUpdatable}).
 *
 * <p>The writes are plain statements on the result's connection — {@code UPDATE t SET c = ? WHERE
 * k = ?}, {@code DELETE FROM t WHERE k = ?}, {@code INSERT INTO t (c, ...) VALUES (?, ...)} — so they
 * route and join the connection's transaction like any other. Unlike Connector/J, an UPDATE sets
 * only the columns the application changed (Connector/J writes every column back, its Bug#71143):
 * writing an unchanged shard key back would be a key change the router refuses. After a write the
 * row is read again by its key ({@code SELECT cols FROM t WHERE k = ?}), as Connector/J does.
 */
final class UpdatableRows {
    /** Connector/J's SQLState for these errors (its NotUpdatable and UpdatableResultSet messages). */
    static final String STATE = "S1000";
    private static final String NOT_UPDATABLE = "This result set must come from a statement that was created with a result set type of"
            + " ResultSet.CONCUR_UPDATABLE, the query must select only one table, can not use functions and must select all primary keys"
            + " from that table. See the JDBC 2.1 API Specification, section 5.6 for more details.";

    private final LutraConnection connection;
    private final List<Column> columns;
    private final String reason;
    private final String table;
    /** 0-based indexes of the key columns in the result, in the order of {@link #keyCondition}. */
    private final int[] keys;

    private UpdatableRows(LutraConnection connection, List<Column> columns, String reason, String table, int[] keys) {
        this.connection = connection;
        this.columns = columns;
        this.reason = reason;
        this.table = table;
        this.keys = keys;
    }

    /** Whether the result is updatable and, if so, which columns are its table's key. */
    static UpdatableRows inspect(LutraConnection connection, List<Column> columns) throws SQLException {
        if (columns.isEmpty() || columns.stream().anyMatch(c -> c.getTable().isEmpty())) {
            return refused(connection, columns, "Result Set not updatable (references computed values or doesn't reference any columns or tables).");
        }
        String table = columns.getFirst().getTable();
        if (columns.stream().anyMatch(c -> !c.getTable().equals(table))) {
            return refused(connection, columns, "Result Set not updatable (references more than one table).");
        }
        Map<String, Integer> keyOrder = new HashMap<>();
        try (var rs = connection.getMetaData().getPrimaryKeys(connection.getCatalog(), null, table)) {
            while (rs.next()) keyOrder.put(rs.getString("COLUMN_NAME").toUpperCase(Locale.ROOT), keyOrder.size());
        }
        if (keyOrder.isEmpty()) {
            return refused(connection, columns, "Result Set not updatable (referenced table has no primary keys).");
        }
        int[] keys = new int[keyOrder.size()];
        var missing = new HashMap<>(keyOrder);
        for (int i = 0; i < columns.size(); i++) {
            String name = columns.get(i).getName().toUpperCase(Locale.ROOT);
            if (!keyOrder.containsKey(name)) continue;
            if (missing.remove(name) == null) { // a key column selected twice: Connector/J gives up so
                return refused(connection, columns, "Result Set not updatable (references unknown primary key " + columns.get(i).getName() + ").");
            }
            keys[keyOrder.get(name)] = i;
        }
        if (!missing.isEmpty()) {
            return refused(connection, columns, keyOrder.size() > 1 ? "Result Set not updatable (does not reference all primary keys)."
                    : "Result Set not updatable (references no primary keys).");
        }
        return new UpdatableRows(connection, columns, null, table, keys);
    }

    private static UpdatableRows refused(LutraConnection connection, List<Column> columns, String reason) {
        return new UpdatableRows(connection, columns, reason, null, null);
    }

    boolean updatable() {
        return reason == null;
    }

    /** Why not, or null. */
    String reason() {
        return reason;
    }

    /** Connector/J's NotUpdatable: the reason and what an updatable result needs. */
    SQLException notUpdatable() {
        return Errors.of(reason + NOT_UPDATABLE, STATE);
    }

    /** Connector/J's answer to a write on a CONCUR_READ_ONLY statement's result. */
    static SQLException readOnly() {
        return Errors.of("Result Set not updatable." + NOT_UPDATABLE, STATE);
    }

    void check() throws SQLException {
        if (reason != null) throw notUpdatable();
    }

    /** UPDATE of the changed columns (non-null entries of {@code changes}) of the row whose key {@code row} holds. */
    void update(Row row, Value[] changes) throws SQLException {
        var set = new StringJoiner(", ");
        var params = new ArrayList<Value>();
        for (int i = 0; i < changes.length; i++) {
            if (changes[i] == null) continue;
            set.add(quoted(columns.get(i).getName()) + " = ?");
            params.add(changes[i]);
        }
        params.addAll(keyValues(row.getValuesList()));
        run("UPDATE " + quoted(table) + " SET " + set + " WHERE " + keyCondition(), params, false);
    }

    void delete(Row row) throws SQLException {
        run("DELETE FROM " + quoted(table) + " WHERE " + keyCondition(), keyValues(row.getValuesList()), false);
    }

    /**
     * INSERT of the columns set on the insert row (the others take their defaults); returns the
     * values of the row's key: those set, or the AUTO_INCREMENT value the insert generated.
     */
    List<Value> insert(Value[] values) throws SQLException {
        var names = new StringJoiner(", ");
        var marks = new StringJoiner(", ");
        var params = new ArrayList<Value>();
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) continue;
            names.add(quoted(columns.get(i).getName()));
            marks.add("?");
            params.add(values[i]);
        }
        long[] generated = run("INSERT INTO " + quoted(table) + " (" + names + ") VALUES (" + marks + ")", params, true);
        var key = new ArrayList<Value>();
        for (int k : keys) {
            Value v = values[k];
            if (v == null || v.hasIsNull()) {
                if (generated.length != 1) {
                    throw Errors.of("insertRow(): the row was inserted, but key column " + columns.get(k).getName()
                            + " was not set and no AUTO_INCREMENT value was generated, so it cannot be read back", STATE);
                }
                v = Values.ofLong(generated[0]);
            }
            key.add(v);
        }
        return key;
    }

    /** The row's key values, in {@link #keyCondition} order, with {@code changes} applied where set. */
    List<Value> keyValues(List<Value> row, Value[] changes) {
        var values = new ArrayList<Value>();
        for (int k : keys) values.add(changes != null && changes[k] != null ? changes[k] : row.get(k));
        return values;
    }

    private List<Value> keyValues(List<Value> row) {
        return keyValues(row, null);
    }

    /** The row with that key as the table holds it now, in the result's columns; null if there is none. */
    Row read(List<Value> key) throws SQLException {
        var names = new StringJoiner(", ");
        for (var c : columns) names.add(quoted(c.getName()));
        try (var ps = (LutraPreparedStatement) connection.prepareStatement("SELECT " + names + " FROM " + quoted(table) + " WHERE " + keyCondition())) {
            bind(ps, key);
            var rs = (LutraResultSet) ps.executeQuery();
            if (!rs.next()) return null;
            var row = Row.newBuilder();
            for (int i = 1; i <= columns.size(); i++) row.addValues(rs.current(i));
            return row.build();
        }
    }

    private String keyCondition() {
        var where = new StringJoiner(" AND ");
        for (int k : keys) where.add(quoted(columns.get(k).getName()) + " = ?");
        return where.toString();
    }

    /** Runs a write; the generated keys if asked for. */
    private long[] run(String sql, List<Value> params, boolean keys) throws SQLException {
        try (var ps = (LutraPreparedStatement) connection.prepareStatement(sql, keys ? Statement.RETURN_GENERATED_KEYS : Statement.NO_GENERATED_KEYS)) {
            bind(ps, params);
            ps.executeUpdate();
            if (!keys) return null;
            var generated = new ArrayList<Long>();
            try (var rs = ps.getGeneratedKeys()) {
                while (rs.next()) generated.add(rs.getLong(1));
            }
            return generated.stream().mapToLong(Long::longValue).toArray();
        }
    }

    private static void bind(LutraPreparedStatement ps, List<Value> params) throws SQLException {
        for (int i = 0; i < params.size(); i++) ps.setObject(i + 1, params.get(i));
    }

    private static String quoted(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}
