package org.lutra.plan;

import org.lutra.sql.SqlSpans;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds MariaDB's sequence functions in a statement's text — {@code NEXTVAL(s)}, {@code NEXT VALUE FOR s},
 * {@code LASTVAL(s)}, {@code PREVIOUS VALUE FOR s}, {@code SETVAL(s, n ...)} — outside quoted text and
 * comments, in the order they appear, and says where the router may evaluate them itself (docs/ids-and-sequences.md,
 * "Sequences"): NEXTVAL and SETVAL run once per call only in a SELECT without tables (no FROM but DUAL,
 * no WHERE) and in INSERT/REPLACE ... VALUES or SET without a subquery or ON DUPLICATE KEY UPDATE, where
 * MariaDB evaluates them once per written call, left to right. Anywhere else (a SELECT over tables, an
 * UPDATE, INSERT ... SELECT) MariaDB runs them once per row; the router refuses those. The calls' values
 * then replace them in the text ({@code org.lutra.server.SequenceValues}).
 */
public final class SequenceCalls {
    private static final String NAME = "(?:`((?:[^`]|``)+)`|(\\w+))";
    private static final String QUALIFIED = "(?:" + NAME + "\\s*\\.\\s*)?" + NAME;
    private static final Pattern CALL = Pattern.compile("(?i)(?<![\\w$.@`])(?:(NEXTVAL|LASTVAL|SETVAL)\\s*\\(\\s*" + QUALIFIED
            + "\\s*((?:,[^()]*+)?)\\)|(NEXT|PREVIOUS)\\s+VALUE\\s+FOR\\s+" + QUALIFIED + ")");
    private static final Pattern SELECT_HEAD = Pattern.compile("(?is)\\s*SELECT\\s+(?:(?:DISTINCT|ALL|DISTINCTROW)\\s+)?");
    private static final Pattern LIST_END = Pattern.compile("(?i)(?:FROM|UNION|INTO|WHERE|GROUP|HAVING|ORDER|LIMIT|FOR|WINDOW|EXCEPT|INTERSECT)\\b");
    /** An item that names its label: {@code ... AS x}, or an implicit alias right after a closing parenthesis or literal. */
    private static final Pattern ALIASED = Pattern.compile("(?is).*(?:\\bAS\\s+(?:`(?:[^`]|``)*`|\\w+|'[^']*')|[)'\"\\d]\\s+(?:`(?:[^`]|``)*`|\\w+))\\s*");
    private static final Pattern FIRST_WORD = Pattern.compile("\\s*\\(*\\s*(\\w+)");
    private static final Pattern NO_TABLES = Pattern.compile("(?i)\\b(?:WHERE|HAVING|LIMIT|INTO|GROUP|ORDER|JOIN)\\b|\\bFROM\\b(?!\\s+DUAL\\b)");
    private static final Pattern INSERT_OTHER = Pattern.compile("(?i)\\b(?:SELECT|DUPLICATE)\\b");

    public enum Kind { NEXTVAL, LASTVAL, SETVAL }

    /**
     * One call.
     *
     * @param schema the qualifier as written, or null
     * @param args   SETVAL's arguments after the name, with their leading comma ({@code ", 100, 0"}); empty otherwise
     */
    public record Call(int start, int end, Kind kind, String schema, String name, String args) {}

    /**
     * The items of the statement's leading SELECT list that hold a call and name no label, as {start, end}
     * offsets: replacing the call by its value would change the label MariaDB gives them (the item as written).
     */
    public static List<int[]> unlabeledItems(String sql, List<Call> calls) {
        String code = blanked(sql);
        Matcher head = SELECT_HEAD.matcher(code);
        if (!head.lookingAt()) return List.of();
        var items = new ArrayList<int[]>();
        int depth = 0;
        int start = head.end();
        int i = start;
        for (; i < code.length(); i++) {
            final int at = i;
            var call = calls.stream().filter(k -> k.start() == at).findFirst();
            if (call.isPresent()) { // NEXT VALUE FOR s: its FOR does not end the list
                i = call.get().end() - 1;
                continue;
            }
            char c = code.charAt(i);
            if (c == '(') depth++;
            else if (c == ')') depth--;
            else if (depth == 0 && c == ',') {
                items.add(new int[] {start, i});
                start = i + 1;
            } else if (depth == 0 && c == ';') {
                break;
            } else if (depth == 0 && (i == 0 || !Character.isLetterOrDigit(code.charAt(i - 1)) && code.charAt(i - 1) != '_')
                    && LIST_END.matcher(code).region(i, code.length()).lookingAt()) {
                break;
            }
        }
        items.add(new int[] {start, i});
        var out = new ArrayList<int[]>();
        for (int[] item : items) {
            boolean holdsCall = calls.stream().anyMatch(call -> call.start() >= item[0] && call.end() <= item[1]);
            if (!holdsCall || ALIASED.matcher(code.substring(item[0], item[1])).matches()) continue;
            int s = item[0], e = item[1];
            while (s < e && Character.isWhitespace(sql.charAt(s))) s++;
            while (e > s && Character.isWhitespace(sql.charAt(e - 1))) e--;
            out.add(new int[] {s, e});
        }
        return out;
    }

