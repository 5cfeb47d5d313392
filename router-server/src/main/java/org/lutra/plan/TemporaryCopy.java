package org.lutra.plan;

import org.lutra.catalog.TableDef;
import org.lutra.sql.Guards;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * How a table's rows are copied into a temporary table so that MySQL compares, sorts and returns
 * them there exactly as in the table itself: the temporary table is made from the table's own
 * definition (the backends' CREATE TABLE the catalog keeps), so every column has its type,
 * character set, collation, default and nullability, and the keys are there for the optimizer (a
 * join of twenty copies without keys takes MariaDB's optimizer seconds; with them, milliseconds).
 *
 * <p>Foreign keys are left out (InnoDB refuses them on temporary tables, and the copied rows
 * satisfied them where they came from). Generated columns are not copied: the copy computes them
 * again from the same values with the same deterministic expression. Every other column is named
 * in the read and the INSERT, invisible ones too.
 *
 * @param definition the CREATE TEMPORARY TABLE statement, the temporary table named {@link #NAME}
 * @param columns    the columns read from the table and inserted into the copy, quoted, in order
 */
record TemporaryCopy(String definition, List<String> columns) {
    /** Stands in for the temporary table's name in {@link #definition}. */
    static final String NAME = "`lutra_copy`";

    private static final Pattern HEAD = Pattern.compile(
            "(?is)\\s*CREATE\\s+(?:OR\\s+REPLACE\\s+)?TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?(?:`(?:[^`]|``)*`|[\\w$]+)(?:\\s*\\.\\s*(?:`(?:[^`]|``)*`|[\\w$]+))?\\s*\\(");
    private static final Pattern FOREIGN_KEY = Pattern.compile("(?is)(?:CONSTRAINT\\s+(?:\\S+\\s+)?)?FOREIGN\\s+KEY\\b.*");
    /** Elements of a table's body that define no column. */
    private static final Pattern NOT_A_COLUMN = Pattern.compile(
            "(?is)(?:PRIMARY|KEY|INDEX|UNIQUE|CONSTRAINT|CHECK|FULLTEXT|SPATIAL|FOREIGN|PERIOD)\\b.*");
    private static final Pattern GENERATED = Pattern.compile("(?is).*\\b(?:GENERATED\\s+ALWAYS\\b|AS\\s*\\().*");
    private static final Pattern REFERENCES = Pattern.compile("(?is).*\\bREFERENCES\\b.*");
    private static final Pattern NATIVE_PARTITIONS = Pattern.compile("(?is).*\\bPARTITION\\s+BY\\b.*|.*\\bWITH\\s+SYSTEM\\s+VERSIONING\\b.*");

    /** The copy of {@code table}; refused where its definition cannot make a temporary table of the same columns. */
    static TemporaryCopy of(TableDef table) throws PlanException {
        return attempt(table).orThrow();
    }

    /** The copy of {@code table}, or, where its definition cannot make a temporary table of the same columns, why. */
    static Attempt<TemporaryCopy> attempt(TableDef table) {
        String ddl = table.ddl();
        var head = ddl == null ? null : HEAD.matcher(ddl);
        if (head == null || !head.lookingAt()) return cannot(table, "its definition is not a CREATE TABLE with a column list");
        int open = head.end() - 1;
        int close = closing(ddl, open);
        if (close < 0) return cannot(table, "its definition's parentheses do not close");
        String options = ddl.substring(close + 1);
        if (NATIVE_PARTITIONS.matcher(Guards.stripQuoted(options)).matches()) {
            return cannot(table, "temporary tables take neither native partitioning nor system versioning");
        }
        var kept = new ArrayList<String>();
        var columns = new ArrayList<String>();
        for (String element : elements(ddl.substring(open + 1, close))) {
            String text = Guards.stripQuoted(element).strip();
            if (FOREIGN_KEY.matcher(text).matches()) continue;
            kept.add(element);
            if (NOT_A_COLUMN.matcher(text).matches()) continue;
            if (REFERENCES.matcher(text).matches()) return cannot(table, "a column's own REFERENCES clause (" + element.strip() + ")");
            if (GENERATED.matcher(text).matches()) continue; // computed again in the copy
            columns.add(quote(name(element.strip())));
        }
        if (columns.isEmpty()) return cannot(table, "it has no column to copy");
        return new Attempt.Planned<>(new TemporaryCopy("CREATE TEMPORARY TABLE " + NAME + " (" + String.join(",", kept) + ")" + options, List.copyOf(columns)));
    }

    /** {@link #definition} with the temporary table called {@code name}. */
    String definition(String name) {
        return definition.replace(NAME, quote(name));
    }

    /** The columns as a list for SELECT and INSERT. */
    String columnList() {
        return String.join(", ", columns);
    }

    private static Attempt<TemporaryCopy> cannot(TableDef table, String why) {
        return Attempt.notApplicable(PlanException.unsupported("copying " + table.name() + " into a temporary table (" + why + ")"));
    }

    /** The first identifier of a column definition, unquoted. */
    private static String name(String element) {
        if (element.startsWith("`")) {
            var out = new StringBuilder();
            for (int i = 1; i < element.length(); i++) {
                char c = element.charAt(i);
                if (c == '`') {
                    if (i + 1 < element.length() && element.charAt(i + 1) == '`') {
                        out.append('`');
                        i++;
                        continue;
                    }
                    break;
                }
                out.append(c);
            }
            return out.toString();
        }
        int end = 0;
        while (end < element.length() && !Character.isWhitespace(element.charAt(end)) && element.charAt(end) != '(') end++;
        return element.substring(0, end).replace("\"", "");
    }

    static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }

    /** The top-level comma-separated elements of a table's body, as written (quotes, parentheses and comments kept whole). */
    private static List<String> elements(String body) {
        var out = new ArrayList<String>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '\'' || c == '"' || c == '`') {
                i = endOfQuote(body, i);
            } else if (c == '/' && i + 1 < body.length() && body.charAt(i + 1) == '*') {
                int end = body.indexOf("*/", i + 2);
                i = end < 0 ? body.length() : end + 1;
            } else if (c == '#' || c == '-' && body.startsWith("-- ", i)) {
                int end = body.indexOf('\n', i);
                i = end < 0 ? body.length() : end;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                out.add(body.substring(start, i));
                start = i + 1;
            }
        }
        if (!body.substring(start).isBlank()) out.add(body.substring(start));
        return out;
    }

    /** The index of the parenthesis closing the one at {@code open}, or -1. */
    private static int closing(String text, int open) {
        int depth = 0;
        for (int i = open; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\'' || c == '"' || c == '`') {
                i = endOfQuote(text, i);
            } else if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    private static int endOfQuote(String text, int at) {
        char quote = text.charAt(at);
        for (int i = at + 1; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' && quote != '`') {
                i++;
            } else if (c == quote) {
                if (i + 1 < text.length() && text.charAt(i + 1) == quote) {
                    i++;
                } else {
                    return i;
                }
            }
        }
        return text.length();
    }
}
