package org.lutra.server;

import org.lutra.catalog.Sequences;
import org.lutra.catalog.TableDef;
import org.lutra.ddl.CatalogLease;
import org.lutra.backend.Backends;
import org.lutra.plan.SequenceCalls;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

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
 * A session's sequence calls, evaluated by the router before the statement is planned (docs/ids-and-sequences.md).
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
    /** The last value NEXTVAL gave this session, by lower-case sequence name. */
    private final Map<String, Long> last = new HashMap<>();
    /** ER_SEQUENCE_RUN_OUT. */
    private static final int RUN_OUT = 4084;

    SequenceValues(Supplier<org.lutra.catalog.Catalog> catalog, Backends backends, CatalogLease lease, String database) {
        this.catalog = catalog;
        this.backends = backends;
        this.lease = lease;
        this.database = database;
    }

    /** A statement's text and parameters once its sequence calls are values (a SETVAL's parameters are used up in it). */
    record Substituted(String sql, List<Value> params) {}

    /** {@code sql} with its sequence calls replaced by their values, and the parameters that are left; unchanged when it has none. */
    Substituted substitute(String sql, List<Value> params) throws SQLException {
        if (!SequenceCalls.mayCall(sql)) return new Substituted(sql, params); // every statement passes here: one scan, no more
        List<SequenceCalls.Call> calls = SequenceCalls.find(sql);
        if (SequenceCalls.malformedSetval(sql, calls)) {
            throw new SQLException("You have an error in your SQL syntax: SETVAL(sequence, n [, used [, round]]) takes integer literals,"
                    + " as MariaDB's grammar does, not expressions", "42000", 1064);
        }
        if (calls.isEmpty()) return new Substituted(sql, params);
        var markers = SequenceCalls.markers(sql);
        var used = new java.util.TreeSet<Integer>();
        calls = new java.util.ArrayList<>(calls);
        for (int i = 0; i < calls.size(); i++) calls.set(i, withParameters(calls.get(i), markers, params, used));
        var left = new java.util.ArrayList<Value>();
        for (int i = 0; i < params.size(); i++) if (!used.contains(i)) left.add(params.get(i));
        return new Substituted(withValues(sql, calls), left);
    }

    /**
     * A SETVAL call with its parameter markers replaced by the parameters' values as literals, as
     * Connector/J writes parameters into the text: MariaDB's SETVAL takes integer literals only (an
     * expression, a quoted string, a decimal point or NULL are syntax errors, 1064), and an application
     * on Connector/J's default client-side prepared statements binds them as parameters. An integer
     * (or a decimal without a fraction) is its digits, a boolean 1 or 0; any other value is what
     * Connector/J would write as a string, a decimal or NULL: MariaDB's 1064.
     */
    private static SequenceCalls.Call withParameters(SequenceCalls.Call call, List<Integer> markers, List<Value> params, java.util.Set<Integer> used)
            throws SQLException {
        if (call.kind() != SequenceCalls.Kind.SETVAL || !call.args().contains("?")) return call;
        int argsStart = call.end() - 1 - call.args().length(); // the arguments end right before the call's ')'
        var args = new StringBuilder();
        for (int k = 0; k < call.args().length(); k++) {
            int index = markers.indexOf(argsStart + k);
            if (index < 0) {
                args.append(call.args().charAt(k));
                continue;
            }
            if (index >= params.size()) throw syntax(call, "a '?' with no parameter bound to it");
            args.append(integerLiteral(call, params.get(index)));
            used.add(index);
        }
        return new SequenceCalls.Call(call.start(), call.end(), call.kind(), call.schema(), call.name(), args.toString());
    }

    private static String integerLiteral(SequenceCalls.Call call, Value v) throws SQLException {
        return switch (v.getKindCase()) {
            case INT_VALUE -> Long.toString(v.getIntValue());
            case BOOL_VALUE -> v.getBoolValue() ? "1" : "0"; // Connector/J writes a boolean parameter as 1 or 0
            case DECIMAL_VALUE -> {
                if (!v.getDecimalValue().matches("-?\\d{1,30}")) throw syntax(call, "the parameter " + v.getDecimalValue() + ", which is not an integer");
                yield v.getDecimalValue();
            }
            default -> throw syntax(call, "a parameter that is not an integer (" + v.getKindCase().name().toLowerCase(Locale.ROOT) + ")");
        };
    }

    private static SQLException syntax(SequenceCalls.Call call, String what) {
        return new SQLException("You have an error in your SQL syntax: SETVAL(" + call.name() + ", ...) takes integer literals, as MariaDB's grammar"
                + " does, and here has " + what, "42000", 1064);
    }

    /** {@code sql} with each call replaced by its value. */
    private String withValues(String sql, List<SequenceCalls.Call> calls) throws SQLException {
        if (calls.stream().anyMatch(c -> c.kind() != SequenceCalls.Kind.LASTVAL)) {
            String why = SequenceCalls.whyNotOnce(sql);
            if (why != null) {
                var c = calls.getFirst();
                throw Refusal.of(c.kind() + "(" + c.name() + ") inside " + why + ": run SELECT NEXTVAL(" + c.name()
                        + ") first and use its value (docs/ids-and-sequences.md)");
            }
        } else if (SequenceCalls.whyNotOnce(sql) != null && SequenceCalls.whyNotOnce(sql).startsWith("a column's DEFAULT")) {
            throw Refusal.of("LASTVAL in a column's DEFAULT (docs/ids-and-sequences.md)");
        }
        // the label MariaDB gives an item is its text as written: an item whose call becomes a value gets it as its alias
        var labels = new java.util.TreeMap<Integer, String>();
        for (int[] item : SequenceCalls.unlabeledItems(sql, calls)) {
            labels.put(item[1], " AS `" + sql.substring(item[0], item[1]).replace("`", "``") + "`");
        }
        var out = new StringBuilder(sql.length() + 16 * calls.size());
        int at = 0;
        // MariaDB reports an unknown sequence as 4091 in a SELECT without tables, as a missing table (1146) where it opens tables
        boolean opensTables = !SequenceCalls.blanked(sql).stripLeading().regionMatches(true, 0, "SELECT", 0, 6);
        for (var call : calls) {
            Long value = evaluate(call, opensTables);
            while (!labels.isEmpty() && labels.firstKey() <= call.start()) {
                var label = labels.pollFirstEntry();
                out.append(sql, at, label.getKey()).append(label.getValue());
                at = label.getKey();
            }
            String literal = value == null ? "NULL" : value.toString();
            // in a SELECT typed BIGINT as NEXTVAL is (a small literal or CAST(3 AS SIGNED) is an INT to MariaDB): LEAST with the largest
            // BIGINT; in an INSERT the plain literal, which may be a routing value (those must be literals)
            out.append(sql, at, call.start()).append(opensTables ? literal : "LEAST(" + literal + ", 9223372036854775807)");
            at = call.end();
        }
        for (var label : labels.entrySet()) {
            out.append(sql, at, label.getKey()).append(label.getValue());
            at = label.getKey();
        }
        return out.append(sql, at, sql.length()).toString();
    }

    private Long evaluate(SequenceCalls.Call call, boolean opensTables) throws SQLException {
        TableDef t = sequence(call, opensTables);
        // MariaDB keeps it across ALTER SEQUENCE and SETVAL, and forgets it when the sequence is dropped and created again
        String key = t.name().toLowerCase(Locale.ROOT) + " " + Sequences.id(t);
        return switch (call.kind()) {
            case LASTVAL -> last.get(key);
            case NEXTVAL -> {
                Long v;
                try {
                    v = run(t, "SELECT NEXTVAL(" + quote(t.name()) + ")");
                } catch (SQLException e) {
                    if (e.getErrorCode() == RUN_OUT) last.remove(key); // as MariaDB: a NEXTVAL past the end leaves LASTVAL NULL
                    throw e;
                }
                last.put(key, v);
                yield v;
            }
            case SETVAL -> {
                yield run(t, "SELECT SETVAL(" + quote(t.name()) + call.args() + ")");
            }
        };
    }

    private TableDef sequence(SequenceCalls.Call call, boolean opensTables) throws SQLException {
        if (call.schema() != null && !call.schema().equalsIgnoreCase(database)) {
            throw new SQLException("sequence in database '" + call.schema() + "': this router serves database '" + database + "' only", "42000", 1044);
        }
        TableDef t = catalog.get().table(call.name());
        if (t == null && lease != null && lease.refresh()) t = catalog.get().table(call.name()); // another router may have just created it
        if (t == null && opensTables) throw new SQLException("Table '" + database + "." + call.name() + "' doesn't exist", "42S02", 1146);
        if (t == null) throw new SQLException("Unknown SEQUENCE: '" + database + "." + call.name() + "'", "42S02", 4091);
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
            String message = String.valueOf(e.getMessage()).replace(placement.database() + ".", database + ".");
            throw new SQLException("[" + placement.name() + "@" + placement.backend() + "] " + message, e.getSQLState(), e.getErrorCode(), e);
        }
    }

    private static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}
