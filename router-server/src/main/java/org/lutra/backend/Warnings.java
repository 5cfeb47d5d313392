package org.lutra.backend;

import org.lutra.backend.BackendDriver;
import org.lutra.backend.Backends;
import org.lutra.protocol.Warning;

import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.ArrayList;
import java.util.List;

/**
 * One client statement's warnings, as MySQL's SHOW WARNINGS lists them: each backend's warnings of
 * the sub-queries it ran (read when a write is done, or when a partition's rows were read to the
 * end), its message prefixed with the partition and backend; after a failed statement, its error
 * as a row of level Error. Sub-queries of several partitions add theirs concurrently. SHOW WARNINGS
 * itself is {@code exec.WarningRows}.
 */
public final class Warnings {
    /** MySQL's max_error_count default: SHOW WARNINGS lists at most this many, the count says all. */
    static final int MAX_LISTED = 64;

    private final List<Warning> all = new ArrayList<>();
    private long count;
    /** How many of them a reply to the client already carried. */
    private int sent;

    /**
     * The warnings of the statement {@code connection} just ran on {@code placement}, if it had any:
     * {@code chain} is the driver's (it read SHOW WARNINGS once the server reported a count, but
     * keeps no level); SHOW WARNINGS, which clears nothing, is read again for the levels.
     */
    public void read(Backends.Placement placement, java.sql.Connection connection, SQLWarning chain) throws SQLException {
        if (chain == null) return;
        var levels = new ArrayList<String>();
        try (var st = connection.createStatement(); var rs = st.executeQuery("SHOW WARNINGS")) {
            while (rs.next()) levels.add(rs.getString(1));
        }
        int i = 0;
        synchronized (this) {
            for (SQLWarning w = chain; w != null; w = w.getNextWarning(), i++) {
                add(Warning.newBuilder().setLevel(i < levels.size() ? levels.get(i) : "Warning").setCode(w.getErrorCode())
                        .setSqlState(java.util.Objects.requireNonNullElse(BackendDriver.state(w), ""))
                        .setMessage("[" + placement.name() + "@" + placement.backend() + "] " + w.getMessage()).build());
            }
        }
    }

    /** A note of the router's own about the statement (level Note, 1105, as MariaDB's notes of DDL). */
    public synchronized void note(String message) {
        add(Warning.newBuilder().setLevel("Note").setCode(1105).setSqlState("HY000").setMessage(message).build());
    }

    /** The statement failed with {@code e}: SHOW WARNINGS lists it as an Error row, SHOW ERRORS alone. */
    public synchronized void error(SQLException e) {
        add(Warning.newBuilder().setLevel("Error").setCode(e.getErrorCode()).setSqlState(e.getSQLState() == null ? "" : e.getSQLState())
                .setMessage(e.getMessage() == null ? "" : CONNECTOR_PREFIX.matcher(e.getMessage()).replaceFirst("$1")).build());
    }

    /** Connector/J puts "Data truncation: " before the server's message of a 22001/22003 error; SHOW WARNINGS has the server's. */
    private static final java.util.regex.Pattern CONNECTOR_PREFIX = java.util.regex.Pattern.compile("^(\\[[^\\]]*\\] )?Data truncation: ");

    /** The warnings collected, in order (at most {@link #MAX_LISTED}). */
    public synchronized List<Warning> list() {
        return List.copyOf(all);
    }

    /** How many warnings were reported, listed or not. */
    public synchronized long count() {
        return count;
    }

    /** The warnings collected (at most {@link #MAX_LISTED}, in order) and how many were reported, read together. */
    public record Listed(List<Warning> warnings, long count) {}

    /** {@link #list} and {@link #count} at one moment. */
    public synchronized Listed listed() {
        return new Listed(List.copyOf(all), count);
    }

    /** Adds {@code other}'s warnings after these (a copy's, chosen to speak for every copy). */
    public void addAll(Warnings other) {
        List<Warning> theirs;
        long theirCount;
        synchronized (other) {
            theirs = List.copyOf(other.all);
            theirCount = other.count;
        }
        synchronized (this) {
            theirs.forEach(this::add);
            count += theirCount - theirs.size();
        }
    }

    /** A warning added by the router itself (a row an INSERT IGNORE left out), as a backend's would be. */
    public synchronized void add(String level, int code, String sqlState, String message) {
        add(Warning.newBuilder().setLevel(level).setCode(code).setSqlState(sqlState).setMessage(message).build());
    }

    private void add(Warning w) {
        count++;
        if (all.size() < MAX_LISTED) all.add(w);
    }

    /** The warnings no reply carried yet (the client's Statement.getWarnings chains them). */
    public synchronized List<Warning> unsent() {
        if (sent >= all.size()) return List.of();
        var out = List.copyOf(all.subList(sent, all.size()));
        sent = all.size();
        return out;
    }

}
