package org.lutra.sql;

/** Counts JDBC '?' placeholders in deparsed SQL, skipping quoted strings and identifiers. */
public final class ParamCounter {
    private ParamCounter() {}

    public static int countOf(String sql) {
        return count(sql);
    }

    public static int count(String sql) {
        int n = 0;
        char quote = 0;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (quote != 0) {
                if (c == '\\' && quote != '`') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"' || c == '`') {
                quote = c;
            } else if (c == '?') {
                n++;
            }
        }
        return n;
    }
}
