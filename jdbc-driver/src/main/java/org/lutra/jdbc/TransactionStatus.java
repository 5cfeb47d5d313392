package org.lutra.jdbc;

import java.sql.Connection;

/**
 * The session's transaction state as the router last reported it ({@code ServerMessage.status}).
 * The router, not the driver, is the authority: it also sees SQL the application sends itself
 * ({@code SET autocommit = 0}, {@code START TRANSACTION}, a deadlock that rolled back), so
 * {@code getAutoCommit()} and {@code getTransactionIsolation()} read this rather than remembering
 * what the driver asked for.
 *
 * @param isolation a {@code Connection.TRANSACTION_*} level other than NONE
 */
record TransactionStatus(boolean autoCommit, boolean inTransaction, int isolation) {

    /** Until the router says otherwise: MySQL's defaults, which the shards have. */
    static final TransactionStatus INITIAL = new TransactionStatus(true, false, Connection.TRANSACTION_REPEATABLE_READ);

    /**
     * The state after a reply carrying {@code status}. An isolation value that is not a level
     * (0, as an unset proto3 field reads) leaves the previous level in place.
     */
    TransactionStatus next(org.lutra.protocol.SessionStatus status) {
        int level = isLevel(status.getIsolation()) ? status.getIsolation() : isolation;
        return new TransactionStatus(status.getAutocommit(), status.getInTransaction(), level);
    }

    static boolean isLevel(int level) {
        return level == Connection.TRANSACTION_READ_UNCOMMITTED || level == Connection.TRANSACTION_READ_COMMITTED
                || level == Connection.TRANSACTION_REPEATABLE_READ || level == Connection.TRANSACTION_SERIALIZABLE;
    }

    /** The SQL name of a level, as in {@code SET SESSION TRANSACTION ISOLATION LEVEL <name>}; null if none. */
    static String sqlName(int level) {
        return switch (level) {
            case Connection.TRANSACTION_READ_UNCOMMITTED -> "READ UNCOMMITTED";
            case Connection.TRANSACTION_READ_COMMITTED -> "READ COMMITTED";
            case Connection.TRANSACTION_REPEATABLE_READ -> "REPEATABLE READ";
            case Connection.TRANSACTION_SERIALIZABLE -> "SERIALIZABLE";
            default -> null;
        };
    }
}
