package org.lutra.catalog;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Routing keys of strings under a collation whose equality the router does not compute itself (UCA
 * collations: contractions, expansions such as 'ß' = 'ss', ignorable characters; NO PAD collations):
 * the server weighs each value ({@code WEIGHT_STRING}), and the key is that weight ({@link CollatedKey}),
 * so two values are one key exactly when the server's {@code =} holds them equal.
 *
 * <p>Under PAD SPACE the server compares as if the shorter string were padded with spaces: the weights of
 * trailing characters that weigh as a space (' ', and under accent-insensitive UCA collations also U+00A0
 * and others) are taken off the end. That is exact for collations that compare on one level, which
 * {@code Collations} checks before it builds one of these; a PAD SPACE collation comparing on several
 * levels is refused there.
 *
 * <p>The hot path asks a bounded cache (value → key): a statement pays a backend round trip only for values
 * it is the first to route since they were evicted, and a statement with several values (an IN list, a
 * multi-row INSERT) weighs all its new values in one round trip ({@link #keys}).
 */
public final class CollationWeights {
    /** Weighs values on a backend, in the column's character set and collation. */
    @FunctionalInterface
    public interface Source {
        /**
         * The weight of each value, in order; null for a value the column's character set cannot hold exactly
         * (the backend would compare something else with the column).
         */
        List<byte[]> weigh(List<String> values) throws SQLException;
    }

    /** Values per round trip. */
    static final int BATCH = 200;
    /** The cache's bound, in (estimated) bytes of keys and values. */
    public static final long DEFAULT_CAPACITY_BYTES = 16L << 20;
    /** A value with no key (the cache holds no nulls). */
    private static final Object NO_KEY = new Object();

    private final String collation;
    private final boolean padSpace;
    private final byte[] space;
    private final Source source;
    private final Cache<String, Object> cache;
    private final LongAdder roundTrips = new LongAdder();

    /** A collation's pad attribute, as MySQL names it: PAD SPACE collations ignore trailing spaces, NO PAD ones do not. */
    public enum Pad { PAD_SPACE, NO_PAD }

    /**
     * @param pad   whether the collation ignores trailing spaces
     * @param space the weight of one space: the unit taken off the end of PAD SPACE weights
     */
    public CollationWeights(String collation, Pad pad, byte[] space, Source source, long capacityBytes) {
        boolean padSpace = pad == Pad.PAD_SPACE;
        if (padSpace && space.length == 0) throw new IllegalArgumentException("collation " + collation + ": a space with no weight");
        this.collation = collation;
        this.padSpace = padSpace;
        this.space = space.clone();
        this.source = source;
        this.cache = Caffeine.newBuilder()
                .maximumWeight(capacityBytes)
                .weigher((String value, Object key) -> 64 + 2 * value.length() + (key instanceof CollatedKey k ? 64 + 3 * k.weight().length : 0))
                .build();
    }

    public String collation() {
        return collation;
    }

    /** The key of {@code value}, or null when it has none (see {@link Source#weigh}). */
    public CollatedKey key(String value) {
        Object cached = cache.getIfPresent(value);
        if (cached != null) return cached == NO_KEY ? null : (CollatedKey) cached;
        return (CollatedKey) keys(new String[] {value})[0];
    }

    /**
     * The keys of {@code values} (null entries stay null; a value with no key gives null), the values the
     * cache does not hold weighed in one round trip per {@link #BATCH}.
     *
     * @throws KeyWeighingException when the backend cannot be asked
     */
    public Object[] keys(String[] values) {
        var out = new Object[values.length];
        var missing = new LinkedHashMap<String, Object>();
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) continue;
            Object cached = cache.getIfPresent(values[i]);
            if (cached == null) missing.put(values[i], null);
            else out[i] = cached == NO_KEY ? null : cached;
        }
        if (missing.isEmpty()) return out;
        var asked = new ArrayList<>(missing.keySet());
        for (int from = 0; from < asked.size(); from += BATCH) {
            var chunk = asked.subList(from, Math.min(asked.size(), from + BATCH));
            List<byte[]> weights;
            try {
                roundTrips.increment();
                weights = source.weigh(chunk);
            } catch (SQLException e) {
                throw new KeyWeighingException(new SQLException("cannot route by " + collation + ": weighing " + chunk.size() + " value(s) on a backend failed: "
                        + e.getMessage(), e.getSQLState(), e.getErrorCode(), e));
            }
            if (weights.size() != chunk.size()) throw new IllegalStateException("asked " + chunk.size() + " weights, got " + weights.size());
            for (int j = 0; j < chunk.size(); j++) {
                Object key = keyOf(chunk.get(j), weights.get(j));
                missing.put(chunk.get(j), key);
                cache.put(chunk.get(j), key);
            }
        }
        for (int i = 0; i < values.length; i++) {
            if (values[i] != null && out[i] == null) {
                Object key = missing.get(values[i]);
                out[i] = key == NO_KEY ? null : key;
            }
        }
        return out;
    }

    private Object keyOf(String value, byte[] weight) {
        if (weight == null) return NO_KEY;
        if (!padSpace) return new CollatedKey(weight, value);
        int unit = space.length;
        if (weight.length % unit != 0) return NO_KEY; // not whole units: the pad cannot be taken off exactly
        int end = weight.length;
        while (end >= unit && Arrays.equals(weight, end - unit, end, space, 0, unit)) end -= unit;
        return new CollatedKey(end == weight.length ? weight : Arrays.copyOf(weight, end), value);
    }

    /** Backend round trips made so far (one per batch of values the cache did not hold). */
    public long roundTrips() {
        return roundTrips.sum();
    }

    /** Values the cache holds now (approximate). */
    public long cached() {
        cache.cleanUp();
        return cache.estimatedSize();
    }
}
