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

    /** Lutra answered more rows than MariaDB, and the same rows once duplicates are dropped. */
    static boolean sameSetMoreRows(Failure f) {
        var l = f.lutraRows();
        var r = f.referenceRows();
        if (l == null || r == null || l.rows().size() <= r.rows().size()) return false;
        return new HashSet<>(l.rows()).equals(new HashSet<>(r.rows()));
    }

    /**
     * As many rows, and the rows only one side has differ in values that are NULL on Lutra's side and
     * values on MariaDB's (matched in sorted order).
     */
    static boolean onlyNullsWhereReferenceHasValues(Failure f) {
        var l = f.lutraRows();
        var r = f.referenceRows();
        if (l == null || r == null || l.rows().size() != r.rows().size() || r.rows().isEmpty()) return false;
        var onlyLutra = new java.util.ArrayList<>(l.rows());
        var onlyReference = new java.util.ArrayList<>(r.rows());
        for (var row : r.rows()) onlyLutra.remove(row);
        for (var row : l.rows()) onlyReference.remove(row);
        if (onlyLutra.isEmpty() || onlyLutra.size() != onlyReference.size()) return false;
        java.util.Comparator<List<String>> order = java.util.Comparator.comparing(String::valueOf);
        onlyLutra.sort(order);
        onlyReference.sort(order);
        for (int i = 0; i < onlyLutra.size(); i++) {
            var lr = onlyLutra.get(i);
            var rr = onlyReference.get(i);
            for (int c = 0; c < lr.size(); c++) {
                if (java.util.Objects.equals(lr.get(c), rr.get(c))) continue;
                if (lr.get(c) != null || rr.get(c) == null) return false;
            }
        }
        return true;
    }

    /** Some rows differ, and each row only Lutra answered holds a NULL (where MariaDB's holds a value, or was merged away). */
    static boolean lutraOnlyRowsHaveNulls(Failure f) {
        var l = f.lutraRows();
        var r = f.referenceRows();
        if (l == null || r == null) return false;
        var onlyLutra = new java.util.ArrayList<>(l.rows());
        for (var row : r.rows()) onlyLutra.remove(row);
        var onlyReference = new java.util.ArrayList<>(r.rows());
        for (var row : l.rows()) onlyReference.remove(row);
        return !onlyReference.isEmpty() && onlyLutra.stream().allMatch(row -> row.contains(null));
    }

    /** Lutra's rows repeat one and are all among MariaDB's (a LIMIT took duplicates in place of further rows). */
    static boolean duplicatesOfMariaDbsRows(Failure f) {
        var l = f.lutraRows();
        var r = f.referenceRows();
        if (l == null || r == null) return false;
        return new HashSet<>(l.rows()).size() < l.rows().size() && new HashSet<>(r.rows()).containsAll(l.rows());
    }

    /** Lutra answered more rows, the same ones as MariaDB's when text compares case-insensitively. */
    static boolean sameTextIgnoringCase(Failure f) {
        var l = f.lutraRows();
        var r = f.referenceRows();
        if (l == null || r == null || l.rows().size() <= r.rows().size()) return false;
        java.util.function.Function<List<String>, String> key = row -> String.valueOf(row).toLowerCase(Locale.ROOT);
        return l.rows().stream().map(key).collect(java.util.stream.Collectors.toSet())
                .equals(r.rows().stream().map(key).collect(java.util.stream.Collectors.toSet()));
    }

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

    /** Whether the UNION's branches, run on the reference, give columns of different types (the router then materializes it). */
    static boolean branchTypesDiffer(Failure f) {
        if (f.reference() == null) return false;
        List<String> branches = f.shrunk().query() instanceof Query.Union u ? u.parts().stream().map(Query.Select::sql).toList() : branches(f.sql());
        List<Integer> first = null;
        for (String b : branches) {
            if (!(f.reference().apply(b) instanceof Outcome.Rows rows)) return false;
            var types = rows.types().stream().map(Signatures::typeClass).toList();
            if (first == null) first = types;
            else if (!first.equals(types)) return true;
        }
        return false;
    }

    /** Integers of any width as one, and CHAR as VARCHAR: the differences the router's UNION takes without materializing. */
    static int typeClass(int jdbcType) {
        return switch (jdbcType) {
            case java.sql.Types.TINYINT, java.sql.Types.SMALLINT, java.sql.Types.INTEGER, java.sql.Types.BIGINT -> java.sql.Types.BIGINT;
            case java.sql.Types.CHAR -> java.sql.Types.VARCHAR;
            default -> jdbcType;
        };
    }

    /** The branches of a UNION written as text: split at UNION outside parentheses and quotes, outer parentheses and a trailing ORDER BY/LIMIT dropped. */
    static List<String> branches(String sql) {
        var out = new java.util.ArrayList<String>();
        int depth = 0, start = 0;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\'') {
                i = sql.indexOf('\'', i + 1);
                if (i < 0) break;
            } else if (c == '(') depth++;
            else if (c == ')') depth--;
            else if (depth == 0 && sql.regionMatches(true, i, " UNION ", 0, 7)) {
                out.add(sql.substring(start, i));
                start = i + 7;
                if (sql.regionMatches(true, start, "ALL ", 0, 4)) start += 4;
                if (sql.regionMatches(true, start, "DISTINCT ", 0, 9)) start += 9;
            }
        }
        String last = sql.substring(start);
        if (last.startsWith("(")) {
            int close = last.lastIndexOf(')');
            last = last.substring(0, close + 1);
        } else {
            last = last.replaceAll("(?is)\\s+(ORDER\\s+BY|LIMIT)\\b.*$", "");
        }
        out.add(last);
        return out.stream().map(String::strip).map(b -> b.startsWith("(") && b.endsWith(")") ? b.substring(1, b.length() - 1) : b).toList();
    }

    /** Whether {@code sql} calls a function (not an aggregate) with an aggregate inside its arguments: {@code COALESCE(SUM(a), 0)}. */
    static boolean aggregateInsideFunction(String sql) {
        var call = Pattern.compile("\\b([A-Za-z_]+)\\s*\\(").matcher(sql);
        var aggregate = Pattern.compile(AGGREGATE, Pattern.CASE_INSENSITIVE);
        while (call.find()) {
            if (call.group(1).toUpperCase(Locale.ROOT).matches("COUNT|SUM|MIN|MAX|AVG|BIT_OR|BIT_AND|BIT_XOR|IN|EXISTS|SELECT|ANY|ALL|SOME")) continue;
            int depth = 1, i = call.end();
            while (i < sql.length() && depth > 0) {
                char c = sql.charAt(i++);
                if (c == '(') depth++;
                else if (c == ')') depth--;
            }
            if (aggregate.matcher(sql.substring(call.end(), i)).find()) return true;
        }
        return false;
    }

    /** Whether a GROUP BY term is a bare name that is both a select-list alias and a column of the schema's tables. */
    static boolean groupsByShadowingAlias(String sql) {
        var group = Pattern.compile("(?is)\\bGROUP\\s+BY\\s+(.*?)(\\bHAVING\\b|\\bORDER\\s+BY\\b|\\bLIMIT\\b|\\bUNION\\b|\\)|$)").matcher(sql);
        var aliases = new HashSet<String>();
        var alias = Pattern.compile("(?i)\\bAS\\s+(\\w+)").matcher(sql);
        while (alias.find()) aliases.add(alias.group(1).toLowerCase(Locale.ROOT));
        while (group.find()) {
            for (String term : group.group(1).split(",")) {
                String t = term.strip().toLowerCase(Locale.ROOT);
                if (aliases.contains(t) && t.matches("id|k|a|d|s|dt|[abx]\\d+")) return true;
            }
        }
        return false;
    }

    /** The tables whose primary key {@code id} does not hold their routing column (tr, tc, and fc when SAME AS fp). */
    static List<String> routedByOtherThanKey(RqgSchema schema) {
        if (schema == null) return List.of("tr", "tc");
        return schema.tables().stream().filter(t -> t.routing() != null && !t.routing().equals("id") && t.columns().getFirst().name().equals("id"))
                .map(RqgSchema.Table::name).toList();
    }

    static int joinedTables(String sql) {
        var m = Pattern.compile("\\bj\\d+\\b").matcher(sql);
        var names = new HashSet<String>();
        while (m.find()) names.add(m.group());
        return names.size();
    }
}
