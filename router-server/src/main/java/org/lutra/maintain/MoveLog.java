package org.lutra.maintain;

import org.lutra.backend.Backends;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The durable record of moves, on partition 0 (where the stored catalog is), so that every router
 * sees every move:
 * <pre>
 * lutra_moves      (id, owner, statement, state, keys_done, keys_total, rows_moved, router, epoch, started, updated, message)
 * lutra_move_keys  (move_id, seq, k, target)   -- the plan: key k goes to partition target, in seq order
 * </pre>
 * A move's plan is written whole with its row, in one transaction: a move is recorded with all
 * its keys or not at all. {@code keys_done} is how many keys, in {@code seq} order, are where the
 * plan wants them (only ever raised). {@code epoch} names the runner that owns the move: pausing
 * leaves it, resuming raises it, and a runner stops before its next batch when the row's state is
 * not {@code running} or its epoch is not the runner's.
 */
final class MoveLog {
    static final String MOVES = "lutra_moves";
    static final String KEYS = "lutra_move_keys";

    /** One move as SHOW MOVES lists it. */
    record Job(long id, String owner, String statement, String state, long keysDone, long keysTotal, long rowsMoved, String router,
               long epoch, String started, String updated, String message) {}

    /** One planned key: the key as text (normalized by the owner's key column when read back) and its target partition's name. */
    record Step(long seq, String key, String target) {}

    private final Backends.Placement p0;

    MoveLog(Backends.Placement p0) {
        this.p0 = p0;
    }

    void install() throws SQLException {
        try (Connection c = p0.borrow(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS " + MOVES + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, owner VARCHAR(64) NOT NULL,"
                    + " statement TEXT NOT NULL, state VARCHAR(16) NOT NULL, keys_done BIGINT NOT NULL DEFAULT 0, keys_total BIGINT NOT NULL,"
                    + " rows_moved BIGINT NOT NULL DEFAULT 0, router VARCHAR(64) NOT NULL, epoch BIGINT NOT NULL DEFAULT 1,"
                    + " started DATETIME(3) NOT NULL, updated DATETIME(3) NOT NULL, message TEXT) ENGINE=InnoDB");
            st.execute("CREATE TABLE IF NOT EXISTS " + KEYS + " (move_id BIGINT NOT NULL, seq BIGINT NOT NULL, k TEXT CHARACTER SET utf8mb4"
                    + " COLLATE utf8mb4_bin NOT NULL, target VARCHAR(64) NOT NULL, PRIMARY KEY (move_id, seq)) ENGINE=InnoDB");
        }
    }

