package org.lutra.jdbc;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.sql.SQLDataException;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLInvalidAuthorizationSpecException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLSyntaxErrorException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransactionRollbackException;

/**
 * Builds the SQLExceptions the driver throws. The SQLState decides the subclass, the same way for
 * errors the router sends and errors found here, so callers can catch by class or by state.
 */
final class Errors {
    static final String UNABLE_TO_CONNECT = "08001";
    static final String CONNECTION_FAILURE = "08S01";
    static final String CONNECTION_DOES_NOT_EXIST = "08003";
    static final String PROTOCOL_VIOLATION = "08P01";
    static final String FEATURE_NOT_SUPPORTED = "0A000";
    static final String MISSING_PARAMETER = "07001";
    static final String INVALID_PARAMETER_INDEX = "07009";
    static final String NUMERIC_OUT_OF_RANGE = "22003";
    static final String INVALID_DATETIME = "22007";
    static final String INVALID_CAST = "22018";
    /** Connector/J's state for an argument a method does not take (S1009), such as a statement executeQuery will not run. */
    static final String ILLEGAL_ARGUMENT = "S1009";
    static final String INVALID_CURSOR_STATE = "24000";
    static final String INVALID_COLUMN = "S1009";
    static final String GENERAL = "HY000";
    static final String QUERY_TIMEOUT = "HYT00";

    private Errors() {}

    /** An exception of the standard subclass that fits the SQLState, as JDBC 4 intends. */
    static SQLException of(String message, String sqlState, int vendorCode, Throwable cause) {
        String state = sqlState == null || sqlState.isEmpty() ? GENERAL : sqlState;
        SQLException e;
        if (state.equals(FEATURE_NOT_SUPPORTED)) {
            e = new SQLFeatureNotSupportedException(message, state, vendorCode);
        } else if (state.startsWith("42")) {
            e = new SQLSyntaxErrorException(message, state, vendorCode);
        } else if (state.startsWith("23")) {
            e = new SQLIntegrityConstraintViolationException(message, state, vendorCode);
        } else if (state.startsWith("28")) {
            e = new SQLInvalidAuthorizationSpecException(message, state, vendorCode);
        } else if (state.startsWith("08")) {
            e = new SQLNonTransientConnectionException(message, state, vendorCode);
        } else if (state.startsWith("40")) {
            e = new SQLTransactionRollbackException(message, state, vendorCode);
        } else if (state.startsWith("22")) {
            e = new SQLDataException(message, state, vendorCode);
        } else if (state.equals(QUERY_TIMEOUT) || state.equals("70100")) {
            e = new SQLTimeoutException(message, state, vendorCode);
        } else {
            e = new SQLException(message, state, vendorCode);
        }
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }

    static SQLException of(String message, String sqlState) {
        return of(message, sqlState, 0, null);
    }

    /** An Error message the router sent, with its state and the backend's error number kept. */
    static SQLException fromServer(org.lutra.protocol.Error error) {
        return of(error.getMessage(), error.getSqlState(), error.getVendorCode(), null);
    }

    static SQLFeatureNotSupportedException unsupported(String what) {
        return new SQLFeatureNotSupportedException(what + " is not supported by the Lutra driver", FEATURE_NOT_SUPPORTED);
    }

    static java.sql.SQLClientInfoException unsupportedClientInfo(String what) {
        return new java.sql.SQLClientInfoException(what + " is not supported by the Lutra driver", FEATURE_NOT_SUPPORTED, 0, java.util.Map.of());
    }

    static SQLException closed(String what) {
        return new SQLNonTransientConnectionException(what + " is closed", CONNECTION_DOES_NOT_EXIST);
    }

    /** The socket failed mid-conversation: the session cannot be resumed, the connection is gone. */
    static SQLException connectionLost(String host, IOException cause) {
        if (cause instanceof SocketTimeoutException) {
            var e = new SQLTimeoutException("no answer from Lutra router " + host + " within the socket timeout;"
                    + " the connection was closed", CONNECTION_FAILURE);
            e.initCause(cause);
            return e;
        }
        return of("communication with Lutra router " + host + " failed, the connection was closed: " + cause.getMessage(),
                CONNECTION_FAILURE, 0, cause);
    }

    static SQLException queryTimeout(int seconds) {
        return new SQLTimeoutException("no answer from the router within " + seconds + " s (the query timeout and the time the router "
                + "has to report it); whether the statement took effect is unknown", QUERY_TIMEOUT);
    }
}
