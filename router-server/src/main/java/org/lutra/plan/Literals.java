package org.lutra.plan;

import org.lutra.protocol.Value;
import org.lutra.sql.ParamCounter;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Turns the literals of a statement's WHERE and ON clauses into parameters, so that
 * {@code id = 1} and {@code id = 2} share one plan (the plan cache is keyed on the normalized
 * text). Only literals whose meaning cannot change are taken: unsigned integers and plain
 * decimals, and quoted strings without a character set introducer, standing right after a
 * comparison operator, LIKE, BETWEEN ... AND, or as an item of an IN list.
 * Literals in the select list (they name result columns, also inside a subquery there), ORDER BY / GROUP BY (positions),
 * HAVING, LIMIT, INTERVAL and everything else stay as written. Anything the scanner does not
 * fully understand (an unterminated quote, an executable comment) leaves the text unchanged.
 *
 * <p>The values travel as parameters to the backends like the client's own: MySQL compares a
 * bound string or integer exactly as it compares the same literal.
 */
public final class Literals {
    /** A normalized statement: its text, and for each '?' in it the client's parameter index or a literal. */
    public record Normalized(String text, int[] clientIndex, List<Value> literal) {
        /** The parameters of one execution: the client's, with the literals in between, in '?' order. */
        public List<Value> bind(List<Value> clientParams) {
            if (literal.isEmpty()) return clientParams;
            var out = new ArrayList<Value>(clientIndex.length);
            for (int i = 0; i < clientIndex.length; i++) {
                out.add(clientIndex[i] >= 0 ? clientParams.get(clientIndex[i]) : literal.get(i));
            }
            return out;
        }

        /** How many parameters the client must bind. */
        public int clientParams() {
            int n = 0;
            for (int i : clientIndex) if (i >= 0) n++;
            return n;
        }
    }

    /** The AND of BETWEEN x AND y, as a token of its own. */
    private static final String BETWEEN_AND = "BETWEEN ... AND";
    private static final Set<String> STATEMENTS = Set.of("SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE");
    private static final Set<String> COMPARISONS = Set.of("=", "<>", "!=", "<", "<=", ">", ">=", "<=>", "LIKE", "BETWEEN", BETWEEN_AND);
    private static final Set<String> CLAUSES = Set.of("SELECT", "FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "SET", "VALUES",
            "VALUE", "ON", "USING", "UNION", "FOR", "INTO", "WINDOW", "RETURNING", "LOCK", "PARTITION", "UPDATE", "OFFSET");
    /**
     * Clauses whose literals may become parameters: conditions only. A value stored by INSERT or
     * SET converts by the column's rules, and MariaDB converts a bound integer differently from the
     * same literal for some types (YEAR: literal 0 is stored as 2000, a bound 0 as 0000).
     */
    private static final Set<String> PARAMETERIZABLE = Set.of("WHERE", "ON");

    private Literals() {}

    public static Normalized normalize(String sql) {
        int start = 0;
        while (start < sql.length() && Character.isWhitespace(sql.charAt(start))) start++;
        int wordEnd = start;
        while (wordEnd < sql.length() && Character.isLetter(sql.charAt(wordEnd))) wordEnd++;
        if (!STATEMENTS.contains(sql.substring(start, wordEnd).toUpperCase(Locale.ROOT)) || sql.contains("/*!")) {
            return unchanged(sql);
        }
        try {
            return new Scanner(sql).scan();
        } catch (IllegalStateException notUnderstood) {
            return unchanged(sql);
        }
    }

    private static Normalized unchanged(String sql) {
        int n = ParamCounter.count(sql);
        int[] index = new int[n];
        for (int i = 0; i < n; i++) index[i] = i;
        return new Normalized(sql, index, List.of());
    }

    /** One pass over the text: tokens, parenthesis depth, the clause at each depth. */
    private static final class Scanner {
        private final String sql;
        private final StringBuilder out = new StringBuilder();
        private final List<Integer> slots = new ArrayList<>();
        private final List<Value> literals = new ArrayList<>();
        /** Per open parenthesis: the clause outside it, and whether it is an IN list or a VALUES row. */
        private final ArrayList<String> clauseStack = new ArrayList<>();
        private final ArrayList<Boolean> listStack = new ArrayList<>();
        private String clause = "";
        private String previous = "";      // previous significant token, upper case
        private String beforePrevious = "";
        private boolean betweenPending;    // after BETWEEN x: the next AND is BETWEEN's
        private int clientParams;
        private int i;