    private SequenceCalls() {}

    /** The calls in {@code sql}, in text order (none: an empty list, found cheaply). */
    public static List<Call> find(String sql) {
        if (!mayCall(sql)) return List.of();
        String code = blanked(sql);
        var out = new ArrayList<Call>();
        Matcher m = CALL.matcher(code);
        while (m.find()) {
            boolean function = m.group(1) != null;
            Kind kind = function ? Kind.valueOf(m.group(1).toUpperCase(Locale.ROOT))
                    : m.group(7).equalsIgnoreCase("NEXT") ? Kind.NEXTVAL : Kind.LASTVAL;
            int g = function ? 2 : 8;
            String schema = name(m, g);
            String name = name(m, g + 2);
            String args = function ? sql.substring(m.start(6), m.end(6)) : "";
            out.add(new Call(m.start(), m.end(), kind, schema, name, args));
        }
        return out;
    }

    /**
     * Whether {@code sql} may hold a call: a {@code VAL} followed by {@code (} (after blanks), or a
     * {@code VALUE} followed by a blank. A plain scan, as this runs on every statement: the
     * case-insensitive regex it replaced cost 3 % of a point select's router CPU.
     */
    public static boolean mayCall(String sql) {
        int n = sql.length();
        for (int i = 0; i + 3 < n; i++) {
            if ((sql.charAt(i + 2) | 0x20) != 'l' || !sql.regionMatches(true, i, "VAL", 0, 3)) continue;
            int j = i + 3;
            if (j + 2 < n && sql.regionMatches(true, j, "UE", 0, 2) && Character.isWhitespace(sql.charAt(j + 2))) return true;
            while (j < n && Character.isWhitespace(sql.charAt(j))) j++;
            if (j < n && sql.charAt(j) == '(') return true;
        }
        return false;
    }

    /**
     * Null when the router can evaluate NEXTVAL and SETVAL calls of {@code sql} once each, in text
     * order, as MariaDB would; else what the statement is, for the refusal.
     */
    public static String whyNotOnce(String sql) {
        String code = blanked(sql);
        Matcher first = FIRST_WORD.matcher(code);
        String word = first.lookingAt() ? first.group(1).toUpperCase(Locale.ROOT) : "";
        return switch (word) {
            case "SELECT" -> NO_TABLES.matcher(code).find() ? "a SELECT over tables (MariaDB calls it once per row)" : null;
            case "INSERT", "REPLACE" -> INSERT_OTHER.matcher(code).find() ? "INSERT ... SELECT or ON DUPLICATE KEY UPDATE (MariaDB calls it once per row)" : null;
            case "CREATE", "ALTER" -> "a column's DEFAULT (every partition of the table would need the sequence)";
            default -> "a " + word + " statement (MariaDB calls it once per row)";
        };
    }

    private static String name(Matcher m, int group) {
        if (m.group(group) != null) return m.group(group).replace("``", "`");
        return m.group(group + 1);
    }

    private static final Pattern SETVAL_OPEN = Pattern.compile("(?i)(?<![\\w$.@`])SETVAL\\s*\\(");

    /**
     * Whether {@code sql} holds a SETVAL that is none of {@code calls} (found by {@link #find}): one whose arguments hold
     * parentheses. MariaDB's grammar takes integer literals there only, so such a SETVAL is its syntax error, 1064.
     */
    public static boolean malformedSetval(String sql, List<Call> calls) {
        if (!mayCall(sql)) return false;
        Matcher m = SETVAL_OPEN.matcher(blanked(sql));
        while (m.find()) {
            int at = m.start();
            if (calls.stream().noneMatch(c -> c.start() == at)) return true;
        }
        return false;
    }

    /** Where {@code sql}'s parameter markers are: each '?' outside quoted strings, comments and quoted identifiers, in order. */
    public static List<Integer> markers(String sql) {
        String code = blanked(sql);
        var at = new ArrayList<Integer>();
        for (int i = 0; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '`') i = SqlSpans.quoted(code, i, '`') - 1;
            else if (c == '?') at.add(i);
        }
        return at;
    }

    /** {@code sql} with quoted strings and comments blanked out (same length), so patterns see code only. */
    public static String blanked(String sql) {
        var out = new StringBuilder(sql);
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            int end = -1;
            if (c == '\'' || c == '"') end = SqlSpans.quoted(sql, i, c);
            else if (c == '`') end = SqlSpans.quoted(sql, i, c) ; // identifiers stay (they may name the sequence)
            else if (c == '#' || sql.startsWith("-- ", i) || sql.startsWith("--\n", i)) end = SqlSpans.lineEnd(sql, i);
            else if (sql.startsWith("/*", i) && !sql.startsWith("/*!", i) && !sql.startsWith("/*M!", i)) {
                int close = sql.indexOf("*/", i + 2);
                end = close < 0 ? sql.length() : close + 2;
            }
            if (end < 0) {
                i++;
                continue;
            }
            if (c != '`') for (int k = i; k < end; k++) out.setCharAt(k, ' ');
            i = end;
        }
        return out.toString();
    }
}
