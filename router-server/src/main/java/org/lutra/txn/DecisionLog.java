package org.lutra.txn;

import org.lutra.backend.Backends;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The durable record of commit decisions: table {@value #TABLE} in every partition's database.
 *
 * <p>Protocol (presumed abort): a coordinator that prepared every writing XA branch inserts
 * {@code (gtrid, 'C')} inside its own plain branch's transaction and commits that branch. The
 * decision is therefore durable exactly when the coordinator branch commits (InnoDB flushes its
 * log at commit), and no decision row means "abort".
 *
 * <p>Recovery must not abort a transaction whose coordinator is still about to commit it. It
 * first writes its own verdict, {@code (gtrid, 'A')}, in auto-commit: the primary key lets only
 * one of the two rows exist. If the coordinator's insert is uncommitted, recovery's insert waits
 * for it; a duplicate key then means the coordinator committed ('C'), success means it never
 * will (its own insert will fail with a duplicate key, and it rolls back).
 *
 * <p>How long an abort verdict must stay: as long as its coordinator could still insert a commit
 * row, i.e. until its bound (prepare_timeout_ms + decision_timeout_ms from the start of phase
 * one, checked by the coordinator after its insert) has passed. Recovery writes the verdict only
 * after seeing a branch prepared, so after phase one began; the row is deleted only when it is
 * older than twice the grace period (which the configuration keeps above the bound; twice, for
 * the server's clock) and a complete pass found no branch of it prepared. A branch its coordinator
 * prepares even later is rolled back: that coordinator can no longer commit, and recovery
 * presumes abort.
 */
final class DecisionLog {
    static final String TABLE = "lutra_xa_decisions";
    private static final String DDL = "CREATE TABLE IF NOT EXISTS " + TABLE + " ("
            + "gtrid VARBINARY(64) NOT NULL PRIMARY KEY, "
            + "outcome CHAR(1) NOT NULL, "
            + "decided_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)) ENGINE=InnoDB";
    private static final int DUPLICATE_KEY = 1062;

    enum Outcome { COMMIT, ABORT }

    /** Thrown when recovery decided this transaction before its coordinator could. */
    static final class Fenced extends SQLException {
        Fenced(String gtrid) {
            super("transaction " + gtrid + " was rolled back by XA recovery before it could commit", "40000", 0);
        }
    }

    private DecisionLog() {}

    static void install(Backends backends) throws SQLException {
        for (var p : backends.placements()) {
            try (Connection c = p.borrow(); Statement st = c.createStatement()) {
                st.execute(DDL);
            }
        }
    }

    /** Inside the coordinator branch's open transaction; durable when that transaction commits. */
    static void recordCommit(Connection coordinator, String gtrid) throws SQLException {
        try (PreparedStatement ps = coordinator.prepareStatement("INSERT INTO " + TABLE + " (gtrid, outcome) VALUES (?, 'C')")) {
            ps.setString(1, gtrid);
            ps.executeUpdate();
        } catch (SQLException e) {
            if (e.getErrorCode() == DUPLICATE_KEY) throw new Fenced(gtrid);
            throw e;
        }
    }

    /** The outcome of {@code gtrid}, deciding "abort" first if nobody decided yet (auto-commit connection). */
    static Outcome settle(Connection c, String gtrid) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (gtrid, outcome) VALUES (?, 'A')")) {
            ps.setString(1, gtrid);
            ps.executeUpdate();
            return Outcome.ABORT;
        } catch (SQLException e) {
            if (e.getErrorCode() != DUPLICATE_KEY) throw e;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT outcome FROM " + TABLE + " WHERE gtrid = ?")) {
            ps.setString(1, gtrid);
            try (var rs = ps.executeQuery()) {
                if (!rs.next()) throw new SQLException("decision for " + gtrid + " vanished while reading it", "HY000", 0);
                return "C".equals(rs.getString(1)) ? Outcome.COMMIT : Outcome.ABORT;
            }
        }
    }

    /** The logged outcome of {@code gtrid}, or null if there is no row (yet, or no more). */
    static Outcome read(Connection c, String gtrid) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT outcome FROM " + TABLE + " WHERE gtrid = ?")) {
            ps.setString(1, gtrid);
            try (var rs = ps.executeQuery()) {
                if (!rs.next()) return null;
                return "C".equals(rs.getString(1)) ? Outcome.COMMIT : Outcome.ABORT;
            }
        }
    }

    /** Decisions older than {@code seconds}: gtrid → outcome. */
    static Map<String, Outcome> olderThan(Connection c, int seconds) throws SQLException {
        var out = new HashMap<String, Outcome>();
        try (PreparedStatement ps = c.prepareStatement("SELECT gtrid, outcome FROM " + TABLE
                + " WHERE decided_at < NOW(3) - INTERVAL ? SECOND")) {
            ps.setInt(1, seconds);
            try (var rs = ps.executeQuery()) {
                while (rs.next()) out.put(rs.getString(1), "C".equals(rs.getString(2)) ? Outcome.COMMIT : Outcome.ABORT);
            }
        }
        return out;
    }

    /** Deletes abort verdicts older than {@code seconds}, except those of {@code keep}. */
    static void forgetAbortsOlderThan(Connection c, int seconds, Collection<String> keep) throws SQLException {
        var old = olderThan(c, seconds);
        old.values().removeIf(o -> o != Outcome.ABORT);
        old.keySet().removeAll(keep);
        forget(c, old.keySet());
    }

    static void forget(Connection c, Collection<String> gtrids) throws SQLException {
        if (gtrids.isEmpty()) return;
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + TABLE + " WHERE gtrid = ?")) {
            for (String g : gtrids) {
                ps.setString(1, g);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }
}
