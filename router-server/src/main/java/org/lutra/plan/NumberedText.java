package org.lutra.plan;

import net.sf.jsqlparser.statement.select.Select;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.regex.Pattern;

/**
 * A statement's text with its '?' numbered ({@code ?1, ?2, ...}), so that each piece cut from it knows which of the
 * statement's parameters its own '?' are, wherever JSQLParser copied them (it keeps such numbers when it prints); and
 * pieces parsed again, which the plans that materialize parts of a statement ({@link DerivedTables}, {@link Fallback}) do.
 */
final class NumberedText {
    private static final Pattern NUMBERED = Pattern.compile("\\?(\\d+)");

    private NumberedText() {}

    /** The text with its '?' numbered in order ({@code ?1, ?2, ...}): JSQLParser keeps such numbers when it prints. */
    static String numbered(String sql) {
        var out = new StringBuilder(sql.length() + 16);
        int n = 0;
        char quote = 0;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            out.append(c);
            if (quote != 0) {
                if (c == '\\' && quote != '`' && i + 1 < sql.length()) out.append(sql.charAt(++i));
                else if (c == quote) quote = 0;
            } else if (c == '\'' || c == '"' || c == '`') {
                quote = c;
            } else if (c == '?') {
                out.append(++n);
            }
        }
        return out.toString();
    }

    record Piece(String sql, int[] params) {}

    /** A printed piece with numbered parameters as plain '?' and, for each, the statement's parameter (0-based). */
    static Piece cut(String printed) {
        var out = new StringBuilder(printed.length());
        var params = new ArrayList<Integer>();
        char quote = 0;
        for (int i = 0; i < printed.length(); i++) {
            char c = printed.charAt(i);
            if (quote != 0) {
                out.append(c);
                if (c == '\\' && quote != '`' && i + 1 < printed.length()) out.append(printed.charAt(++i));
                else if (c == quote) quote = 0;
                continue;
            }
            if (c == '\'' || c == '"' || c == '`') quote = c;
            if (c == '?') {
                var m = NUMBERED.matcher(printed).region(i, printed.length());
                if (m.lookingAt()) {
                    params.add(Integer.parseInt(m.group(1)) - 1);
                    i = m.end() - 1;
                }
            }
            out.append(c);
        }
        return new Piece(out.toString(), params.stream().mapToInt(Integer::intValue).toArray());
    }

    /**
     * {@code sql} parsed as a SELECT. A text that does not parse again (JSQLParser prints some trees it cannot read back)
     * or is another statement is a shape these plans do not take: refused ({@link #parsedAgain} asks first).
     */
    static Select parse(String sql) throws PlanException {
        return parsedAgain(sql).orElseThrow(() -> PlanException.unsupported("this statement's shape over several partitions yet"));
    }

    /** {@code sql} parsed as a SELECT, or empty where it does not parse again or is another statement. */
    static java.util.Optional<Select> parsedAgain(String sql) {
        try {
            return Parsing.parse(sql, Planner.Limits.defaults().parseTimeoutMillis()) instanceof Select select
                    ? java.util.Optional.of(select) : java.util.Optional.empty();
        } catch (PlanException unreadable) {
            return java.util.Optional.empty();
        }
    }
}
