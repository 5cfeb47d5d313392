package org.lutra.it;

import org.lutra.shards.Shards;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The row-lock waits the shards' InnoDB shows now: which connection waits for a lock on which table. A test uses it to see
 * that a statement waits for another transaction's lock, rather than inferring it from the statement being unfinished after
 * some time (which a loaded machine can make true of a statement that takes no lock).
 *
 * <p>InnoDB serves {@code information_schema.INNODB_LOCK_WAITS}, {@code INNODB_LOCKS} and {@code INNODB_TRX} from a copy it
 * renews only once nobody has read it for 100 ms, so a read may get an old copy (the router's deadlock detector reads them
 * too). Each read therefore proves how recent its copy is, as the detector does ({@code txn/LockWaitViews}): this connection's
 * open transaction inserts one more row into a temporary table before each read, and the copy counts only if it shows that
 * transaction with as many rows modified — it was taken after the insert. Reads happen at the instants of the detector's
 * wall-clock grid ({@value #ROUND_MILLIS} ms), so that this test's reads and the detector's renew the copy for each other
 * instead of keeping it old; a stale copy is read again at the next instant.
 */
final class InnoDbLockWaits implements AutoCloseable {
    /** One waiting lock request: the connection (on server {@code server}) and the table, as InnoDB names it ({@code `db`.`t`}). */
    record Wait(int server, long thread, String table) {}

    private static final String WAITS = "SELECT 0, r.trx_mysql_thread_id, l.lock_table FROM information_schema.INNODB_LOCK_WAITS w"
            + " JOIN information_schema.INNODB_TRX r ON r.trx_id = w.requesting_trx_id"
            + " JOIN information_schema.INNODB_LOCKS l ON l.lock_id = w.requested_lock_id"
            + " UNION ALL SELECT 1, trx_rows_modified, NULL FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()";
    /** The deadlock detector's round ({@code txn/DeadlockDetector}): InnoDB renews its copy once it has not been read for 100 ms. */
    private static final long ROUND_MILLIS = 120;
    private static final int MAX_STALE_READS = 100;

    private final List<Connection> servers = new ArrayList<>();
    private final long[] marks;
    private List<Wait> last;
    private long lastMarked;

    /** Watches servers 0..n-1 of {@code shards}, n the number of {@code databases}: one that exists on each (for the temporary table). */
    InnoDbLockWaits(Shards shards, List<String> databases) throws SQLException {
        marks = new long[databases.size()];
        for (int s = 0; s < databases.size(); s++) {
            Connection c = shards.connect(s, databases.get(s));
            servers.add(c);
            try (var st = c.createStatement()) {
                st.execute("CREATE TEMPORARY TABLE lock_wait_marks (n INT) ENGINE=InnoDB");
            }
            c.setAutoCommit(false);
        }
    }

    /**
     * The waits of every server, each read from a copy taken after this call began. Callers at once share one read: a read
     * whose marks were inserted after a caller began serves it too.
     */
    List<Wait> now() throws SQLException, InterruptedException {
        long began = System.nanoTime();
        synchronized (this) {
            if (last != null && lastMarked > began) return last;
            lastMarked = System.nanoTime();
            last = List.copyOf(read());
            return last;
        }
    }

    private List<Wait> read() throws SQLException, InterruptedException {
        for (int s = 0; s < servers.size(); s++) {
            try (var st = servers.get(s).createStatement()) {
                st.executeUpdate("INSERT INTO lock_wait_marks VALUES (1)");
            }
            marks[s]++;
        }
        var waits = new ArrayList<Wait>();
        var stale = new ArrayList<Integer>();
        for (int s = 0; s < servers.size(); s++) stale.add(s);
        for (int round = 0; !stale.isEmpty(); round++) {
            if (round == MAX_STALE_READS) throw new IllegalStateException("servers " + stale + " answered " + round + " reads of their lock waits from an old copy");
            sleepToNextInstant();
            for (var it = stale.iterator(); it.hasNext(); ) {
                int s = it.next();
                if (read(s, waits)) it.remove();
            }
        }
        return waits;
    }

    /** Adds server {@code server}'s waits to {@code waits} if its copy is recent; whether it was. */
    private boolean read(int server, List<Wait> waits) throws SQLException {
        var found = new ArrayList<Wait>();
        long seen = -1;
        try (var st = servers.get(server).createStatement(); var rs = st.executeQuery(WAITS)) {
            while (rs.next()) {
                if (rs.getInt(1) == 1) seen = rs.getLong(2);
                else found.add(new Wait(server, rs.getLong(2), rs.getString(3)));
            }
        }
        if (seen != marks[server]) return false;
        waits.addAll(found);
        return true;
    }

    private static void sleepToNextInstant() throws InterruptedException {
        long now = System.currentTimeMillis();
        Thread.sleep((now / ROUND_MILLIS + 1) * ROUND_MILLIS - now);
    }

    /** The id of {@code c}'s connection on its server. */
    static long threadOf(Connection c) throws SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery("SELECT CONNECTION_ID()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public void close() throws SQLException {
        for (Connection c : servers) c.close();
    }
}
