package org.lutra.exec;

import org.lutra.placement.Shards;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The collations a UNION compares its text columns in, asked of a backend. MySQL compares a union
 * column in the collation it derives across the branches (explicit {@code COLLATE}, then columns,
 * then system constants, then literals; NULL left out), while each branch's weight strings are in
 * its own item's collation: a literal's is the connection's, a column's its own. The probe runs the
 * branches (each with {@code LIMIT 0}, so MySQL reads no row) as common table expressions, once on
 * their own and once as the union, and reads {@code COLLATION()} and {@code CHARSET()} of their
 * columns. The branches' parameters are bound twice, in statement order.
 *
 * @param partition  where the probe runs: one holding the tables the union reads, or most of them
 * @param setup      statements run before it on the same connection: temporary copies of the tables the
 *                   partition does not hold (the catalog's definitions, so their columns are the tables')
 * @param sql        the probe: a row of k × n branch collations, then n union collations, then n union character sets
 * @param teardown   statements run after it (the copies dropped)
 * @param branches   k, the union's SELECTs
 * @param columns    n, the columns of each
 * @param textLength the characters the branches' weight strings are padded to ({@code WEIGHT_STRING(x AS CHAR(n))})
 */
public record UnionCollations(int partition, List<String> setup, String sql, List<String> teardown, int branches, int columns, int textLength) {
    /** A name the backend gave, spliced into SQL as an identifier only if it is one. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]+");

    public UnionCollations {
        setup = List.copyOf(setup);
        teardown = List.copyOf(teardown);
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

    /** Runs the probe with the statement's parameters ({@code params}: the union's, in order). */
    public Found probe(Context ctx, List<Value> params) throws SQLException {
        var twice = new ArrayList<Value>(params.size() * 2);
        twice.addAll(params);
        twice.addAll(params);
        try (Shards.Scratch scratch = ctx.shards().scratch(partition)) {
            for (String s : setup) scratch.execute(s, List.of());
            Row row;
            try (RowSource rows = scratch.query(sql, twice)) {
                row = rows.next();
                if (row == null || rows.next() != null) throw new SQLException("the UNION's collation probe returned no single row", "HY000", 1105);
            }
            for (String s : teardown) scratch.execute(s, List.of());
            var own = new String[branches][columns];
            for (int b = 0; b < branches; b++) for (int c = 0; c < columns; c++) own[b][c] = text(row, b * columns + c);
            var collation = new String[columns];
            var charset = new String[columns];
            for (int c = 0; c < columns; c++) {
                collation[c] = text(row, branches * columns + c);
                charset[c] = text(row, (branches + 1) * columns + c);
            }
            return new Found(collation, charset, own);
        }
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
