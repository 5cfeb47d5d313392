package org.lutra.cli.sql;

import java.io.PrintStream;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints rows as an aligned text table:
 * <pre>
 * id | name
 * ---+------
 *  1 | alice
 *  2 | NULL
 * (2 rows)
 * </pre>
 * Numbers are right-aligned, everything else left-aligned; SQL NULL prints as {@code NULL}.
 */
public final class TablePrinter {
    private TablePrinter() {}

    /** Reads all of {@code rs} and prints it; returns the number of rows. */
    public static int print(ResultSet rs, PrintStream out) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        int n = md.getColumnCount();
        var header = new ArrayList<String>();
        var numeric = new boolean[n];
        for (int i = 1; i <= n; i++) {
            header.add(md.getColumnLabel(i));
            numeric[i - 1] = isNumeric(md.getColumnType(i));
        }
        var rows = new ArrayList<List<String>>();
        while (rs.next()) {
            var row = new ArrayList<String>(n);
            for (int i = 1; i <= n; i++) {
                String v = rs.getString(i);
                row.add(rs.wasNull() ? null : v);
            }
            rows.add(row);
        }
        out.print(format(header, rows, numeric));
        return rows.size();
    }

    /** The table for {@code header} and {@code rows} (null cells print as NULL), ending with the row count. */
    public static String format(List<String> header, List<List<String>> rows, boolean[] rightAligned) {
        int n = header.size();
        int[] width = new int[n];
        for (int i = 0; i < n; i++) width[i] = header.get(i).length();
        for (var row : rows) {
            for (int i = 0; i < n; i++) width[i] = Math.max(width[i], cell(row.get(i)).length());
        }
        var sb = new StringBuilder();
        line(sb, header, width, new boolean[n]);
        for (int i = 0; i < n; i++) {
            if (i > 0) sb.append("-+-");
            sb.append("-".repeat(width[i]));
        }
        sb.append('\n');
        for (var row : rows) line(sb, row, width, rightAligned);
        sb.append('(').append(rows.size()).append(rows.size() == 1 ? " row)" : " rows)").append('\n');
        return sb.toString();
    }

    private static void line(StringBuilder sb, List<String> cells, int[] width, boolean[] right) {
        var line = new StringBuilder();
        for (int i = 0; i < width.length; i++) {
            if (i > 0) line.append(" | ");
            String v = cell(cells.get(i));
            String padding = " ".repeat(width[i] - v.length());
            if (right[i]) line.append(padding).append(v); else line.append(v).append(padding);
        }
        sb.append(line.toString().stripTrailing()).append('\n');
    }

    private static String cell(String v) {
        if (v == null) return "NULL";
        // one table row per result row: show control characters instead of breaking the layout
        return v.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t");
    }

    private static boolean isNumeric(int type) {
        return switch (type) {
            case Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT, Types.FLOAT, Types.REAL,
                 Types.DOUBLE, Types.NUMERIC, Types.DECIMAL -> true;
            default -> false;
        };
    }
}
