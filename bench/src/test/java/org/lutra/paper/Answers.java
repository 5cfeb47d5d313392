package org.lutra.paper;

import javax.sql.rowset.CachedRowSet;
import javax.sql.rowset.RowSetProvider;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Every answer a connection's prepared statements gave, in order: each query's rows (as
 * {@code getString} gives them, read whole before the workload's code sees them) and each
 * update's count. Two runs of the same transactions, one through the router and one on one
 * MariaDB, are compared answer by answer ({@link #differences}).
 */
final class Answers {
    /** One statement's answer: its rows, or its update count (-1 for a query). */
    record Answer(String sql, List<String> params, List<String> columns, List<List<String>> rows, long count) {}

    private static final Pattern ORDER_BY = Pattern.compile("(?i)\\bORDER BY\\s+([A-Za-z_][A-Za-z0-9_.]*)");
    private static final Pattern LIMIT = Pattern.compile("(?i)\\bLIMIT\\s+\\d+");

    final List<Answer> list = new ArrayList<>();

    /** {@code connection}, whose prepared statements record their answers here. */
    Connection wrap(Connection connection) {
        InvocationHandler handler = (proxy, method, args) -> {
            Object result = invoke(connection, method, args);
            if (method.getName().equals("prepareStatement") && args != null && args.length == 1 && args[0] instanceof String sql) {
                return statement((PreparedStatement) result, sql);
            }
            return result;
        };
        return (Connection) Proxy.newProxyInstance(Answers.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
    }

    private PreparedStatement statement(PreparedStatement ps, String sql) {
        var params = new TreeMap<Integer, String>();
        InvocationHandler handler = (proxy, method, args) -> {
            String name = method.getName();
            if (name.equals("clearParameters")) params.clear();
            if (name.startsWith("set") && args != null && args.length >= 2 && args[0] instanceof Integer i) params.put(i, String.valueOf(args[1]));
            if (name.equals("executeQuery") && (args == null || args.length == 0)) {
                ResultSet rs = ps.executeQuery();
                CachedRowSet rows = RowSetProvider.newFactory().createCachedRowSet();
                rows.populate(rs);
                rs.close();
                var columns = new ArrayList<String>();
                for (int c = 1; c <= rows.getMetaData().getColumnCount(); c++) columns.add(rows.getMetaData().getColumnLabel(c).toLowerCase(Locale.ROOT));
                var read = new ArrayList<List<String>>();
                while (rows.next()) {
                    var row = new ArrayList<String>();
                    for (int c = 1; c <= columns.size(); c++) row.add(canonical(rows.getString(c)));
                    read.add(row);
                }
                rows.beforeFirst();
                list.add(new Answer(sql, List.copyOf(params.values()), columns, read, -1));
                return rows;
            }
            Object result = invoke(ps, method, args);
            if (name.equals("executeUpdate") && (args == null || args.length == 0)) {
                list.add(new Answer(sql, List.copyOf(params.values()), List.of(), List.of(), ((Number) result).longValue()));
            }
            return result;
        };
        return (PreparedStatement) Proxy.newProxyInstance(Answers.class.getClassLoader(), new Class<?>[] {PreparedStatement.class}, handler);
    }

    private static final java.util.regex.Pattern DATETIME = java.util.regex.Pattern.compile("(\\d{4}-\\d{2}-\\d{2})[ T](\\d{2}:\\d{2})(:\\d{2})?(\\.\\d+)?");

    /**
     * A DATETIME's text as one form: drivers write the same value differently ({@code 2011-03-13 07:08:00.0} through
     * MariaDB Connector/J, {@code 2011-03-13T07:08} through Connector/J and Lutra's driver); the values are compared.
     */
    static String canonical(String text) {
        if (text == null) return null;
        var m = DATETIME.matcher(text);
        if (!m.matches()) return text;
        String fraction = m.group(4) == null ? "" : m.group(4).replaceFirst("0+$", "").replaceFirst("\\.$", "");
        return m.group(1) + "T" + m.group(2) + (m.group(3) == null ? ":00" : m.group(3)) + fraction;
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * Where {@code lutra}'s answers differ from {@code reference}'s (one MariaDB's): rows compared as
     * multisets; under {@code ORDER BY col}, also the order column's values in order, and with a LIMIT
     * the rows whose order value ties with the last row's may be any of the ties, as MySQL allows.
     */
    static List<String> differences(Answers lutra, Answers reference) {
        var out = new ArrayList<String>();
        if (lutra.list.size() != reference.list.size()) {
            out.add(lutra.list.size() + " answers through the router, " + reference.list.size() + " on one MariaDB");
        }
        for (int i = 0; i < Math.min(lutra.list.size(), reference.list.size()); i++) {
            Answer l = lutra.list.get(i);
            Answer r = reference.list.get(i);
            String problem = difference(l, r);
            if (problem != null) out.add("answer " + i + ", " + r.sql() + " " + r.params() + ": " + problem);
        }
        return out;
    }

    private static String difference(Answer l, Answer r) {
        if (!l.sql().equals(r.sql())) return "another statement through the router: " + l.sql();
        if (l.count() != r.count()) return "update count " + l.count() + ", one MariaDB's " + r.count();
        if (r.count() >= 0) return null;
        if (!l.columns().equals(r.columns())) return "columns " + l.columns() + ", one MariaDB's " + r.columns();
        var m = ORDER_BY.matcher(r.sql());
        if (!m.find()) return sorted(l.rows()).equals(sorted(r.rows())) ? null : "rows " + sorted(l.rows()) + ", one MariaDB's " + sorted(r.rows());
        String key = m.group(1).toLowerCase(Locale.ROOT).replaceFirst("^.*\\.", "");
        int column = r.columns().indexOf(key);
        if (column < 0) return sorted(l.rows()).equals(sorted(r.rows())) ? null : "rows " + sorted(l.rows()) + ", one MariaDB's " + sorted(r.rows());
        var lKeys = l.rows().stream().map(row -> row.get(column)).toList();
        var rKeys = r.rows().stream().map(row -> row.get(column)).toList();
        if (!lKeys.equals(rKeys)) return "order values " + lKeys + ", one MariaDB's " + rKeys;
        if (!LIMIT.matcher(r.sql()).find() || r.rows().isEmpty()) {
            return sorted(l.rows()).equals(sorted(r.rows())) ? null : "rows " + l.rows() + ", one MariaDB's " + r.rows();
        }
        String last = rKeys.getLast();
        var lBefore = sorted(l.rows().stream().filter(row -> !Objects.equals(row.get(column), last)).toList());
        var rBefore = sorted(r.rows().stream().filter(row -> !Objects.equals(row.get(column), last)).toList());
        return lBefore.equals(rBefore) ? null : "rows " + l.rows() + ", one MariaDB's " + r.rows();
    }

    private static List<List<String>> sorted(List<List<String>> rows) {
        var out = new ArrayList<>(rows);
        out.sort(Comparator.comparing(Object::toString));
        return out;
    }
}
