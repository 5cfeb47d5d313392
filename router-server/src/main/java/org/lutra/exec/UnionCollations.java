package org.lutra.exec;

import org.lutra.placement.Shards;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The collations a UNION compares its text columns in, asked of a backend. MySQL compares a union
 * column in the collation it derives across the branches (explicit {@code COLLATE}, then columns,
 * then system constants, then literals; NULL left out), while each branch's weight strings are in
 * its own item's collation: a literal's is the connection's, a column's its own. Where no collation
 * can be derived (two columns of different collations), MySQL refuses the union (1271, "Illegal mix
 * of collations"), UNION ALL too, and so does the probe, which is why a UNION ALL of text runs it as
 * well. The probe runs the branches (each with {@code LIMIT 0}, so MySQL reads no row) as common
 * table expressions, once on their own and once as the union, and reads {@code COLLATION()} and
 * {@code CHARSET()} of their columns. The branches' parameters are bound twice, in statement order.
 * What it finds depends on the schema and the parameters' types only, never on rows or values, so
 * it is asked once per kind of parameters and remembered with the plan (a schema change drops plans).
 */
public final class UnionCollations {
    /** A name the backend gave, spliced into SQL as an identifier only if it is one. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]+");
    /** Findings kept per plan: one per kind of parameters, which few statements vary. */
    private static final int REMEMBERED = 16;
    private static final String UNION = "`lutra_union`";

    private final int partition;
    private final List<String> setup;
    private final List<String> branches;
    private final boolean all;
    private final List<String> teardown;
    private final int textLength;
    private final Map<String, Found> found = new ConcurrentHashMap<>();

    /**
     * @param partition  where the probe runs: one holding the tables the union reads, or most of them
     * @param setup      statements run before it on the same connection: temporary copies of the tables the
     *                   partition does not hold (the catalog's definitions, so their columns are the tables')
     * @param branches   the union's SELECTs as the probe runs them (each with {@code LIMIT 0})
     * @param duplicates kept (UNION ALL) or removed (UNION)
     * @param teardown   statements run after it (the copies dropped)
     * @param textLength the characters the branches' weight strings are padded to ({@code WEIGHT_STRING(x AS CHAR(n))})
     */
    public UnionCollations(int partition, List<String> setup, List<String> branches, Union.Duplicates duplicates, List<String> teardown, int textLength) {
        this.partition = partition;
        this.setup = List.copyOf(setup);
        this.branches = List.copyOf(branches);
        this.all = duplicates == Union.Duplicates.KEPT;
        this.teardown = List.copyOf(teardown);
        this.textLength = textLength;
    }

    /**
     * What the probe found.
     *
     * @param collation the union column's collation, per column
     * @param charset   its character set, per column
     * @param own       each branch's item's collation, per branch and column
     */
    public record Found(String[] collation, String[] charset, String[][] own) {
        /** Whether branch {@code b}'s column {@code c} weighs in a collation other than the union's. */
        boolean differs(int b, int c) {
            return !collation[c].equalsIgnoreCase(own[b][c]);
        }
    }

    /**
     * What the probe finds for a union of {@code columns} columns run with {@code params} (the union's, in order): asked
     * of the backend the first time for their kinds, then remembered. A union MySQL refuses throws its error.
     */
    public Found probe(Context ctx, List<Value> params, int columns) throws SQLException {
        var kinds = new StringBuilder().append(columns).append(':');
        for (Value v : params) kinds.append((char) ('A' + v.getKindCase().ordinal()));
        String key = kinds.toString();
        Found known = found.get(key);
        if (known != null) return known;
        Found asked = ask(ctx, params, columns);
        if (found.size() < REMEMBERED) found.put(key, asked);
        return asked;
    }

    private Found ask(Context ctx, List<Value> params, int columns) throws SQLException {
        var twice = new ArrayList<Value>(params.size() * 2);
        twice.addAll(params);
        twice.addAll(params);
        int k = branches.size();
        try (Shards.Scratch scratch = ctx.shards().scratch(partition)) {
            for (String s : setup) scratch.execute(s, List.of());
            Row row;
            try (RowSource rows = scratch.query(sql(columns), twice)) {
                row = rows.next();
                if (row == null || rows.next() != null) throw new SQLException("the UNION's collation probe returned no single row", "HY000", 1105);
            }
            for (String s : teardown) scratch.execute(s, List.of());
            var own = new String[k][columns];
            for (int b = 0; b < k; b++) for (int c = 0; c < columns; c++) own[b][c] = text(row, b * columns + c);
            var collation = new String[columns];
            var charset = new String[columns];
            for (int c = 0; c < columns; c++) {
                collation[c] = text(row, k * columns + c);
                charset[c] = text(row, (k + 1) * columns + c);
            }
            return new Found(collation, charset, own);
        }
    }

    /**
     * {@code WITH b0 (c1, ...) AS (branch 0), ..., u (c1, ...) AS ((branch 0) UNION (branch 1) ...) SELECT COLLATION(b0.c1),
     * ..., COLLATION(u.c1), ..., CHARSET(u.c1), ... FROM (SELECT 1) LEFT JOIN b0 ON TRUE ...}: the common table expressions
     * have no rows, the outer join gives one row of NULLs whose columns keep their types. A common table expression's
     * column has its item's collation; the union's columns, MySQL's derivation across the branches.
     */
    String sql(int columns) {
        var names = new ArrayList<String>();
        for (int c = 1; c <= columns; c++) names.add("c" + c);
        String list = " (" + String.join(", ", names) + ") AS (";
        var sql = new StringBuilder("WITH ");
        for (int b = 0; b < branches.size(); b++) sql.append(cte(b)).append(list).append(branches.get(b)).append("), ");
        sql.append(UNION).append(list);
        for (int b = 0; b < branches.size(); b++) {
            if (b > 0) sql.append(all ? " UNION ALL " : " UNION ");
            sql.append('(').append(branches.get(b)).append(')');
        }
        sql.append(") SELECT ");
        var items = new ArrayList<String>();
        for (int b = 0; b < branches.size(); b++) for (String c : names) items.add("COLLATION(" + cte(b) + "." + c + ")");
        for (String c : names) items.add("COLLATION(" + UNION + "." + c + ")");
        for (String c : names) items.add("CHARSET(" + UNION + "." + c + ")");
        sql.append(String.join(", ", items)).append(" FROM (SELECT 1) AS `lutra_one`");
        for (int b = 0; b < branches.size(); b++) sql.append(" LEFT JOIN ").append(cte(b)).append(" ON TRUE");
        return sql.append(" LEFT JOIN ").append(UNION).append(" ON TRUE").toString();
    }

    private static String cte(int branch) {
        return "`lutra_branch_" + branch + "`";
    }

    /** Weighs text in the collation of union column {@code c}, on this probe's partition. */
    TextWeights weights(Found found, int c) throws SQLException {
        String collation = found.collation()[c];
        String charset = found.charset()[c];
        if (!NAME.matcher(collation).matches() || !NAME.matcher(charset).matches()) {
            throw Refusal.of("Lutra does not support a UNION whose column " + (c + 1) + " compares in collation " + collation + " (" + charset + ")");
        }
        return new TextWeights(partition, collation, charset, textLength);
    }

    private static String text(Row row, int i) throws SQLException {
        Value v = row.getValues(i);
        return switch (v.getKindCase()) {
            case STRING_VALUE -> v.getStringValue();
            case BYTES_VALUE -> v.getBytesValue().toStringUtf8();
            default -> throw new SQLException("the UNION's collation probe answered " + v + " for a collation", "HY000", 1105);
        };
    }
}
