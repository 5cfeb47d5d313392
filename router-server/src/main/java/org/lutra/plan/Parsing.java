package org.lutra.plan;

import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.parser.feature.Feature;
import net.sf.jsqlparser.statement.Statement;

import org.lutra.sql.Guards;
import org.lutra.sql.LockInShareMode;
import org.lutra.sql.PlanException;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
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
 *
 * <p>The deadline counts the session thread's CPU time, not the clock: a router on a busy machine,
 * or one whose first statement loads and compiles the parser's classes, must not refuse ordinary
 * statements because its thread waited for a core (a cold router under load took over 3 s of
 * wall time for its first parse). Where the JVM cannot measure thread CPU time, the clock counts.
 */
final class Parsing {
    /** Sets the flag of parsers past their deadline; one daemon thread for the router. */
    private static final ScheduledExecutorService DEADLINES = Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("lutra-parse-deadlines").unstarted(r));

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final boolean CPU_TIME = THREADS.isCurrentThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled();

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
        STATEMENT.set(new long[] {spentNanos() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis), timeoutMillis});
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
        if (statement == null) return parse(sql, spentNanos() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis), timeoutMillis);
        return parse(sql, statement[0], statement[1]);
    }

    /**
     * @throws PlanException 42000/1064: a syntax error, a statement whose parses took longer than {@code timeoutMillis}, or
     *                       one nested past what the parser's recursion takes
     */
    private static Statement parse(String sql, long deadline, long timeoutMillis) throws PlanException {
        if (sql.isBlank()) throw new PlanException("42000", 1065, "Query was empty"); // MySQL's answer; the parser has no rule for empty text
        sql = DoubledQuotes.asBackslashEscapes(sql);
        // both spellings name SHARE: a statement without the word is read as it stands (no scan, no deparse)
        boolean share = mentionsShare(sql);
        String shareMode = share ? LockInShareMode.forParser(sql) : null;
        boolean misplaced = share && shareMode == null && LockInShareMode.named(sql);
        if (shareMode != null) {
            try {
                Statement statement = read(shareMode, deadline, timeoutMillis);
                if (LockInShareMode.restore(statement)) return LockInShareMode.forShareSpelledForMariaDb(statement); // (a subquery's FOR SHARE)
                misplaced = true; // it parsed, but not as a SELECT's own clause
            } catch (ParseException e) {
                // a syntax error elsewhere (the statement without the clause does not parse either): reported in the client's
                // words, from the text as written, at the same place; else the clause stands where the parser does not take it
                try {
                    read(LockInShareMode.withoutClause(sql), deadline, timeoutMillis);
                    misplaced = true;
                } catch (ParseException elsewhere) {
                    // a syntax error
                }
            }
        }
        try {
            Statement statement = read(sql, deadline, timeoutMillis);
            return share ? LockInShareMode.forShareSpelledForMariaDb(statement) : statement;
        } catch (ParseException e) {
            if (misplaced) {
                // MariaDB may take it there (a subquery's, a parenthesized select's): not a syntax error the router can vouch for
                throw PlanException.unsupported("LOCK IN SHARE MODE other than at the end of a SELECT (or of a UNION's last SELECT),"
                        + " or with other words after it (the parser: " + firstLine(e.getMessage()) + ")");
            }
            Statement upsert = share ? null : upsertAfterJoin(sql, deadline, timeoutMillis);
            if (upsert != null) return upsert;
            throw syntaxError(e);
        }
    }

    /** {@link UpsertAfterJoin}'s reading of {@code sql}; null when it is not that statement, or does not parse so either. */
    private static Statement upsertAfterJoin(String sql, long deadline, long timeoutMillis) throws PlanException {
        String text = UpsertAfterJoin.forParser(sql);
        if (text == null) return null;
        try {
            Statement statement = read(text, deadline, timeoutMillis);
            return UpsertAfterJoin.restore(statement) ? statement : null;
        } catch (ParseException e) {
            return null; // a syntax error elsewhere: reported from the client's text
        }
    }

    private static boolean mentionsShare(String sql) {
        for (int i = sql.length() - 5; i >= 0; i--) {
            if (sql.regionMatches(true, i, "SHARE", 0, 5)) return true;
        }
        return false;
    }

    /** The statement, by simple parsing, else by complex parsing; a ParseException is a syntax error. */
    private static Statement read(String sql, long deadline, long timeoutMillis) throws ParseException, PlanException {
        ParseException simpleFailure;
        try {
            return run(newParser(sql, false), deadline, timeoutMillis);
        } catch (ParseException e) {
            simpleFailure = e;
        }
        int depth = CCJSqlParserUtil.getNestingDepth(sql);
        int allowed = ((Number) Feature.allowedNestingDepth.getDefaultValue()).intValue();
        if (allowed >= 0 && depth > allowed) throw simpleFailure;
        return run(newParser(sql, true), deadline, timeoutMillis);
    }

    private static CCJSqlParser newParser(String sql, boolean complex) {
        CCJSqlParser parser = CCJSqlParserUtil.newParser(sql);
        Planner.MYSQL.accept(parser);
        parser.withAllowComplexParsing(complex);
        return parser;
    }

    private static Statement run(CCJSqlParser parser, long deadline, long timeoutMillis) throws ParseException, PlanException {
        long left = deadline - spentNanos();
        if (left <= 0) throw timedOut(timeoutMillis);
        var alarm = new Alarm(parser, Thread.currentThread().threadId(), deadline);
        alarm.schedule(left);
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
            alarm.cancel();
        }
    }

    /** This thread's CPU time (or the clock's time), in nanoseconds: what a parse deadline counts. */
    private static long spentNanos() {
        return CPU_TIME ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
    }

    /**
     * Sets the parser's flag once its thread has spent the budget. It wakes when the budget would
     * be spent had the thread run all the time, and sleeps again for what is left when it had not.
     */
    private static final class Alarm implements Runnable {
        private final CCJSqlParser parser;
        private final long thread;
        private final long deadline;
        private volatile boolean cancelled;
        private volatile ScheduledFuture<?> next;

        Alarm(CCJSqlParser parser, long thread, long deadline) {
            this.parser = parser;
            this.thread = thread;
            this.deadline = deadline;
        }

        void schedule(long nanos) {
            next = DEADLINES.schedule(this, nanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void run() {
            if (cancelled) return;
            long left = deadline - (CPU_TIME ? THREADS.getThreadCpuTime(thread) : System.nanoTime());
            if (left <= 0) {
                parser.interrupted = true;
            } else {
                schedule(left);
            }
        }

        void cancel() {
            cancelled = true;
            var f = next;
            if (f != null) f.cancel(false);
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
