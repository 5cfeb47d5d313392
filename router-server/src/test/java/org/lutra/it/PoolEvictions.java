package org.lutra.it;

import com.zaxxer.hikari.SQLExceptionOverride;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * HikariCP's hook for every SQLException its proxies see ({@code exceptionOverrideClassName}): keeps
 * those HikariCP evicts the connection for (SQLState 08xxx or 0A000), then lets HikariCP decide as
 * it would without the hook. A test asserts that normal use of the driver through a pool shows none.
 */
public final class PoolEvictions implements SQLExceptionOverride {
    private static final ConcurrentLinkedQueue<String> EVICTING = new ConcurrentLinkedQueue<>();

    @java.lang.Override
    public Override adjudicate(SQLException e) {
        String state = e.getSQLState();
        if (state != null && (state.startsWith("08") || state.equals("0A000"))) EVICTING.add(state + " " + e.getMessage());
        return Override.CONTINUE_EVICT;
    }

    static List<String> seen() {
        return List.copyOf(EVICTING);
    }

    static void clear() {
        EVICTING.clear();
    }
}
