package org.lutra.it;

import org.lutra.shards.Shards;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A router over the shared shards and, next to it, one plain database on shard 0 holding the
 * same tables (the schema's DDL without Lutra's placement clauses): the reference every answer
 * through Lutra is compared with.
 */
final class Differential implements AutoCloseable {
    final TestRouter router;
    final Connection lutra;
    final Connection reference;
    private final Shards shards;
    private final String referenceDatabase;

    Differential(Shards shards, String prefix, String schema) throws Exception {
        this(shards, prefix, schema, null);
    }

    /** As above, the router's transactions configured ({@code lock_wait_timeout_seconds}, ...): null for the defaults. */
    Differential(Shards shards, String prefix, String schema, org.lutra.config.RouterConfig.Transactions transactions) throws Exception {
        this(shards, prefix, schema, transactions, null);
    }

    /** As above, with the router's limits ({@code statement_timeout_ms}, ...): null for the defaults. */
    Differential(Shards shards, String prefix, String schema, org.lutra.config.RouterConfig.Transactions transactions,
                 org.lutra.config.RouterConfig.Limits limits) throws Exception {
        this.shards = shards;
        this.router = new TestRouter(shards, prefix, schema, transactions, shards.size(), limits);
        this.lutra = router.connect();
        this.referenceDatabase = router.database + "_ref";
        try (var c = shards.connect(0); var st = c.createStatement()) {
            st.execute("CREATE DATABASE `" + referenceDatabase + "`");
        }
        this.reference = DriverManager.getConnection(shards.url(0, referenceDatabase), shards.user(), shards.password());
        for (var t : router.server.catalog().tablesInSchemaOrder()) {
            try (var st = reference.createStatement()) {
                st.execute(t.ddl());
            }
        }
    }

    /** A new session on the reference database (a session of its own: LAST_INSERT_ID() 0). */
    Connection newReference() throws SQLException {
        return DriverManager.getConnection(shards.url(0, referenceDatabase), shards.user(), shards.password());
    }

    /** Runs a write on both sides; the update counts must agree. */
    void both(String sql) throws SQLException {
        try (var l = lutra.createStatement(); var r = reference.createStatement()) {
            assertEquals(r.executeUpdate(sql), l.executeUpdate(sql), sql);
        }
    }

    /**
     * A write run on both sides (through {@code viaLutra}, a session of this router, and on the
     * reference): {@code problem} is null when they agree (the same update count, or both failed),
     * "refused: ..." when Lutra refused it (42000/1235), else what differs; {@code count} is the
     * reference's update count (-1 when it failed); {@code lutraError}/{@code referenceError} the error codes of
     * a side that failed (0 when it did not).
     */
    record Written(String problem, long count, int lutraError, int referenceError) {
        Written(String problem, long count) {
            this(problem, count, 0, 0);
        }

        /** Both sides failed, with one error code. */
        boolean failedAlike() {
            return problem == null && count < 0 && lutraError == referenceError;
        }
    }

    Written write(Connection viaLutra, String sql) throws SQLException {
        long l, m;
        SQLException lutraError = null, referenceError = null;
        try (var st = viaLutra.createStatement()) {
            l = st.executeUpdate(sql);
        } catch (SQLException e) {
            if (org.lutra.protocol.Refusal.is(e)) return new Written("refused: " + e.getMessage(), -1);
            lutraError = e;
            l = -1;
        }
        try (var st = reference.createStatement()) {
            m = st.executeUpdate(sql);
        } catch (SQLException e) {
            referenceError = e;
            m = -1;
        }
        if ((lutraError == null) != (referenceError == null)) {
            return new Written("errors differ: lutra " + (lutraError == null ? l : lutraError.getMessage()) + " / mariadb "
                    + (referenceError == null ? m : referenceError.getMessage()), m);
        }
        return new Written(l != m ? "update counts differ: lutra " + l + " / mariadb " + m : null, m,
                lutraError == null ? 0 : lutraError.getErrorCode(), referenceError == null ? 0 : referenceError.getErrorCode());
    }

    /** Null when {@code sql} reads the same rows, in order, on both sides; else the first row that differs ({@code what} names it). */
    String sameRows(String what, String sql) throws SQLException {
        var l = rows(lutra, sql);
        var m = rows(reference, sql);
        if (l.equals(m)) return null;
        for (int i = 0; i < Math.min(l.size(), m.size()); i++) {
            if (!l.get(i).equals(m.get(i))) return what + " row " + i + ": lutra " + l.get(i) + " / mariadb " + m.get(i);
        }
        return what + ": lutra " + l.size() + " rows / mariadb " + m.size();
    }

    /**
     * What a write did, as text to compare: "count N warnings [codes]" (the warnings' codes sorted), "error CODE", or
     * "refused: message" for Lutra's refusal (42000/1235).
     */
    static String outcome(Connection c, String sql) {
        try (var st = c.createStatement()) {
            long n = st.executeLargeUpdate(sql);
            var codes = new ArrayList<Integer>();
            for (java.sql.SQLWarning w = st.getWarnings(); w != null; w = w.getNextWarning()) codes.add(w.getErrorCode());
            java.util.Collections.sort(codes);
            return "count " + n + " warnings " + codes;
        } catch (SQLException e) {
            if (org.lutra.protocol.Refusal.is(e)) return "refused: " + e.getMessage();
            return "error " + e.getErrorCode();
        }
    }

    /** Every row of {@code sql}'s answer as text. */
    static List<List<String>> rows(Connection c, String sql) throws SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            var out = new ArrayList<List<String>>();
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                var row = new ArrayList<String>(n);
                for (int i = 1; i <= n; i++) row.add(rs.getString(i));
                out.add(row);
            }
            return out;
        }
    }

    @Override
    public void close() throws Exception {
        lutra.close();
        reference.close();
        try (var c = shards.connect(0); var st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS `" + referenceDatabase + "`");
        }
        router.close();
    }
}
