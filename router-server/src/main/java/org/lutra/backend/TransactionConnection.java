package org.lutra.backend;

import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A connection of a partition's transactions pool ({@link Backends.Placement#begin}), kept at {@code autocommit=0}:
 * the first statement run on it starts its transaction, with no {@code BEGIN} round trip (what Connector/J sends one
 * MariaDB after {@code setAutoCommit(false)}), and nothing the transaction runs is committed until its
 * {@code COMMIT}, {@code XA COMMIT} or their rollbacks.
 *
 * <p>Why a type of its own, not a {@link Connection}: an auto-commit statement run on such a connection would stay
 * uncommitted, its locks held, until whatever ran there next ended it. The auto-commit pools' connections come from
 * {@link Backends.Placement#borrow}, these only from here, and they go back only through {@link #giveBack} or
 * {@link #evict}: given back with a transaction still open on its server (a path that forgot to end it), a
 * connection is evicted instead — its server rolls that transaction back as the connection closes — never pooled.
 */
public final class TransactionConnection {
    private static final Logger log = LoggerFactory.getLogger(TransactionConnection.class);

    private final Backends.Placement placement;
    private final HikariDataSource pool;
    private final Connection connection;

    TransactionConnection(Backends.Placement placement, HikariDataSource pool, Connection connection) {
        this.placement = placement;
        this.pool = pool;
        this.connection = connection;
    }

    /** The connection, for the transaction's own statements (and its COMMIT, ROLLBACK, XA commands) only. */
    public Connection connection() {
        return connection;
    }

    /** Makes the connection carry a session's variables ({@link Backends.Placement#carry}); evicted if the SET fails. */
    public void carry(SessionState state) throws SQLException {
        placement.carry(connection, state, pool);
    }

    /**
     * Back to the pool, once what ran on it was committed or rolled back; a connection whose server still reports a
     * transaction open (the status of its last answer: no round trip) is evicted instead.
     */
    public void giveBack() {
        placement.waiting().remove(connection);
        boolean open;
        try {
            open = BackendDriver.inTransaction(connection);
        } catch (SQLException | RuntimeException e) {
            open = true;
        }
        if (open) {
            log.warn("partition {}: a transaction's connection came back with its transaction open; closed, not pooled (its server rolls it back)",
                    placement.name());
            evict();
            return;
        }
        try {
            connection.close();
        } catch (SQLException ignored) {
            // the pool copes with a connection that fails to close
        }
    }

    /** Closed for good (its state is unknown, or a transaction may be open on it): its server ends what it had open. */
    public void evict() {
        placement.waiting().remove(connection);
        pool.evictConnection(connection); // what it carried is forgotten with it (weak keys): it may be closed already, beyond asking
    }
}
