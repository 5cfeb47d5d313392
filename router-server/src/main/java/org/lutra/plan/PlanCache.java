package org.lutra.plan;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import org.lutra.catalog.Catalog;
import org.lutra.exec.Planned;
import org.lutra.exec.SessionCommand;
import org.lutra.sql.Guards;
import org.lutra.sql.PlanException;

import java.util.List;

/**
 * The {@link Planner}'s plans by statement text, shared by every session and weighed by the heap they keep
 * ({@code limits.plan_cache_bytes}). Literals of WHERE, SET and VALUES become parameters before the text is looked up
 * ({@link Literals}), so statements that differ only in them share a plan; a prepared statement's text, which has
 * none to take out, is found as it is. DDL and named locks are never cached (their text goes to the backends as
 * written). Refusals are not cached.
 */
final class PlanCache {
    private final Planner planner;
    private final Cache<String, Planned> cache;
    /**
     * Statements that have no literal to take out — as prepared statements send them — by their
     * client text: the hot path skips rewriting and normalizing the text it has seen before.
     * Texts with literals are left out, so this holds about one entry per prepared statement.
     */
    private final Cache<String, Parameterized> parameterized;

    private record Parameterized(Planned plan, int params) {}

    /*
     * A cached plan's weight estimates the heap it keeps from its statement text: its syntax tree,
     * the text and the SQL cut for the partitions. Measured (PlannerLimitsTest, 40 plans a shape):
     * a long string literal keeps 3.1 bytes per character, a multi-row INSERT 10.7 and an IN list
     * 34 (about 100 bytes per item: a parameter node, list entries, each partition's share), an
     * OR chain 2.9. So: 4 bytes a character plus 96 a placeholder, plus a fixed cost per plan —
     * over the measurement for all shapes but the IN list, where it is within 15%.
     */
    static final int BYTES_PER_CHAR = 4;
    static final int BYTES_PER_PLACEHOLDER = 96;
    static final int BYTES_PER_PLAN = 2_048;

    PlanCache(Planner planner) {
        this.planner = planner;
        var limits = planner.limits();
        // Weighed by bytes, not counted: 400 distinct 1 MB statements in a cache of 10,000 entries took 850 MB.
        // Three quarters for plans, the rest for the index of prepared texts (its entries share the plans).
        // Evictions run on the inserting thread (executor), so the bound holds while a client floods the cache.
        this.cache = Caffeine.newBuilder().maximumWeight(limits.cacheBytes() / 4 * 3).executor(Runnable::run)
                .weigher((String text, Planned plan) -> weight(text)).recordStats().build();
        this.parameterized = Caffeine.newBuilder().maximumWeight(limits.cacheBytes() / 4).executor(Runnable::run)
                .weigher((String text, Parameterized p) -> 256 + 2 * text.length()).build();
    }

    /** Drops every plan: they were built on a catalog that changed. */
    void invalidateAll() {
        cache.invalidateAll();
        parameterized.invalidateAll();
    }

    /** {@link Planner#bind(String, List, Planner.Reuse)}; {@code keep}: whether the plan is kept. */
    Planner.Bound bind(String sql, List<org.lutra.protocol.Value> clientParams, boolean keep) throws PlanException {
        var limits = planner.limits();
        String database = planner.database();
        Guards.requireShort(sql, limits.maxStatementChars());
        // a text planned before (what a prepared statement sends) is neither DDL nor a named lock: those are never cached here
        Parameterized known = parameterized.getIfPresent(sql);
        if (known != null && known.params() == clientParams.size()) {
            return new Planner.Bound(known.plan(), clientParams);
        }
        SessionCommand.Ddl ddl = DdlStatements.plan(sql, database); // before the literals are taken out: DDL goes to the backends as written
        if (ddl != null) {
            if (!clientParams.isEmpty()) throw new PlanException("HY000", 0, "DDL statements take no parameters");
            return new Planner.Bound(ddl, clientParams);
        }
        SessionCommand lock = NamedLocks.plan(sql); // before the literals are taken out: its label is the client's text
        if (lock != null) {
            if (clientParams.size() != lock.paramCount()) {
                throw new PlanException("07001", 0, "the statement has " + lock.paramCount() + " parameter(s) but " + clientParams.size() + " were bound");
            }
            return new Planner.Bound(lock, clientParams);
        }
        // the rewrite and the literals' scan are loops, not recursions: they take any depth, and a statement that shares
        // its cached plan's key has the same nesting, operators and names outside its literals, so the same verdict of
        // the depth guard; the guard and the parse budget (two reads of the thread's CPU clock) are for building a plan
        Dialect.Rewritten rewritten = Dialect.rewrite(sql);
        Literals.Normalized normalized = Literals.normalize(rewritten.text());
        // the labels are the client's text, comments included, which the rewrite turned into blanks: such
        // statements share a plan only with the same text (`a -- x` and `a # y` rewrite alike, label otherwise)
        String key = rewritten.text().equals(sql) ? normalized.text() : normalized.text() + '\u0000' + sql;
        Planned cached = cache.getIfPresent(key);
        if (cached != null) return bound(sql, cached, normalized, clientParams, keep);
        Guards.requireShallow(sql, limits.maxNestingDepth(), limits.maxOperatorChain());
        try {
            return Parsing.within(limits.parseTimeoutMillis(), () -> bindNew(sql, rewritten, normalized, key, clientParams, keep));
        } catch (StackOverflowError deep) {
            // the last resort: an expression nested past what the parser and printer's recursion can take
            // (NOT NOT NOT ..., a + a + a + ...); nothing is cached, the session goes on
            throw Guards.tooDeep();
        }
    }