    /** Records a running move of {@code router} with its whole plan; returns its id. */
    long create(String owner, String statement, String router, List<Step> plan) throws SQLException {
        try (Connection c = p0.borrow()) {
            c.setAutoCommit(false);
            try {
                long id;
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + MOVES + " (owner, statement, state, keys_total, router, started, updated)"
                        + " VALUES (?, ?, 'running', ?, ?, NOW(3), NOW(3))", Statement.RETURN_GENERATED_KEYS)) {
                    ps.setString(1, owner);
                    ps.setString(2, statement.length() > 4000 ? statement.substring(0, 4000) + "..." : statement);
                    ps.setLong(3, plan.size());
                    ps.setString(4, router);
                    ps.executeUpdate();
                    try (ResultSet rs = ps.getGeneratedKeys()) {
                        rs.next();
                        id = rs.getLong(1);
                    }
                }
                for (int from = 0; from < plan.size(); from += 500) {
                    var chunk = plan.subList(from, Math.min(plan.size(), from + 500));
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + KEYS + " (move_id, seq, k, target) VALUES "
                            + "(?, ?, ?, ?), ".repeat(chunk.size() - 1) + "(?, ?, ?, ?)")) {
                        int i = 1;
                        for (Step s : chunk) {
                            ps.setLong(i++, id);
                            ps.setLong(i++, s.seq());
                            ps.setString(i++, s.key());
                            ps.setString(i++, s.target());
                        }
                        ps.executeUpdate();
                    }
                }
                c.commit();
                return id;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    /** The move, or null if there is none with that id. */
    Job job(long id) throws SQLException {
        var jobs = select(" WHERE id = " + id);
        return jobs.isEmpty() ? null : jobs.getFirst();
    }

    /** Newest first. */
    List<Job> jobs() throws SQLException {
        return select(" ORDER BY id DESC");
    }

    /** Ids of the moves {@code router} was running (it stopped or crashed in the middle). */
    List<Job> runningOf(String router) throws SQLException {
        var out = new ArrayList<Job>();
        for (Job j : select(" WHERE state = 'running' ORDER BY id")) if (j.router().equals(router)) out.add(j);
        return out;
    }

    /** The next {@code limit} planned keys from position {@code from} (0-based). */
    List<Step> next(long id, long from, int limit) throws SQLException {
        try (Connection c = p0.borrow();
             PreparedStatement ps = c.prepareStatement("SELECT seq, k, target FROM " + KEYS + " WHERE move_id = ? AND seq >= ? ORDER BY seq LIMIT ?")) {
            ps.setLong(1, id);
            ps.setLong(2, from);
            ps.setInt(3, limit);
            var out = new ArrayList<Step>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.add(new Step(rs.getLong(1), rs.getString(2), rs.getString(3)));
            }
            return out;
        }
    }

    /** The keys before position {@code done} are in place; {@code rows} more rows moved. Never lowers keys_done (two runners may overlap). */
    void progress(long id, long done, long rows) throws SQLException {
        update("UPDATE " + MOVES + " SET keys_done = GREATEST(keys_done, ?), rows_moved = rows_moved + ?, updated = NOW(3) WHERE id = ?", done, rows, id);
    }

    /** Pauses a running move; false if it was not running. */
    boolean pause(long id) throws SQLException {
        return update("UPDATE " + MOVES + " SET state = 'paused', updated = NOW(3), message = NULL WHERE id = ? AND state = 'running'", id) == 1;
    }

    /**
     * Takes a move that is not done over for {@code router} (paused, failed, or running on a router
     * that crashed or is taken over): state running, a new epoch. Returns the epoch, or -1 if the move is done or unknown.
     */
    long claim(long id, String router) throws SQLException {
        try (Connection c = p0.borrow()) {
            c.setAutoCommit(false);
            try {
                long epoch;
                try (PreparedStatement ps = c.prepareStatement("SELECT epoch FROM " + MOVES + " WHERE id = ? AND state <> 'done' FOR UPDATE")) {
                    ps.setLong(1, id);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) {
                            c.rollback();
                            return -1;
                        }
                        epoch = rs.getLong(1) + 1;
                    }
                }
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + MOVES + " SET state = 'running', router = ?, epoch = ?, message = NULL,"
                        + " updated = NOW(3) WHERE id = ?")) {
                    ps.setString(1, router);
                    ps.setLong(2, epoch);
                    ps.setLong(3, id);
                    ps.executeUpdate();
                }
                c.commit();
                return epoch;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    /** Ends the run of {@code epoch} in {@code state} (done or failed), unless another runner took the move over or it was paused. */
    void finish(long id, long epoch, String state, String message) throws SQLException {
        update("UPDATE " + MOVES + " SET state = ?, message = ?, updated = NOW(3) WHERE id = ? AND epoch = ? AND state = 'running'",
                state, message == null ? null : message.length() > 1000 ? message.substring(0, 1000) : message, id, epoch);
    }

    /** Deletes a done move's plan (its row stays for SHOW MOVES), in chunks so that no one statement holds many locks. */
    void forgetPlan(long id) throws SQLException {
        while (update("DELETE FROM " + KEYS + " WHERE move_id = ? LIMIT 5000", id) > 0) {
            // next chunk
        }
    }

    private List<Job> select(String rest) throws SQLException {
        try (Connection c = p0.borrow(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                // the times as the server's text: the backend driver's getString of a DATETIME drops a fraction's leading zeros (.019 → .19000)
                "SELECT id, owner, statement, state, keys_done, keys_total, rows_moved, router, epoch, CAST(started AS CHAR), CAST(updated AS CHAR),"
                        + " message FROM " + MOVES + rest)) {
            var out = new ArrayList<Job>();
            while (rs.next()) {
                out.add(new Job(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getLong(5), rs.getLong(6), rs.getLong(7),
                        rs.getString(8), rs.getLong(9), rs.getString(10), rs.getString(11), rs.getString(12)));
            }
            return out;
        }
    }

    private int update(String sql, Object... params) throws SQLException {
        try (Connection c = p0.borrow(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) ps.setObject(i + 1, params[i]);
            return ps.executeUpdate();
        }
    }
}
