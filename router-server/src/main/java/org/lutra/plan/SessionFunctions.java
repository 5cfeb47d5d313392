package org.lutra.plan;

import org.lutra.sql.SqlSpans;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code USER()}, {@code SESSION_USER()}, {@code SYSTEM_USER()} and {@code CURRENT_USER[()]}
 * answered for the logical server: the router's login user and the client's address
 * ({@code 'app@10.0.0.7'}; CURRENT_USER, the account, is {@code 'app@%'}: router users are not
 * tied to hosts). Sent to a backend they would name the router's backend account, so each call is
 * replaced by the session's value as a string literal before the statement is planned (Flyway
 * records {@code SUBSTRING_INDEX(USER(), '@', 1)} as installed_by). Quoted text, identifiers and
 * comments are left alone.
 */
public final class SessionFunctions {
    /** Unquoted identifiers have ASCII letters, digits, _ and $, and any character from U+0080 on: {@code current_useré} is one. */
    private static final String WORD = "[\\w$\\x{80}-\\x{10FFFF}]";
    private static final Pattern CALL = Pattern.compile("(?i)(?<!" + WORD + "|[.@])(USER|SESSION_USER|SYSTEM_USER|CURRENT_USER)\\s*\\(\\s*\\)"
            + "|(?<!" + WORD + "|[.@])CURRENT_USER(?!" + WORD + "|\\s*\\()");
    private static final Pattern ITEM_BEFORE = Pattern.compile("(?i)(?:\\bSELECT|,)\\s*$");
    private static final Pattern ITEM_AFTER = Pattern.compile("(?i)\\s*(?:,|FROM\\b|;\\s*$)");

    private SessionFunctions() {}

    /** {@code sql} with the calls replaced; unchanged when it has none (or {@code user} is null). */
    public static String substitute(String sql, String user, String host) {
        if (user == null || !mayCall(sql)) return sql;
        var out = new StringBuilder(sql.length() + 32);
        int start = 0; // the start of the unquoted run being copied
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            int end = -1;
            if (c == '\'' || c == '"' || c == '`') end = SqlSpans.quoted(sql, i, c);
            else if (c == '#' || c == '-' && sql.startsWith("-- ", i) || c == '-' && sql.startsWith("--\n", i)) end = SqlSpans.lineEnd(sql, i);
            else if (c == '/' && sql.startsWith("/*", i)) end = sql.indexOf("*/", i + 2) < 0 ? sql.length() : sql.indexOf("*/", i + 2) + 2;
            if (end < 0) {
                i++;
                continue;
            }
            out.append(replaced(sql.substring(start, i), user, host, false)).append(sql, i, end);
            i = start = end;
        }
        out.append(replaced(sql.substring(start), user, host, true));
        return out.toString();
    }

    /**
     * Whether {@code sql} has {@code USER} as the end of a word (every call ends so; a table named
     * {@code users} does not): a plain scan, as this runs on every statement (a case-insensitive
     * regex here cost 1.5 % of a point select's router CPU, the walk below 3 %).
     */
    static boolean mayCall(String sql) {
        for (int i = sql.length() - 4; i >= 0; i--) {
            if ((sql.charAt(i + 3) | 0x20) == 'r' && sql.regionMatches(true, i, "USER", 0, 4)) {
                int next = i + 4;
                if (next == sql.length()) return true;
                char c = sql.charAt(next);
                if (c < 0x80 && !Character.isLetterOrDigit(c) && c != '_' && c != '$') return true;
            }
        }
        return false;
    }

    /** @param last whether {@code code} runs to the end of the statement (nothing quoted follows) */
    private static String replaced(String code, String user, String host, boolean last) {
        Matcher m = CALL.matcher(code);
        var sb = new StringBuilder();
        while (m.find()) {
            boolean account = m.group(1) == null || m.group(1).equalsIgnoreCase("CURRENT_USER");
            String value = literal(user + "@" + (account ? "%" : host));
            // a whole select item without an alias keeps the label MySQL gives it: the call as written
            String after = code.substring(m.end());
            if (ITEM_BEFORE.matcher(code.substring(0, m.start())).find() && (ITEM_AFTER.matcher(after).lookingAt() || last && after.isBlank())) {
                value += " AS `" + m.group().replace("`", "``") + "`";
            }
            m.appendReplacement(sb, Matcher.quoteReplacement(value));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    private static String literal(String value) {
        return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
    }
}