        Scanner(String sql) {
            this.sql = sql;
        }

        Normalized scan() {
            while (i < sql.length()) {
                char c = sql.charAt(i);
                if (Character.isWhitespace(c)) {
                    out.append(c);
                    i++;
                } else if (c == '-' && sql.startsWith("-- ", i) || c == '#') {
                    int end = sql.indexOf('\n', i);
                    end = end < 0 ? sql.length() : end;
                    out.append(sql, i, end);
                    i = end;
                } else if (sql.startsWith("/*", i)) {
                    int end = sql.indexOf("*/", i + 2);
                    if (end < 0) throw new IllegalStateException("unterminated comment");
                    out.append(sql, i, end + 2);
                    i = end + 2;
                } else if (c == '\'' || c == '"') {
                    int end = stringEnd(c);
                    String raw = sql.substring(i, end);
                    if (takes()) {
                        literal(Value.newBuilder().setStringValue(unescape(raw.substring(1, raw.length() - 1), c)).build());
                    } else {
                        out.append(raw);
                    }
                    token("'");
                    i = end;
                } else if (c == '`') {
                    int end = sql.indexOf('`', i + 1);
                    while (end >= 0 && end + 1 < sql.length() && sql.charAt(end + 1) == '`') end = sql.indexOf('`', end + 2);
                    if (end < 0) throw new IllegalStateException("unterminated identifier");
                    out.append(sql, i, end + 1);
                    token("`");
                    i = end + 1;
                } else if (Character.isDigit(c) || c == '.' && i + 1 < sql.length() && Character.isDigit(sql.charAt(i + 1))) {
                    number();
                } else if (Character.isLetter(c) || c == '_' || c == '$' || c == '@') {
                    int end = i + 1;
                    while (end < sql.length() && (Character.isLetterOrDigit(sql.charAt(end)) || "_$@.".indexOf(sql.charAt(end)) >= 0)) end++;
                    String word = sql.substring(i, end);
                    out.append(word);
                    i = end;
                    word(word.toUpperCase(Locale.ROOT));
                } else if (c == '?') {
                    out.append('?');
                    slots.add(clientParams++);
                    i++;
                    token("?");
                } else if (c == '(') {
                    boolean list = previous.equals("IN") || (clause.equals("VALUES") || clause.equals("VALUE"))
                            && (previous.equals("VALUES") || previous.equals("VALUE") || previous.equals(",") && beforePrevious.equals(")"));
                    clauseStack.add(clause);
                    listStack.add(list);
                    out.append(c);
                    i++;
                    token("(");
                } else if (c == ')') {
                    if (clauseStack.isEmpty()) throw new IllegalStateException("unbalanced parenthesis");
                    clause = clauseStack.removeLast();
                    listStack.removeLast();
                    out.append(c);
                    i++;
                    token(")");
                } else {
                    int end = i + 1;
                    while (end < sql.length() && "<>=!".indexOf(sql.charAt(end)) >= 0 && "<>=!".indexOf(c) >= 0 && end - i < 3) end++;
                    String op = sql.substring(i, end);
                    out.append(op);
                    i = end;
                    token(op);
                }
            }
            if (!clauseStack.isEmpty()) throw new IllegalStateException("unbalanced parenthesis");
            int[] index = new int[slots.size()];
            for (int k = 0; k < index.length; k++) index[k] = slots.get(k);
            var values = new ArrayList<Value>(index.length);
            int lit = 0;
            for (int k = 0; k < index.length; k++) values.add(index[k] >= 0 ? null : literals.get(lit++));
            return new Normalized(out.toString(), index, literals.isEmpty() ? List.of() : values);
        }

