package org.lutra.exec;

import org.lutra.backend.Backends;
import org.lutra.backend.SessionState;
import org.lutra.backend.ValueCodec;
import org.lutra.backend.Warnings;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Runs a session's {@code SET} of variables ({@link SessionCommand.SetVariables}) on one pooled connection that
 * carries the session's variables, so that MySQL evaluates the expressions (including
 * {@code CONCAT(@@sql_mode, ...)} and {@code @x + 1}), checks the values and reports its own errors;
 * then reads every assigned variable back as the server normalized it and turns each into an SQL
 * literal of the same type, character set and collation. Those literals are what the session
 * carries to its other backend connections: the same value everywhere, whatever the expression was
 * ({@code NOW()} is evaluated once).
 */
final class SessionSet {
    /**
     * sql_mode flags whose whole effect is on how a backend evaluates the statement it gets. The
     * others would change how the router must read or write SQL (ANSI_QUOTES, NO_BACKSLASH_ESCAPES,
     * PIPES_AS_CONCAT, IGNORE_SPACE, HIGH_NOT_PRECEDENCE, EMPTY_STRING_IS_NULL, ORACLE, ...), what
     * values the router computes with (NO_UNSIGNED_SUBTRACTION, PAD_CHAR_TO_FULL_LENGTH) or
     * generated ids (NO_AUTO_VALUE_ON_ZERO): refused.
     */
    static final Set<String> SQL_MODES = Set.of("STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "ERROR_FOR_DIVISION_BY_ZERO", "NO_ZERO_DATE",
            "NO_ZERO_IN_DATE", "NO_ENGINE_SUBSTITUTION", "NO_AUTO_CREATE_USER", "ONLY_FULL_GROUP_BY", "ALLOW_INVALID_DATES", "TRADITIONAL",
            "NO_DIR_IN_CREATE", "REAL_AS_FLOAT", "TIME_ROUND_FRACTIONAL", "SIMULTANEOUS_ASSIGNMENT");

    private SessionSet() {}

    /** The session's variables after {@code plan}; {@code current} is what they are before it. */
    static SessionState run(Backends.Placement placement, SessionCommand.SetVariables plan, List<Value> params, SessionState current, int isolation,
                            Warnings warnings) throws SQLException {
        Connection c = placement.borrow(isolation);
        boolean known = false;
        try {
            placement.carry(c, current, placement.pool());
            var set = new StringBuilder("SET ");
            var names = new LinkedHashMap<String, Boolean>();
            for (var a : plan.assignments()) {
                if (set.length() > 4) set.append(", ");
                set.append(a.user() ? quoteUser(a.name()) : "SESSION " + a.name()).append(" = ").append(a.expression());
                names.put(a.name(), a.user());
            }
            try (PreparedStatement ps = c.prepareStatement(set.toString())) {
                for (int i = 0; i < params.size(); i++) ValueCodec.bind(ps, i + 1, params.get(i));
                ps.execute();
                warnings.read(placement, c, ps.getWarnings());
            }
            Map<String, String> values = readBack(c, names);
            String modes = values.get("sql_mode");
            if (modes != null) requireCarriedModes(modes);
            SessionState next = current.with(values);
            placement.carried().record(c, next);
            known = true;
            return next;
        } finally {
            placement.waiting().remove(c);
            if (!known) {
                // the SET may have changed some variables before it failed: this connection carries what nobody knows
                placement.carried().forget(c);
                placement.pool().evictConnection(c);
            }
            c.close();
        }
    }

    private static void requireCarriedModes(String literal) throws SQLException {
        var refused = new TreeSet<String>();
        String modes = literal.substring(1, literal.length() - 1);
        for (String mode : modes.split(",")) {
            if (!mode.isEmpty() && !SQL_MODES.contains(mode.toUpperCase(Locale.ROOT))) refused.add(mode);
        }
        if (!refused.isEmpty()) {
            throw Refusal.of("sql_mode " + String.join(",", refused) + " is not supported through the router: it changes how SQL text"
                    + " is read or values computed, and the router reads and rewrites statements itself (taken: "
                    + String.join(",", new TreeSet<>(SQL_MODES)) + ")");
        }
    }

    /** Each variable's value as an SQL literal the SET of another connection reproduces exactly. */
    private static Map<String, String> readBack(Connection c, Map<String, Boolean> names) throws SQLException {
        var select = new StringBuilder("SELECT ");
        for (var e : names.entrySet()) {
            if (select.length() > 7) select.append(", ");
            if (e.getValue()) {
                String v = quoteUser(e.getKey());
                select.append(v).append(", CHARSET(").append(v).append("), COLLATION(").append(v).append(')');
            } else {
                select.append("@@SESSION.").append(e.getKey());
            }
        }
        var values = new LinkedHashMap<String, String>();
        try (var st = c.createStatement(); ResultSet rs = st.executeQuery(select.toString())) {
            rs.next();
            int column = 1;
            for (var e : names.entrySet()) {
                if (e.getValue()) {
                    values.put(e.getKey(), userLiteral(rs, column));
                    column += 3;
                } else {
                    String v = rs.getString(column++);
                    int type = rs.getMetaData().getColumnType(column - 1);
                    values.put(e.getKey(), v == null ? "NULL" : isNumber(type) ? v : quote(v));
                }
            }
        }
        return values;
    }

    /** A user variable's value with its type: integer, exact decimal (its scale kept), double, binary or text in its collation. */
    private static String userLiteral(ResultSet rs, int column) throws SQLException {
        int type = rs.getMetaData().getColumnType(column);
        if (rs.getObject(column) == null) return "NULL";
        return switch (type) {
            case Types.BIGINT, Types.INTEGER, Types.SMALLINT, Types.TINYINT -> rs.getString(column);
            case Types.DECIMAL, Types.NUMERIC -> {
                BigDecimal d = rs.getBigDecimal(column);
                yield d.toPlainString();
            }
            case Types.DOUBLE, Types.FLOAT, Types.REAL -> {
                String d = Double.toString(rs.getDouble(column));
                yield d.contains("E") ? d : d + "E0";
            }
            default -> {
                String charset = rs.getString(column + 1);
                String collation = rs.getString(column + 2);
                if ("binary".equalsIgnoreCase(charset)) yield "X'" + HexFormat.of().formatHex(rs.getBytes(column)) + "'";
                String text = "_utf8mb4" + quote(rs.getString(column));
                yield (charset.equalsIgnoreCase("utf8mb4") ? text : "CONVERT(" + text + " USING " + charset + ")") + " COLLATE " + collation;
            }
        };
    }

    private static boolean isNumber(int type) {
        return switch (type) {
            case Types.BIGINT, Types.INTEGER, Types.SMALLINT, Types.TINYINT, Types.DECIMAL, Types.NUMERIC, Types.DOUBLE -> true;
            default -> false;
        };
    }

    private static String quoteUser(String name) {
        return "@`" + name.substring(1).replace("`", "``") + "`";
    }

    /** A MySQL string literal (the router refuses NO_BACKSLASH_ESCAPES, so backslash escapes hold). */
    static String quote(String s) {
        var out = new StringBuilder(s.length() + 2).append('\'');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '\\' -> out.append("\\\\");
                case '\'' -> out.append("\\'");
                case '\0' -> out.append("\\0");
                default -> out.append(ch);
            }
        }
        return out.append('\'').toString();
    }
}
