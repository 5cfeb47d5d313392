package org.lutra.cli.sql;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;

/** Runs one statement on a connection and prints its results, update counts or error. */
public final class SqlRunner {
    private final Connection connection;
    private final PrintStream out;
    private final PrintStream err;

    public SqlRunner(Connection connection, PrintStream out, PrintStream err) {
        this.connection = connection;
        this.out = out;
        this.err = err;
    }

    /** Returns false if the statement failed (the error is printed). */
    public boolean run(String sql) {
        try (var st = connection.createStatement()) {
            boolean isResultSet = st.execute(sql);
            while (true) {
                if (isResultSet) {
                    try (var rs = st.getResultSet()) {
                        TablePrinter.print(rs, out);
                    }
                } else {
                    int count = st.getUpdateCount();
                    if (count == -1) break;
                    out.println(count + (count == 1 ? " row affected" : " rows affected"));
                }
                isResultSet = st.getMoreResults();
            }
            out.flush();
            return true;
        } catch (SQLException e) {
            out.flush();
            err.println(describe(e));
            err.flush();
            return false;
        }
    }

    /** {@code ERROR <SQLState> (<vendor code>): message}, like the mysql client. */
    public static String describe(SQLException e) {
        return "ERROR " + (e.getSQLState() == null ? "HY000" : e.getSQLState()) + " (" + e.getErrorCode() + "): " + e.getMessage();
    }
}
