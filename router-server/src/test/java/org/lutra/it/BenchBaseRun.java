package org.lutra.it;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What a benchmark tool does to a database, run the same way on two connections: its DDL file statement by statement
 * as BenchBase's ScriptRunner sends it (lines up to one ending with ';', comment lines skipped), and transactions whose
 * every choice comes from a random generator seeded alike on both sides, each answering what it read as text.
 */
final class BenchBaseRun {
    private BenchBaseRun() {}

    /** One transaction of a workload on {@code c}, its choices from {@code r}: what it read, or how it ended. */
    interface Transaction {
        String run(Connection c, SplittableRandom r) throws SQLException;
    }

    /** The statements of a DDL resource, as BenchBase's ScriptRunner splits it. */
    static List<String> statements(String resource) throws IOException {
        try (InputStream in = BenchBaseRun.class.getResourceAsStream(resource)) {
            if (in == null) throw new IOException("no resource " + resource);
            var out = new ArrayList<String>();
            var command = new StringBuilder();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                String trimmed = line.trim();
                if (trimmed.startsWith("--") || trimmed.startsWith("//") || trimmed.isEmpty()) continue;
                command.append(line).append('\n');
                if (trimmed.endsWith(";")) {
                    String sql = command.toString().trim();
                    out.add(sql.substring(0, sql.length() - 1));
                    command.setLength(0);
                }
            }
            return out;
        }
    }

    /** Runs {@code statements} on {@code c}; the first that fails, with its error, or null. */
    static String script(Connection c, List<String> statements) {
        for (String sql : statements) {
            try (var st = c.createStatement()) {
                st.execute(sql);
            } catch (SQLException e) {
                return sql.lines().findFirst().orElse(sql) + ": " + e.getErrorCode() + " " + e.getSQLState() + " " + e.getMessage();
            }
        }
        return null;
    }

    /**
     * Runs {@code t} in a transaction of its own on {@code c} (auto-commit off, SERIALIZABLE as BenchBase's stock configs):
     * what it read, or "rolled back: ..." where it failed (and was rolled back) or rolled back itself.
     */
    static String inTransaction(Connection c, Transaction t, SplittableRandom r) throws SQLException {
        c.setAutoCommit(false);
        try {
            String read = t.run(c, r);
            if (read.startsWith("rolled back")) {
                c.rollback();
            } else {
                c.commit();
            }
            return read;
        } catch (SQLException e) {
            c.rollback();
            return "rolled back: " + e.getErrorCode() + " " + e.getSQLState();
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** Every row of {@code ps}'s answer as text, rows separated by ';'. */
    static String rows(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            return text(rs);
        }
    }

    static String text(ResultSet rs) throws SQLException {
        var b = new StringBuilder();
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            for (int i = 1; i <= n; i++) b.append(i > 1 ? "|" : "").append(rs.getString(i));
            b.append(';');
        }
        return b.toString();
    }

    /** {@code sql} with parameters {@code args} on {@code c}: its rows as text. */
    static String query(Connection c, String sql, Object... args) throws SQLException {
        try (var ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) ps.setObject(i + 1, args[i]);
            return rows(ps);
        }
    }

    /** {@code sql} with parameters {@code args} on {@code c}: its update count. */
    static int update(Connection c, String sql, Object... args) throws SQLException {
        try (var ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) ps.setObject(i + 1, args[i]);
            return ps.executeUpdate();
        }
    }

    /** A string of {@code min}..{@code max} letters. */
    static String letters(SplittableRandom r, int min, int max) {
        var b = new StringBuilder();
        for (int i = r.nextInt(min, max + 1); i > 0; i--) b.append((char) ('a' + r.nextInt(26)));
        return b.toString();
    }
}
