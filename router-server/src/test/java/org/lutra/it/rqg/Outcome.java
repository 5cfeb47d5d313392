package org.lutra.it.rqg;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import org.lutra.protocol.Refusal;

/** What one connection answered to one statement: rows with their labels, an update count, or an error. */
public sealed interface Outcome {
    record Rows(List<String> labels, List<Integer> types, List<List<String>> rows) implements Outcome {
        @Override
        public String toString() {
            var sb = new StringBuilder(String.join(" | ", labels));
            int shown = 0;
            for (var r : rows) {
                if (shown++ == 12) {
                    sb.append("\n    ... ").append(rows.size() - 12).append(" more");
                    break;
                }
                sb.append("\n    ").append(String.join(" | ", r.stream().map(v -> v == null ? "NULL" : v).toList()));
            }
            return sb + "\n    (" + rows.size() + " rows)";
        }
    }

    /** An UPDATE or DELETE: its affected-row count and the whole table afterwards. */
    record Changed(long count, Rows table) implements Outcome {
        @Override
        public String toString() {
            return count + " rows affected; table now: " + table;
        }
    }

    record Error(String state, int code, String message) implements Outcome {
        public boolean refused() {
            return Refusal.is(state, code, message);
        }

        /** The router's own failure ("internal router error (incident ...)"), not an answer to the statement. */
        public boolean internal() {
            return message.startsWith("internal router error");
        }

        /** Cancelled at the statement's timeout (MariaDB's max_statement_time error). */
        public boolean timedOut() {
            return code == 1969 || "70100".equals(state);
        }

        @Override
        public String toString() {
            return "ERROR " + code + " (" + state + "): " + message;
        }
    }

    /** Seconds a statement may run before it is cancelled (and answers MariaDB's 1969/70100); 0 for no limit. */
    final class Timeout {
        private static volatile int seconds;

        private Timeout() {}
    }

    static void timeout(int seconds) {
        Timeout.seconds = seconds;
    }

    public static Outcome query(Connection c, String sql) {
        try (var st = c.createStatement()) {
            st.setQueryTimeout(Timeout.seconds);
            try (var rs = st.executeQuery(sql)) {
                return read(rs);
            }
        } catch (SQLException e) {
            return error(e);
        }
    }

    /** Runs a write inside a transaction, reads the table, and rolls back so the data stays as loaded. */
    public static Outcome change(Connection c, String sql, String table) {
        try {
            c.setAutoCommit(false);
            try (var st = c.createStatement()) {
                st.setQueryTimeout(Timeout.seconds);
                long n = st.executeUpdate(sql);
                try (var rs = st.executeQuery("SELECT * FROM " + table)) {
                    return new Changed(n, read(rs));
                }
            } catch (SQLException e) {
                return error(e);
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot roll back " + sql + ": " + e, e);
        }
    }

    /** {@code e} as an outcome (an internal router error with the exception its incident logged). */
    public static Error failed(SQLException e) {
        return error(e);
    }

    static Error error(SQLException e) {
        return new Error(e.getSQLState(), e.getErrorCode(), Incidents.explain(String.valueOf(e.getMessage()).lines().findFirst().orElse("")));
    }

    /** Every row of {@code rs} as text, with its labels and column types. */
    public static Rows rows(ResultSet rs) throws SQLException {
        return read(rs);
    }

    /**
     * Rows read of one answer at most: a generated join of many tables can answer millions (the oracles' forms drop its
     * filter), which as text would fill the test's heap. Past it, the answer is an error on either side alike, not compared.
     */
    static final int MAX_ROWS = 50_000;

    static Rows read(ResultSet rs) throws SQLException {
        var md = rs.getMetaData();
        int n = md.getColumnCount();
        var labels = new ArrayList<String>();
        var types = new ArrayList<Integer>();
        for (int i = 1; i <= n; i++) {
            labels.add(md.getColumnLabel(i));
            types.add(md.getColumnType(i));
        }
        var rows = new ArrayList<List<String>>();
        while (rs.next()) {
            if (rows.size() == MAX_ROWS) throw new SQLException("more than " + MAX_ROWS + " rows: not compared", "HY000", 0);
            var row = new ArrayList<String>(n);
            for (int i = 1; i <= n; i++) {
                row.add(rs.getString(i));
            }
            rows.add(row);
        }
        return new Rows(labels, types, rows);
    }

    static boolean isApproximate(int type) {
        return type == Types.DOUBLE || type == Types.FLOAT || type == Types.REAL;
    }
}
