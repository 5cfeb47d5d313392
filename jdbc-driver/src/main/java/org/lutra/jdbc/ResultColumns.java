package org.lutra.jdbc;

import org.lutra.protocol.Column;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A result's columns and the index of their labels. A statement keeps the last one it was given
 * and names it to the router ({@code Execute.known_columns}), which answers {@code same_columns}
 * when the next result's columns are equal: they are then neither sent nor decoded nor indexed again.
 */
final class ResultColumns {
    /** The router's {@code ResultSet.columns_id} for this list; 0 for lists it did not name (built in the driver). */
    final long id;
    final List<Column> list;
    private final Map<String, Integer> byLabel = new HashMap<>();

    ResultColumns(long id, List<Column> list) {
        this.id = id;
        this.list = list;
        for (int i = list.size() - 1; i >= 0; i--) { // backwards, so the first match wins
            byLabel.put(label(list.get(i)).toLowerCase(Locale.ROOT), i + 1);
        }
    }

    static String label(Column c) {
        return c.getLabel().isEmpty() ? c.getName() : c.getLabel();
    }

    /** The 1-based index of the first column labelled {@code label} (case-insensitive), or null. */
    Integer indexOf(String label) {
        return byLabel.get(label.toLowerCase(Locale.ROOT));
    }
}