        /** Whether a literal at this point may become a parameter. */
        private boolean takes() {
            // a parenthesis keeps its clause; a subquery inside it sets its own
            if (!PARAMETERIZABLE.contains(clause)) return false;
            // inside a select item (a subquery there): the item's text is the column's label
            if (clauseStack.contains("SELECT")) return false;
            boolean inList = !listStack.isEmpty() && listStack.getLast() && (previous.equals("(") || previous.equals(","));
            boolean afterOperator = COMPARISONS.contains(previous);
            if (!(inList || afterOperator)) return false;
            // the literal must stand alone: not the left operand of arithmetic, not followed by a unit
            int j = i;
            char first = sql.charAt(j);
            if (first == '\'' || first == '"') j = stringEnd(first); else j = numberEnd();
            while (j < sql.length() && Character.isWhitespace(sql.charAt(j))) j++;
            if (j >= sql.length()) return true;
            char next = sql.charAt(j);
            if ("+-*/%|&^".indexOf(next) >= 0) return false;
            if (next == '\'' || next == '"') return false; // adjacent strings concatenate
            return true;
        }

        private void number() {
            int end = numberEnd();
            String raw = sql.substring(i, end);
            int dot = raw.indexOf('.');
            if (plain(raw, dot) && takes()) {
                if (dot < 0 && raw.length() <= 18) { // under 2^63: the common case, without BigDecimal
                    literal(Value.newBuilder().setIntValue(Long.parseLong(raw)).build());
                } else {
                    var d = new BigDecimal(dot == 0 ? "0" + raw : raw);
                    literal(dot >= 0 ? Value.newBuilder().setDecimalValue(d.toPlainString()).build()
                            : d.toBigInteger().bitLength() < 64 ? Value.newBuilder().setIntValue(d.longValueExact()).build()
                            : Value.newBuilder().setDecimalValue(d.toPlainString()).build());
                }
            } else {
                out.append(raw);
            }
            i = end;
            token("0");
        }

        /** Whether {@code raw} is digits with at most one '.' ({@code dot}, -1 for none) and a digit on some side of it: 12, 1.5, 1., .5. */
        private static boolean plain(String raw, int dot) {
            int digits = 0;
            for (int k = 0; k < raw.length(); k++) {
                char c = raw.charAt(k);
                if (c >= '0' && c <= '9') digits++;
                else if (k != dot) return false;
            }
            return digits > 0; // "." alone is none
        }

        private int numberEnd() {
            int end = i;
            while (end < sql.length() && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '.'
                    || (sql.charAt(end) == '+' || sql.charAt(end) == '-') && end > i && "eE".indexOf(sql.charAt(end - 1)) >= 0
                    && Character.isDigit(sql.charAt(i)) && !sql.substring(i, end).startsWith("0x"))) {
                end++;
            }
            return end;
        }

        private void literal(Value v) {
            out.append('?');
            slots.add(-1);
            literals.add(v);
        }

        private int stringEnd(char quote) {
            int j = i + 1;
            while (j < sql.length()) {
                char d = sql.charAt(j);
                if (d == '\\') {
                    j += 2;
                } else if (d == quote) {
                    if (j + 1 < sql.length() && sql.charAt(j + 1) == quote) j += 2; else return j + 1;
                } else {
                    j++;
                }
            }
            throw new IllegalStateException("unterminated string");
        }

        private void word(String upper) {
            if (CLAUSES.contains(upper)) {
                // GROUP BY / ORDER BY / FOR UPDATE / LOCK IN SHARE MODE: the first word names the clause
                clause = upper;
            }
            if (upper.equals("BETWEEN")) betweenPending = true;
            else if (upper.equals("AND") && betweenPending) {
                token(BETWEEN_AND);
                betweenPending = false;
                return;
            }
            token(upper);
        }

        private void token(String t) {
            beforePrevious = previous;
            previous = t;
        }
    }

    /** MySQL's string escapes (default sql_mode): \0 \' \" \b \n \r \t \Z \\, and \% \_ kept for LIKE. */
    static String unescape(String body, char quote) {
        var sb = new StringBuilder(body.length());
        for (int k = 0; k < body.length(); k++) {
            char c = body.charAt(k);
            if (c == '\\' && k + 1 < body.length()) {
                char e = body.charAt(++k);
                switch (e) {
                    case '0' -> sb.append('\0');
                    case 'b' -> sb.append('\b');
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    case 'Z' -> sb.append((char) 26);
                    case '%', '_' -> sb.append('\\').append(e);
                    default -> sb.append(e);
                }
            } else if (c == quote && k + 1 < body.length() && body.charAt(k + 1) == quote) {
                sb.append(quote);
                k++;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
