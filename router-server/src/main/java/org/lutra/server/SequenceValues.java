package org.lutra.server;

import org.lutra.catalog.Sequences;
import org.lutra.catalog.TableDef;
import org.lutra.ddl.CatalogLease;
import org.lutra.exec.Backends;
import org.lutra.plan.SequenceCalls;
import org.lutra.protocol.Refusal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A session's sequence calls, evaluated by the router before the statement is planned (README "Sequences").
 * NEXTVAL and SETVAL run alone on the sequence's partition ({@code SELECT NEXTVAL(`s`)} on a pooled
 * connection: MariaDB's sequences are not transactional, so the client's transaction is not involved),
 * and each call is replaced by its value. LASTVAL is the session's own: MariaDB keeps it per connection,
 * and the router's backend connections are pooled, so the backend's LASTVAL would be whichever session used
 * that connection last. The router keeps the last value each of this session's NEXTVAL got, per sequence.
 */
final class SequenceValues {
    private final Supplier<org.lutra.catalog.Catalog> catalog;
    private final Backends backends;
    private final CatalogLease lease;
    private final String database;
    /** The last value NEXTVAL gave this session, by lower-case sequence name and its stored definition. */
    private final Map<String, Long> last = new HashMap<>();

    SequenceValues(Supplier<org.lutra.catalog.Catalog> catalog, Backends backends, CatalogLease lease, String database) {
        this.catalog = catalog;
        this.backends = backends;
        this.lease = lease;
        this.database = database;
    }

    /** {@code sql} with its sequence calls replaced by their values; unchanged when it has none. */
    String substitute(String sql, boolean batch) throws SQLException {
        List<SequenceCalls.Call> calls = SequenceCalls.find(sql);
        if (calls.isEmpty()) return sql;
        if (batch) throw Refusal.of("sequence functions (" + calls.getFirst().kind() + ") in a JDBC batch: run them as statements of their own");
        if (calls.stream().anyMatch(c -> c.kind() != SequenceCalls.Kind.LASTVAL)) {
            String why = SequenceCalls.whyNotOnce(sql);
            if (why != null) {
                var c = calls.getFirst();
                throw Refusal.of(c.kind() + "(" + c.name() + ") inside " + why + ": run SELECT NEXTVAL(" + c.name()
                        + ") first and use its value (README \"Sequences\")");
            }
        } else if (SequenceCalls.whyNotOnce(sql) != null && SequenceCalls.whyNotOnce(sql).startsWith("a column's DEFAULT")) {
            throw Refusal.of("LASTVAL in a column's DEFAULT (README \"Sequences\")");
        }
        var out = new StringBuilder(sql.length() + 16 * calls.size());
        int at = 0;
        for (var call : calls) {
            Long value = evaluate(call);
            out.append(sql, at, call.start()).append("CAST(").append(value == null ? "NULL" : value.toString()).append(" AS SIGNED)");
            if (call.label() != null) out.append(" AS `").append(call.label().replace("`", "``")).append('`');
            at = call.end();
        }
        return out.append(sql, at, sql.length()).toString();
    }

    private Long evaluate(SequenceCalls.Call call) throws SQLException {
        TableDef t = sequence(call);
        String key = t.name().toLowerCase(Locale.ROOT) + "\u0000" + t.createText();
        return switch (call.kind()) {
            case LASTVAL -> last.get(key);
            case NEXTVAL -> {
                Long v = run(t, "SELECT NEXTVAL(" + quote(t.name()) + ")");
                last.put(key, v);
                yield v;
            }
            case SETVAL -> {
                if (call.args().contains("?")) throw Refusal.of("SETVAL with parameters: write its value as a literal");
                yield run(t, "SELECT SETVAL(" + quote(t.name()) + call.args() + ")");
            }
        };
    }

    private TableDef sequence(SequenceCalls.Call call) throws SQLException {
        if (call.schema() != null && !call.schema().equalsIgnoreCase(database)) {
            throw new SQLException("sequence in database '" + call.schema() + "': this router serves database '" + database + "' only", "42000", 1044);
        }
        TableDef t = catalog.get().table(call.name());
        if (t == null && lease != null && lease.refresh()) t = catalog.get().table(call.name()); // another router may have just created it
        if (t == null) throw new SQLException("Table '" + database + "." + call.name() + "' doesn't exist", "42S02", 1146);
        if (!Sequences.is(t)) throw new SQLException("'" + database + "." + t.name() + "' is not a SEQUENCE", "42S02", 4089);
        return t;
    }

    /** Runs a one-value SELECT on the sequence's partition; a backend error names the logical database, not the partition's. */
    private Long run(TableDef t, String sql) throws SQLException {
        var placement = backends.placement(Sequences.partition(t));
        try (Connection c = placement.borrow(Connection.TRANSACTION_REPEATABLE_READ); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            long v = rs.getLong(1);
            return rs.wasNull() ? null : v;
        } catch (SQLException e) {
            String partitionDb;
            try {
                partitionDb = backends.placement(Sequences.partition(t)).database();
            } catch (RuntimeException ignored) {
                partitionDb = null;
            }
            String message = partitionDb == null ? e.getMessage() : e.getMessage().replace(partitionDb + ".", database + ".");
            throw new SQLException("[" + placement.name() + "@" + placement.backend() + "] " + message, e.getSQLState(), e.getErrorCode(), e);
        }
    }

    private static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}
