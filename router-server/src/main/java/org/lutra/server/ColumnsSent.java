package org.lutra.server;

import org.lutra.protocol.Column;
import org.lutra.protocol.ResultSet;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The column lists one session was sent, by id, so that a statement run again is answered "the
 * same columns as the ones you hold" instead of them all again. A point select's two column
 * descriptions were most of its reply, and decoding them (and indexing their labels) a large part
 * of the driver's work per execution.
 *
 * <p>Exact by construction: the client names the list it holds ({@code Execute.known_columns}, the
 * {@code columns_id} it was last given for that statement), and the router compares the new
 * columns with that very list. A reply the client never got leaves it naming an older list, which
 * is still compared as what it is. A list forgotten here (the oldest beyond {@link #KEPT}) is simply
 * sent again.
 */
final class ColumnsSent {
    private static final int KEPT = 256;
    private long lastId;
    private final Map<Long, List<Column>> byId = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, List<Column>> eldest) {
            return size() > KEPT;
        }
    };

    /** Fills {@code header}'s columns: {@code same_columns} if they equal the list {@code known}, else the list under a new id. */
    void describe(ResultSet.Builder header, long known, List<Column> columns) {
        if (known != 0 && columns.equals(byId.get(known))) {
            header.setSameColumns(true).setColumnsId(known);
            return;
        }
        long id = ++lastId;
        byId.put(id, columns);
        header.addAllColumns(columns).setColumnsId(id);
    }
}
