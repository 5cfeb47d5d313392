package org.lutra.merge;

import org.lutra.protocol.Column;
import org.lutra.protocol.Row;

import java.sql.SQLException;
import java.util.List;

/**
 * A forward-only stream of result rows: what every execution operator consumes and produces.
 * Not thread-safe; one consumer pulls. {@link #close()} releases whatever backend resources are
 * still held and may be called at any time, also twice.
 */
public interface RowSource extends AutoCloseable {
    List<Column> columns();

    /** The next row, or null when there are no more. */
    Row next() throws SQLException;

    @Override
    void close();
}
