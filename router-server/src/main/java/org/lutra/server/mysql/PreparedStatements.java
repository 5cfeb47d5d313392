package org.lutra.server.mysql;

import java.io.ByteArrayOutputStream;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * One connection's server-side prepared statements (COM_STMT_PREPARE): the text, its number of
 * parameters, the types the client last bound, long data sent for parameters
 * (COM_STMT_SEND_LONG_DATA), and an open cursor (COM_STMT_EXECUTE with a cursor, read by COM_STMT_FETCH).
 * The router plans the text at its first execution (the plan is cached by text), so preparing costs
 * nothing on the shards.
 */
final class PreparedStatements {
    /** Prepared statements one connection may hold (MySQL's max_prepared_stmt_count is server-wide, 16,382 by default). */
    static final int MAX_STATEMENTS = 16_382;

    static final class Statement {
        final long id;
        final String sql;
        private final int paramCount;
        private int[] types;
        private final Map<Integer, ByteArrayOutputStream> longData = new HashMap<>();
        /** The column list last sent for this statement's results, and its definitions as sent. */
        ResultColumns columns;
        /** An open cursor of the last execution, or null. */
        StatementCursor cursor;

        Statement(long id, String sql, int paramCount) {
            this.id = id;
            this.sql = sql;
            this.paramCount = paramCount;
        }

        int paramCount() {
            return paramCount;
        }

        int[] types() {
            return types;
        }

        void types(int[] types) {
            this.types = types;
        }

        void appendLongData(int param, byte[] data) {
            if (param < 0 || param >= paramCount) return; // MySQL ignores it too (and fails the execution)
            longData.computeIfAbsent(param, p -> new ByteArrayOutputStream()).writeBytes(data);
        }

        byte[] longData(int param) {
            var data = longData.get(param);
            return data == null ? null : data.toByteArray();
        }

        long longDataBytes() {
            return longData.values().stream().mapToLong(ByteArrayOutputStream::size).sum();
        }

        void clearLongData() {
            longData.clear();
        }
    }

    private final Map<Long, Statement> byId = new HashMap<>();
    private long nextId = 1;
    private long lastPrepared;

    Statement prepare(String sql, int paramCount) throws SQLException {
        if (byId.size() >= MAX_STATEMENTS) {
            throw new SQLException("Can't create more than max_prepared_stmt_count statements (current value: " + MAX_STATEMENTS + ")", "42000", 1461);
        }
        var statement = new Statement(nextId++, sql, paramCount);
        byId.put(statement.id, statement);
        lastPrepared = statement.id;
        return statement;
    }

    /** The statement {@code id} names; 0xFFFFFFFF is MariaDB's "the one prepared last" (a client pipelining prepare and execute). */
    Statement get(long id) throws SQLException {
        var statement = byId.get(id == 0xFFFFFFFFL ? lastPrepared : id);
        if (statement == null) {
            throw new SQLException("Unknown prepared statement handler (" + id + ") given to mysqld_stmt_execute", "HY000", 1243);
        }
        return statement;
    }

    Statement remove(long id) {
        return byId.remove(id == 0xFFFFFFFFL ? lastPrepared : id);
    }

    Iterable<Statement> all() {
        return byId.values();
    }

    void clear() {
        byId.clear();
    }
}
