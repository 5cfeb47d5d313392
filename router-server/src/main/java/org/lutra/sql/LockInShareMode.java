package org.lutra.sql;

import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.select.ForMode;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.WithIsolation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * MariaDB's shared locking read, {@code SELECT ... LOCK IN SHARE MODE [WAIT n | NOWAIT | SKIP LOCKED]}, which
 * JSQLParser (5.4) does not read; it reads {@code FOR SHARE}, which MariaDB refuses (1064).
 *
 * <p>Before parsing, a trailing clause is spelled {@code FOR SHARE} in place: {@code LOCK} becomes {@code FOR },
 * {@code IN} and {@code MODE} blanks, every other character (comments, line breaks between the words) stays where it
 * was, so the parser's line and column numbers are the client's. After parsing, the select that carries it renders
 * {@code LOCK IN SHARE MODE} again ({@link #restore}): every text the router sends or parses again is produced from
 * the syntax tree, and a part parsed again goes through here too.
 *
 * <p>A client's own {@code FOR SHARE} (MySQL 8's spelling) goes the same way: see {@link #forShareSpelledForMariaDb}.
 */
public final class LockInShareMode {
    private LockInShareMode() {}

    /** A word (letters, digits, _ and $), a quoted string or name ({@code "'"}), or one other character, outside comments. */
    public record Token(String upper, int start, int end) {}

    /**
     * The text for the parser: {@code sql} with its trailing {@code LOCK IN SHARE MODE} clause spelled {@code FOR SHARE},
     * each character where it was; null when the statement does not end with one (a ';', spaces and comments may follow).
     */
    public static String forParser(String sql) {
        List<Token> clause = trailingClause(sql);
        if (clause == null) return null;
        var text = new StringBuilder(sql);
        blank(text, clause.get(0), "FOR ");
        blank(text, clause.get(1), "");
        blank(text, clause.get(3), "");
        return text.toString();
    }

    /** {@code sql} with its trailing clause blanked, option and all (each other character where it was); null without one. */
    public static String withoutClause(String sql) {
        List<Token> clause = trailingClause(sql);
        if (clause == null) return null;
        var text = new StringBuilder(sql);
        for (Token t : clause) blank(text, t, "");
        return text.toString();
    }

    /** The tokens of the statement's trailing LOCK IN SHARE MODE clause, its option's included; null without one. */
    private static List<Token> trailingClause(String sql) {
        List<Token> tokens = tokens(sql);
        int end = tokens.size();
        if (end > 0 && tokens.get(end - 1).upper().equals(";")) end--;
        int clauseEnd = end;
        end -= optionLength(tokens, end);
        if (end < 4 || !is(tokens, end - 4, "LOCK") || !is(tokens, end - 3, "IN") || !is(tokens, end - 2, "SHARE") || !is(tokens, end - 1, "MODE")) {
            return null;
        }
        return tokens.subList(end - 4, clauseEnd);
    }

    /** Whether the words LOCK IN SHARE MODE follow each other anywhere in {@code sql} (outside strings, names and comments). */
    public static boolean named(String sql) {
        List<Token> tokens = tokens(sql);
        for (int i = 3; i < tokens.size(); i++) {
            if (is(tokens, i - 3, "LOCK") && is(tokens, i - 2, "IN") && is(tokens, i - 1, "SHARE") && is(tokens, i, "MODE")) return true;
        }
        return false;
    }

    /** How many tokens before {@code end} are the clause's option: {@code NOWAIT}, {@code WAIT n}, {@code SKIP LOCKED} or none. */
    private static int optionLength(List<Token> tokens, int end) {
        if (is(tokens, end - 1, "NOWAIT")) return 1;
        if (end >= 2 && is(tokens, end - 2, "WAIT") && tokens.get(end - 1).upper().matches("[0-9]+")) return 2;
        if (is(tokens, end - 2, "SKIP") && is(tokens, end - 1, "LOCKED")) return 2;
        return 0;
    }

    /**
     * Puts the clause back on the select that carries the {@code FOR SHARE} of {@link #forParser}'s text: it renders
     * {@code LOCK IN SHARE MODE} and its option. False when no select in the statement's tail carries one (the clause
     * stood where the parser would not take it: read the client's text as written, for its error).
     */
    public static boolean restore(Statement statement) {
        Select holder = holder(statement instanceof Insert insert ? insert.getSelect() : statement);
        if (holder == null || holder.getIsolation() != null || (holder.getForUpdateTables() != null && !holder.getForUpdateTables().isEmpty())) return false;
        String option = holder.isNoWait() ? " NOWAIT" : holder.isSkipLocked() ? " SKIP LOCKED" : holder.getWait() != null ? " WAIT " + holder.getWait().getTimeout() : "";
        holder.setIsolation(new Clause(option));
        holder.setForMode(null);
        holder.setWait(null);
        holder.setNoWait(false);
        holder.setSkipLocked(false);
        return true;
    }

    /** The select whose tail the statement's text ends with, if it holds a FOR SHARE: the statement, or a union's last select. */
    private static Select holder(Object statement) {
        if (statement instanceof Select s && s.getForMode() == ForMode.SHARE) return s;
        if (statement instanceof SetOperationList list && !list.getSelects().isEmpty()) return holder(list.getSelects().getLast());
        return null;
    }

    /** Whether {@code select} has a locking clause, in a form MariaDB reads or not ({@link #clause} refuses the latter). */
    public static boolean locks(PlainSelect select) {
        return select.getIsolation() instanceof Clause || select.getForMode() != null;
    }

    /**
     * The locking clause of {@code select} in MariaDB's words ({@code FOR UPDATE} or {@code LOCK IN SHARE MODE}, then its
     * {@code WAIT n}, {@code NOWAIT} or {@code SKIP LOCKED}), or null for a plain read: parsed from {@link #forParser}'s text
     * ({@code FOR SHARE}) or after {@link #restore}. A locking read's rounds and rewritten pieces carry it, so that each
     * locks the rows MariaDB's statement locks. A form MariaDB does not read (PostgreSQL's {@code FOR NO KEY UPDATE},
     * {@code OF tables}) is refused: it cannot be passed on.
     */
    public static String clause(PlainSelect select) throws PlanException {
        if (select.getIsolation() instanceof Clause c) return c.toString().trim();
        ForMode mode = select.getForMode();
        if (mode == null) return null;
        if (mode != ForMode.UPDATE && mode != ForMode.SHARE || select.getForUpdateTables() != null && !select.getForUpdateTables().isEmpty()) {
            throw PlanException.unsupported("the locking clause FOR " + mode + (select.getForUpdateTables() != null ? " OF ..." : "")
                    + " (MariaDB reads FOR UPDATE and LOCK IN SHARE MODE)");
        }
        String option = select.isNoWait() ? " NOWAIT" : select.isSkipLocked() ? " SKIP LOCKED"
                : select.getWait() != null ? " WAIT " + select.getWait().getTimeout() : "";
        return (mode == ForMode.UPDATE ? "FOR UPDATE" : "LOCK IN SHARE MODE") + option;
    }

    /**
     * The clause as the select renders it. JSQLParser has no slot for it; the isolation slot ({@code WITH UR}, DB2's) is
     * rendered where MariaDB takes the locking clause (after LIMIT and FETCH) and MariaDB has no use of its own for it.
     */
    private static final class Clause extends WithIsolation {
        private final String option;

        Clause(String option) {
            this.option = option;
            setIsolation("LOCK IN SHARE MODE" + option);
        }

        @Override
        public String toString() {
            return " LOCK IN SHARE MODE" + option;
        }
    }

    /**
     * {@code statement} with a client's own {@code FOR SHARE [NOWAIT | SKIP LOCKED]} (MySQL 8's spelling, which MariaDB
     * refuses with 1064) sent as {@code LOCK IN SHARE MODE}, the same shared lock, which MariaDB and MySQL 8 both read:
     * an application written for MySQL runs unchanged over MariaDB shards. Where the router cannot put it in MariaDB's
     * words ({@code FOR SHARE OF t}, or inside a subquery), it is refused before any backend sees it: a backend's 1064
     * inside a transaction ends the client's transaction (the router rolls back after a backend error), where one
     * server would keep it open.
     */
    public static Statement forShareSpelledForMariaDb(Statement statement) throws PlanException {
        restore(statement);
        for (Token t : pairs(statement.toString(), "FOR", "SHARE")) {
            throw PlanException.unsupported("FOR SHARE other than at the end of a SELECT (or of a UNION's last SELECT), or with OF tables"
                    + " (MariaDB reads neither; the router sends the end's FOR SHARE as LOCK IN SHARE MODE)");
        }
        return statement;
    }

    /** The second tokens of each {@code first second} pair of words in {@code sql} (outside strings, names and comments). */
    private static List<Token> pairs(String sql, String first, String second) {
        List<Token> tokens = tokens(sql);
        var out = new ArrayList<Token>();
        for (int i = 1; i < tokens.size(); i++) {
            if (is(tokens, i - 1, first) && is(tokens, i, second)) out.add(tokens.get(i));
        }
        return out;
    }

    private static boolean is(List<Token> tokens, int i, String upper) {
        return i >= 0 && i < tokens.size() && tokens.get(i).upper().equals(upper);
    }

    /** {@code token}'s characters replaced by {@code with}, then spaces. */
    private static void blank(StringBuilder text, Token token, String with) {
        for (int i = token.start(); i < token.end(); i++) {
            int k = i - token.start();
            text.setCharAt(i, k < with.length() ? with.charAt(k) : ' ');
        }
    }

    /** The statement's tokens, MariaDB's comments skipped: {@code #} and {@code -- } to the line's end, {@code /* ... * /}. */
    public static List<Token> tokens(String sql) {
        var out = new ArrayList<Token>();
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '#' || (c == '-' && sql.startsWith("--", i) && (i + 2 == n || Character.isWhitespace(sql.charAt(i + 2))))) {
                i = SqlSpans.lineEnd(sql, i);
            } else if (c == '/' && sql.startsWith("/*", i)) {
                int close = sql.indexOf("*/", i + 2);
                i = close < 0 ? n : close + 2;
            } else if (c == '\'' || c == '"' || c == '`') {
                int end = SqlSpans.quoted(sql, i, c);
                out.add(new Token("'", i, end));
                i = end;
            } else if (wordChar(c)) {
                int end = i;
                while (end < n && wordChar(sql.charAt(end))) end++;
                out.add(new Token(sql.substring(i, end).toUpperCase(Locale.ROOT), i, end));
                i = end;
            } else {
                out.add(new Token(String.valueOf(c), i, i + 1));
                i++;
            }
        }
        return out;
    }

    private static boolean wordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }
}
