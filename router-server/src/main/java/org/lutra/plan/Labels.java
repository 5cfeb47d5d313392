package org.lutra.plan;

import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SetOperationList;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * MySQL labels an unaliased select item with the text the client wrote ({@code abs(b-c)}); the
 * router re-prints statements from the syntax tree ({@code abs(b - c)}), so where the two differ
 * the item gets an alias holding the client's text, and {@code rs.getInt("abs(b-c)")} finds its
 * column. Column references keep their names, as MySQL labels them by name.
 */
final class Labels {
    /** MariaDB labels an item with at most this many characters of its text (an alias may have 256: 1059 beyond). */
    private static final int MAX_LABEL = 255;

    /** The client's text and how the parsed text was derived from it ({@link Dialect}); positions before the WHERE clause are the rewrite's. */
    record Source(String original, Dialect.Rewritten rewritten) {
        String written(String parsed, int begin, int end) {
            String text = rewritten.text();
            if (end > text.length() || !parsed.regionMatches(begin, text, begin, end - begin)) return null;
            return rewritten.original(original, begin, end);
        }
    }

    private Labels() {}

    /**
     * Pins the labels of {@code statement}'s select items; returns the one-line stand-ins given to labels
     * over several lines (the parser takes no line break in a quoted alias), each with its label, which
     * the result's columns get back ({@link org.lutra.exec.Relabel}).
     */
    static Map<String, String> pin(Statement statement, String sql, Source source) {
        var standIns = new LinkedHashMap<String, String>();
        pin(statement, sql, source, standIns);
        return standIns;
    }

    private static void pin(Statement statement, String sql, Source source, Map<String, String> standIns) {
        switch (statement) {
            case PlainSelect p -> pinItems(p, sql, source, standIns);
            case SetOperationList list -> {
                if (!list.getSelects().isEmpty()) pin((Statement) list.getSelects().getFirst(), sql, source, standIns); // the union's labels are the first branch's
            }
            case ParenthesedSelect p -> pin((Statement) p.getSelect(), sql, source, standIns);
            default -> { }
        }
    }

    /**
     * {@code ((a))} is labelled {@code a} by MySQL, like the column itself; so is {@code + a}: MySQL's
     * parser drops a unary plus, and a column or a literal under it keeps its own name ({@code + 6}: {@code 6}).
     */
    private static Object unwrapped(Object e) {
        while (true) {
            if (e instanceof net.sf.jsqlparser.expression.Parenthesis p) e = p.getExpression();
            else if (e instanceof net.sf.jsqlparser.expression.SignedExpression s && s.getSign() == '+') e = s.getExpression();
            else if (e instanceof net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList<?> l && l.size() == 1) e = l.getFirst();
            else return e;
        }
    }

    /*
     * MariaDB's label of an item is the client's text from its start to the end of its last token
     * (comments inside kept, a comment after it not). An item after a comma starts right after the
     * comma, its leading blanks skipped: a comment before it is part of its label ("/* x *\/ 5*6");
     * the first item starts at its first token. Checked over JDBC on MariaDB 11.4 (RandomQueryIT).
     */
    private static void pinItems(PlainSelect select, String sql, Source source, Map<String, String> standIns) {
        boolean first = true;
        for (var item : select.getSelectItems()) {
            boolean after = !first;
            first = false;
            Object e = unwrapped(item.getExpression());
            // columns are labelled by name, string literals by their value, as the shard labels them too
            if (item.getAlias() != null || e instanceof Column || e instanceof net.sf.jsqlparser.expression.StringValue
                    || item.getExpression() instanceof AllColumns) continue;
            if (e != item.getExpression() && (e instanceof net.sf.jsqlparser.expression.LongValue || e instanceof net.sf.jsqlparser.expression.DoubleValue
                    || e instanceof net.sf.jsqlparser.expression.NullValue || e instanceof net.sf.jsqlparser.expression.BooleanValue)) {
                // a number, NULL, TRUE or FALSE in parentheses or under a unary plus: its own text (TRUE and FALSE in capitals, however written)
                String text = e instanceof net.sf.jsqlparser.expression.BooleanValue b ? (b.getValue() ? "TRUE" : "FALSE") : e.toString();
                item.setAlias(new Alias("`" + text.replace("`", "``") + "`", true));
                continue;
            }
            var node = item.getASTNode();
            if (node == null || node.jjtGetFirstToken() == null || node.jjtGetLastToken() == null) continue;
            int begin = node.jjtGetFirstToken().absoluteBegin - 1;
            int end = node.jjtGetLastToken().absoluteEnd - 1;
            if (begin < 0 || end > sql.length() || begin >= end) continue;
            if (after) {
                int comma = begin - 1;
                while (comma >= 0 && Character.isWhitespace(sql.charAt(comma))) comma--;
                if (comma >= 0 && sql.charAt(comma) == ',') begin = comma + 1;
            }
            String written = source == null ? sql.substring(begin, end) : source.written(sql, begin, end);
            if (written == null) continue;
            written = written.stripLeading();
            written = asMariaDbNames(written);
            if (written.isEmpty() || written.equals(String.valueOf(item.getExpression()))) continue;
            String label = written;
            if (written.indexOf('\n') >= 0 || written.indexOf('\r') >= 0) {
                label = "lutra_label_" + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong() | 1L << 62);
                standIns.put(label, written);
            }
            item.setAlias(new Alias("`" + label.replace("`", "``") + "`", true));
        }
    }

    /**
     * {@code text} as MariaDB keeps an item's name: in utf8mb3, its system character set, where a character beyond
     * the Basic Multilingual Plane is '?', and cut after {@value #MAX_LABEL} characters — counted in code points, so
     * that the cut never splits a surrogate pair into bytes no backend accepts.
     */
    static String asMariaDbNames(String text) {
        var out = new StringBuilder(Math.min(text.length(), MAX_LABEL));
        for (int i = 0, n = 0; i < text.length() && n < MAX_LABEL; n++) {
            int cp = text.codePointAt(i);
            out.appendCodePoint(Character.isSupplementaryCodePoint(cp) ? '?' : cp);
            i += Character.charCount(cp);
        }
        return out.toString();
    }
}
