package org.lutra.plan;

import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.parser.feature.Feature;
import net.sf.jsqlparser.statement.Statement;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * JSQLParser on the calling thread, with a deadline.
 *
 * <p>{@code CCJSqlParserUtil.parse} starts a new platform thread for every statement and waits
 * for it with a timeout; a timed-out parser keeps its thread busy. Here the parser runs on the
 * session's own thread and the deadline sets the parser's {@code interrupted} flag, which its
 * expression rules check: it stops within milliseconds with a ParseException (measured: a
 * 10,000-term OR chain that takes a second stops 20 ms after a 20 ms deadline). As JSQLParser's
 * own entry point, a statement the simple grammar cannot read is tried once more with complex
 * parsing, within the same deadline.
 */
final class Parsing {
    /** Sets the flag of parsers past their deadline; one daemon thread for the router. */
    private static final ScheduledExecutorService DEADLINES = Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("lutra-parse-deadlines").unstarted(r));

    /** The deadline of the statement this thread is planning: every parse while planning it shares one budget. */
    private static final ThreadLocal<long[]> STATEMENT = new ThreadLocal<>();

    private Parsing() {}

    /**
     * Runs {@code planning} with one parse budget of {@code timeoutMillis} for all the parses it
     * makes: the planner parses parts of a statement again (each subquery level, derived tables),
     * and 120 nested subqueries over a long OR chain took 14 s of re-parsing with a budget per parse.
     */
    static <T> T within(long timeoutMillis, Planning<T> planning) throws PlanException {
        if (STATEMENT.get() != null) return planning.run(); // nested: the outer budget holds
        STATEMENT.set(new long[] {System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis), timeoutMillis});
        try {
            return planning.run();
        } finally {
            STATEMENT.remove();
        }
    }

    interface Planning<T> {
        T run() throws PlanException;
    }

    /** {@link #parse(String, long)} within the budget of the statement being planned, or {@code timeoutMillis} outside one. */
    static Statement parse(String sql, long timeoutMillis) throws PlanException {
        long[] statement = STATEMENT.get();
        if (statement == null) return parse(sql, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis), timeoutMillis);
        return parse(sql, statement[0], statement[1]);
    }

    /**
     * @throws PlanException 42000/1064: a syntax error, a statement whose parses took longer than {@code timeoutMillis}, or
     *                       one nested past what the parser's recursion takes
     */
    private static Statement parse(String sql, long deadline, long timeoutMillis) throws PlanException {
        if (sql.isBlank()) throw new PlanException("42000", 1065, "Query was empty"); // (the parser has no parser for it: found by ProtocolFuzzIT)
        ParseException simpleFailure;
        try {
            return run(newParser(sql, false), deadline, timeoutMillis);
        } catch (ParseException e) {
            simpleFailure = e;
        }
        int depth = CCJSqlParserUtil.getNestingDepth(sql);
        int allowed = ((Number) Feature.allowedNestingDepth.getDefaultValue()).intValue();
        if (allowed >= 0 && depth > allowed) throw syntaxError(simpleFailure);
        try {
            return run(newParser(sql, true), deadline, timeoutMillis);
        } catch (ParseException e) {
            throw syntaxError(e);
        }
    }

    private static CCJSqlParser newParser(String sql, boolean complex) {
        CCJSqlParser parser = CCJSqlParserUtil.newParser(sql);
        Planner.MYSQL.accept(parser);
        parser.withAllowComplexParsing(complex);
        return parser;
    }

    private static Statement run(CCJSqlParser parser, long deadline, long timeoutMillis) throws ParseException, PlanException {
        long left = deadline - System.nanoTime();
        if (left <= 0) throw timedOut(timeoutMillis);
        var alarm = DEADLINES.schedule(() -> {
            parser.interrupted = true;
        }, left, TimeUnit.NANOSECONDS);
        try {
            Statement statement = parser.Statement();
            // the flag also steers the parser's choices: a statement read after it was set may not be the one sent
            if (parser.interrupted) throw timedOut(timeoutMillis);
            return statement;
        } catch (ParseException e) {
            if (parser.interrupted) throw timedOut(timeoutMillis);
            throw e;
        } catch (StackOverflowError e) {
            throw Guards.tooDeep();
        } catch (RuntimeException | Error e) {
            // the parser's own bugs (a TokenMgrError on a stray character, an NPE in an action) are syntax errors to the client
            if (parser.interrupted) throw timedOut(timeoutMillis);
            if (e instanceof VirtualMachineError vm) throw vm;
            throw new ParseException(String.valueOf(e.getMessage()));
        } finally {
            alarm.cancel(false);
        }
    }

    private static PlanException timedOut(long timeoutMillis) {
        return new PlanException("42000", 1064, "The statement took longer than " + timeoutMillis
                + " ms to parse (parse_timeout_ms): simplify or split it");
    }

    static PlanException syntaxError(Exception e) {
        return new PlanException("42000", 1064, "You have an error in your SQL syntax: " + firstLine(e.getMessage()));
    }

    /** The parser's message, first line, bounded: it quotes the statement's text back. */
    static String firstLine(String m) {
        m = String.valueOf(m).strip();
        int nl = m.indexOf('\n');
        if (nl >= 0) m = m.substring(0, nl);
        return m.length() <= 200 ? m : m.substring(0, 200) + "...";
    }
}
