package org.lutra.it.rqg;

import org.lutra.it.rqg.KnownFailures.Failure;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/** The tests {@link KnownFailures}' signatures are made of: shapes of a statement's text and of both sides' answers. */
final class Signatures {
    static final String AGGREGATE = "\\b(COUNT|SUM|MIN|MAX|AVG|BIT_OR|BIT_AND|BIT_XOR)\\s*\\(";

    private Signatures() {}

    /** As many rows, and every value that differs is a number within a thousandth (relative) of MariaDB's. */
    static boolean numbersClose(Failure f) {
        var l = f.lutraRows();
        var r = f.referenceRows();
        if (l == null || r == null || l.rows().size() != r.rows().size() || l.rows().equals(r.rows())) return false;
        java.util.Comparator<List<String>> order = java.util.Comparator.comparing(String::valueOf);
        var a = l.rows().stream().sorted(order).toList();
        var b = r.rows().stream().sorted(order).toList();
        for (int i = 0; i < a.size(); i++) {
            for (int c = 0; c < a.get(i).size(); c++) {
                String x = a.get(i).get(c), y = b.get(i).get(c);
                if (java.util.Objects.equals(x, y)) continue;
                if (x == null || y == null) return false;
                try {
                    var dx = new java.math.BigDecimal(x);
                    var dy = new java.math.BigDecimal(y);
                    var bound = dy.abs().max(java.math.BigDecimal.ONE).multiply(new java.math.BigDecimal("0.001"));
                    if (dx.subtract(dy).abs().compareTo(bound) > 0) return false;
                } catch (NumberFormatException e) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Whether the statement itself (not a subquery of it) calls an aggregate. */
    static boolean aggregates(String sql) {
        return Pattern.compile(AGGREGATE, Pattern.CASE_INSENSITIVE).matcher(withoutSubqueries(sql)).find();
    }

    /** {@code sql} with every parenthesized subquery cut out. */
    static String withoutSubqueries(String sql) {
        var out = new StringBuilder();
        int skip = -1, depth = 0;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '(') {
                depth++;
                if (skip < 0 && sql.regionMatches(true, i + 1, "SELECT", 0, 6)) skip = depth;
            }
            if (skip < 0) out.append(c);
            if (c == ')') {
                if (depth == skip) skip = -1;
                depth--;
            }
        }
        return out.toString();
    }

    /** The tables whose primary key {@code id} does not hold their routing column (tr, tc, and fc when SAME AS fp). */
    static List<String> routedByOtherThanKey(RqgSchema schema) {
        if (schema == null) return List.of("tr", "tc");
        return schema.tables().stream().filter(t -> t.routing() != null && !t.routing().equals("id") && t.columns().getFirst().name().equals("id"))
                .map(RqgSchema.Table::name).toList();
    }

    /**
     * MariaDB answers the statement's rows made DISTINCT in a derived table ({@code SELECT DISTINCT * FROM (SELECT ...
     * AS c1, ... LIMIT 2^64 - 1) AS d0}, ordered and limited alike where a LIMIT needs it) as Lutra answered the statement: where MariaDB
     * answers the statement itself otherwise, the bug is MariaDB's.
     */
    static boolean mariaDbsDerivedDistinctIsLutras(Failure f) {
        if (f.reference() == null || f.lutraRows() == null) return false;
        String derived = f.shrunk().query() instanceof Query.Select s ? derivedDistinct(s) : derivedDistinct(f.sql());
        if (derived == null) return f.shrunk().query() instanceof Query.Select s && (noRowPastTheOffset(f, s) || limitedDistinctRows(f, s));
        var lutra = f.lutraRows();
        if (f.reference().apply(derived) instanceof Outcome.Rows r && Comparer.sameRows(r.rows(), lutra.rows(), r.types(), false)) return true;
        return f.shrunk().query() instanceof Query.Select s && distinctOfRowsWithoutDistinct(f, s);
    }

    /**
     * Where MariaDB's derived table is wrong too (its temporary table's column can be too narrow for the value: {@code
     * AVG(NULLIF(3, -94))} there reads 0.9999): the statement without DISTINCT, unordered and unlimited, answers on
     * MariaDB the rows that Lutra's are the distinct ones of, each of Lutra's rows once.
     */
    private static boolean distinctOfRowsWithoutDistinct(Failure f, Query.Select s) {
        if (!s.distinct() || s.limit() != null || !s.orderBy().isEmpty()) return false;
        var rows = new Query.Select(s.with(), false, s.items(), s.from(), s.joins(), s.where(), s.groupBy(), s.having(), List.of(), 0, null, s.features());
        var lutra = f.lutraRows().rows();
        return f.reference().apply(rows.sql()) instanceof Outcome.Rows all && Comparer.distinctRowsOf(lutra, all.rows(), all.types())
                && Comparer.sameRows(lutra, all.rows(), all.types(), true);
    }

    /**
     * Where the order cannot be carried into a derived table (ORDER BY an expression): Lutra answered no row, and the
     * statement's distinct rows, unordered and unlimited, are no more than its OFFSET — the answer is no row whatever the
     * order.
     */
    private static boolean noRowPastTheOffset(Failure f, Query.Select s) {
        var offset = s.limit() == null ? null : OFFSET.matcher(s.limit());
        if (!s.distinct() || offset == null || !offset.matches() || !f.lutraRows().rows().isEmpty()) return false;
        var items = new java.util.ArrayList<Query.Item>();
        for (int i = 0; i < s.items().size(); i++) items.add(new Query.Item(s.items().get(i).expr(), "c" + (i + 1))); // names of their own
        var rows = new Query.Select(s.with(), false, items, s.from(), s.joins(), s.where(), s.groupBy(), s.having(), List.of(), 0, null, s.features());
        var counted = f.reference().apply("SELECT COUNT(*) FROM (SELECT DISTINCT * FROM (" + rows.sql() + MATERIALIZED + ") AS d0) AS d1");
        return counted instanceof Outcome.Rows r && r.rows().size() == 1 && Long.parseLong(r.rows().getFirst().getFirst()) <= Long.parseLong(offset.group(1));
    }

    /**
     * Where the order cannot be carried into a derived table (ORDER BY an expression) and the statement has a LIMIT: Lutra's
     * rows are distinct rows of the statement's (made DISTINCT in a derived table on MariaDB), as many as the LIMIT and
     * OFFSET leave of them — which rows the order picks is left unchecked, so this says only that no row is wrong or missing
     * by count.
     */
    private static boolean limitedDistinctRows(Failure f, Query.Select s) {
        var limit = s.limit() == null ? null : LIMIT.matcher(s.limit());
        if (!s.distinct() || limit == null || !limit.matches()) return false;
        var items = new java.util.ArrayList<Query.Item>();
        for (int i = 0; i < s.items().size(); i++) items.add(new Query.Item(s.items().get(i).expr(), "c" + (i + 1)));
        var rows = new Query.Select(s.with(), false, items, s.from(), s.joins(), s.where(), s.groupBy(), s.having(), List.of(), 0, null, s.features());
        if (!(f.reference().apply("SELECT DISTINCT * FROM (" + rows.sql() + MATERIALIZED + ") AS d0") instanceof Outcome.Rows all)) return false;
        long count = Long.parseLong(limit.group(1));
        long offset = limit.group(2) == null ? 0 : Long.parseLong(limit.group(2));
        long expected = Math.max(0, Math.min(count, all.rows().size() - offset));
        var lutra = f.lutraRows().rows();
        return lutra.size() == expected && Comparer.distinctRowsOf(lutra, all.rows(), all.types());
    }

    private static final Pattern LIMIT = Pattern.compile("(\\d+)(?: OFFSET (\\d+))?");

    private static final Pattern OFFSET = Pattern.compile("\\d+ OFFSET (\\d+)");

    private static String derivedDistinct(Query.Select s) {
        if (!s.distinct()) return null;
        var items = new java.util.ArrayList<Query.Item>();
        var names = new HashSet<String>();
        for (int i = 0; i < s.items().size(); i++) {
            var item = s.items().get(i);
            String name = item.alias() != null ? item.alias() : "c" + (i + 1);
            if (!names.add(name.toLowerCase(Locale.ROOT))) return null; // a derived table's columns need names of their own
            items.add(new Query.Item(item.expr(), name));
        }
        String orderAndLimit = "";
        if (s.limit() != null) {
            if (s.tieBreak() != Query.Select.POSITIONS || !s.orderBy().stream().allMatch(t -> t.matches("\\d+( DESC)?"))) return null;
            var order = new java.util.ArrayList<>(s.orderBy());
            for (int i = 1; i <= items.size(); i++) if (!order.contains(String.valueOf(i)) && !order.contains(i + " DESC")) order.add(String.valueOf(i));
            orderAndLimit = " ORDER BY " + String.join(", ", order) + " LIMIT " + s.limit();
        }
        var rows = new Query.Select(s.with(), false, items, s.from(), s.joins(), s.where(), s.groupBy(), s.having(), List.of(), 0, null, s.features());
        return "SELECT DISTINCT * FROM (" + rows.sql() + MATERIALIZED + ") AS d0" + orderAndLimit;
    }

    /** A derived table with a LIMIT is materialized, not merged into the outer statement (where MariaDB's bug would be again). */
    private static final String MATERIALIZED = " LIMIT 18446744073709551615";

    private static final Pattern DISTINCT_TEXT = Pattern.compile(
            "(?is)SELECT\\s+DISTINCT\\s+(.*?)((?:\\s+ORDER\\s+BY\\s+\\d+(?:\\s+DESC)?(?:\\s*,\\s*\\d+(?:\\s+DESC)?)*)?(?:\\s+LIMIT\\s+\\d+(?:\\s+OFFSET\\s+\\d+)?)?)");

    /** The same for a statement given as text (a reproducer): its ORDER BY positions and LIMIT go outside. */
    private static String derivedDistinct(String sql) {
        var m = DISTINCT_TEXT.matcher(sql.strip());
        return m.matches() ? "SELECT DISTINCT * FROM (SELECT " + m.group(1) + MATERIALIZED + ") AS d0" + m.group(2) : null;
    }
}
