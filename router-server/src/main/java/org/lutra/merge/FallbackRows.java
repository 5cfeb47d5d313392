package org.lutra.merge;

import org.lutra.protocol.Column;
import org.lutra.protocol.Row;

import java.sql.SQLException;
import java.util.List;

/**
 * The read side of lookup validation: streams the rows from the partitions the lookup table
 * pointed at, counting them; when they are exhausted and fewer than {@code expected} came back,
 * opens the fallback (the same statement on the other partitions, restricted to the keys not
 * yet asked there) and streams its rows too. Every row lives in one partition, so no row is
 * returned twice.
 */
public final class FallbackRows implements RowSource {
    /** Opens the fallback; called at most once, after the primary rows are exhausted. */
    public interface Fallback {
        RowSource open() throws SQLException;
    }

    private final RowSource primary;
    private final long expected;
    private final Fallback fallback;
    private RowSource secondary;
    private long seen;
    private boolean primaryDone;

    public FallbackRows(RowSource primary, long expected, Fallback fallback) {
        this.primary = primary;
        this.expected = expected;
        this.fallback = fallback;
    }

    /**
     * Reads {@code primary} whole before returning any of it; if fewer than {@code expected} rows
     * came, drops them and returns {@code instead}'s rows only. For a read whose fallback asks again
     * about every key (which rows of the first read belong to which key is not known).
     */
    public static RowSource replacing(RowSource primary, long expected, Fallback instead) throws SQLException {
        var held = new java.util.ArrayList<Row>();
        try {
            Row row;
            while ((row = primary.next()) != null) held.add(row);
        } finally {
            primary.close();
        }
        if (held.size() >= expected) return new ListRows(primary.columns(), held);
        return instead.open();
    }

    @Override
    public List<Column> columns() {
        return primary.columns();
    }

    @Override
    public Row next() throws SQLException {
        if (!primaryDone) {
            Row row = primary.next();
            if (row != null) {
                seen++;
                return row;
            }
            primaryDone = true;
            primary.close();
            if (seen >= expected) return null;
            secondary = fallback.open();
        }
        return secondary == null ? null : secondary.next();
    }

    @Override
    public void close() {
        primary.close();
        if (secondary != null) secondary.close();
    }
}