    private Planner.Bound bindNew(String sql, Dialect.Rewritten rewritten, Literals.Normalized normalized, String key,
                                  List<org.lutra.protocol.Value> clientParams, boolean keep) throws PlanException {
        Catalog planned = planner.catalog();
        Guards.requireNoNumberedParameter(normalized.text());
        requireParams(normalized, clientParams);
        Planned plan = planner.build(normalized.text(), new Labels.Source(sql, rewritten));
        if (keep) cache.put(key, plan);
        Planner.Bound bound = bound(sql, plan, normalized, clientParams, keep);
        if (planner.catalog() != planned) { // the catalog changed while this plan was built: it must not stay cached
            cache.invalidateAll();
            parameterized.invalidateAll();
        }
        return bound;
    }

    /** {@code plan} bound to one execution's parameters; a text without literals is remembered for its next execution. */
    private Planner.Bound bound(String sql, Planned plan, Literals.Normalized normalized, List<org.lutra.protocol.Value> clientParams,
                                boolean keep) throws PlanException {
        requireParams(normalized, clientParams);
        if (keep && normalized.literal().isEmpty() && normalized.text().equals(sql)) parameterized.put(sql, new Parameterized(plan, normalized.clientParams()));
        return new Planner.Bound(plan, normalized.bind(clientParams));
    }

    private static void requireParams(Literals.Normalized normalized, List<org.lutra.protocol.Value> clientParams) throws PlanException {
        if (clientParams.size() != normalized.clientParams()) {
            throw new PlanException("07001", 0, "the statement has " + normalized.clientParams() + " parameter(s) but "
                    + clientParams.size() + " were bound");
        }
    }

    /** Plan cache hits and misses since the router started. */
    com.github.benmanes.caffeine.cache.stats.CacheStats stats() {
        return cache.stats();
    }

    /** The plan or session command for {@code sql}, from the cache or built now. Refusals are not cached. */
    Planned plan(String sql) throws PlanException {
        var limits = planner.limits();
        String database = planner.database();
        Guards.requireShort(sql, limits.maxStatementChars());
        SessionCommand.Ddl ddl = DdlStatements.plan(sql, database);
        if (ddl != null) return ddl;
        Planned plan = cache.getIfPresent(sql);
        if (plan == null) {
            Guards.requireShallow(sql, limits.maxNestingDepth(), limits.maxOperatorChain());
            try {
                plan = Parsing.within(limits.parseTimeoutMillis(), () -> planner.build(sql, null));
            } catch (StackOverflowError deep) {
                throw Guards.tooDeep();
            }
            cache.put(sql, plan);
        }
        return plan;
    }

    /** The weight of a cached plan for {@code text}: an estimate of the heap it keeps, in bytes. */
    static int weight(String text) {
        long placeholders = 0;
        for (int i = 0; i < text.length(); i++) if (text.charAt(i) == '?') placeholders++;
        return (int) Math.min(Integer.MAX_VALUE, BYTES_PER_PLAN + (long) BYTES_PER_CHAR * text.length() + BYTES_PER_PLACEHOLDER * placeholders);
    }

    /** The estimated heap the cached plans keep, within the budget the limits give. */
    long weighedBytes() {
        cache.cleanUp();
        parameterized.cleanUp();
        return cache.policy().eviction().map(e -> e.weightedSize().orElse(0L)).orElse(0L)
                + parameterized.policy().eviction().map(e -> e.weightedSize().orElse(0L)).orElse(0L);
    }

    long size() {
        return cache.estimatedSize();
    }
}
