package org.lutra.lookup;

import java.util.EnumMap;
import java.util.Map;

/**
 * Picks a table representation from the shape of the keys, and says why.
 *
 * <p>The rule is the paper's, made quantitative: an array costs its span times the cell width
 * whatever the density; a hash table costs a number of bytes per key set by its pre-sized
 * capacity (16 to 32 for the primitive long map, whose capacity is a power of two at most 3/4
 * full; 18 for Colt's at its 0.5 load factor). So an array is the smallest choice above a
 * density of roughly width/18 (about 5% with one-byte cells) and the fastest at any density;
 * the paper, with 4-byte cells and a boxed hash map, saw the crossover at 40–50%. Colt is
 * preferred over the long map only when every key fits an int, as in the thesis. The
 * compressed table is chosen when the profile shows long runs or a skewed distribution and the
 * caller asked for compactness: it trades lookup speed for memory.
 */
public final class LookupTables {
    static final double STRING_BYTES_PER_KEY = 104;

    private LookupTables() {}

    public enum Kind { DENSE_ARRAY, COLT, HASH, COMPRESSED }

    /** The decision, the reason in words, and the estimated bytes of every representation that applies. */
    public record Choice(Kind kind, String reason, Map<Kind, Long> estimatedBytes) {}

    /** The fastest representation that fits the profile (dense array, Colt or hash map). */
    public static Choice choose(KeyProfile profile) {
        return choose(profile, false);
    }

    /**
     * As {@link #choose}, but the slower compressed representation where it is at least twice smaller than the best
     * uncompressed one.
     */
    public static Choice chooseCompact(KeyProfile profile) {
        return choose(profile, true);
    }

    private static Choice choose(KeyProfile profile, boolean preferCompact) {
        Map<Kind, Long> bytes = estimate(profile);
        if (profile.stringKeys() > 0) {
            return new Choice(Kind.HASH, profile.stringKeys() + " string keys: only the general hash map holds them", bytes);
        }
        if (profile.keyCount() == 0) {
            return new Choice(Kind.HASH, "no keys yet: the general hash map has no span to commit to", bytes);
        }
        Kind best = bytes.containsKey(Kind.DENSE_ARRAY) && bytes.get(Kind.DENSE_ARRAY) <= cheapestHash(bytes)
                ? Kind.DENSE_ARRAY
                : bytes.containsKey(Kind.COLT) ? Kind.COLT : Kind.HASH;
        String why = String.format("density %.1f%% over %,.0f keys: %s needs %s vs %s", 100 * profile.density(),
                profile.spanKeys(), name(best), human(bytes.get(best)), others(bytes, best));
        if (preferCompact && bytes.containsKey(Kind.COMPRESSED) && bytes.get(Kind.COMPRESSED) * 2 <= bytes.get(best)) {
            return new Choice(Kind.COMPRESSED, "compactness asked and the map is skewed or clustered (entropy "
                    + String.format("%.2f", profile.entropyBits()) + " bits/key, " + profile.runs() + " runs): " + why, bytes);
        }
        return new Choice(best, why, bytes);
    }

    /** An empty table of the chosen kind, shaped for the profile. */
    public static LookupTable create(Choice choice, KeyProfile profile) {
        return switch (choice.kind()) {
            case DENSE_ARRAY -> new DenseArrayLookupTable(profile.minKey(), profile.maxKey() - profile.minKey() + 1,
                    profile.partitionCount());
            case COLT -> new ColtLookupTable((int) Math.min(Integer.MAX_VALUE / 4, profile.keyCount()));
            case HASH -> new HashLookupTable(profile.integerKeys());
            case COMPRESSED -> new CompressedLookupTable();
        };
    }

    /** Bytes each applicable representation would need for the profile. */
    public static Map<Kind, Long> estimate(KeyProfile profile) {
        Map<Kind, Long> bytes = new EnumMap<>(Kind.class);
        long ints = profile.integerKeys();
        bytes.put(Kind.HASH, ConcurrentLongIntMap.bytesFor(ints) + (long) (profile.stringKeys() * STRING_BYTES_PER_KEY));
        if (profile.stringKeys() > 0 || ints == 0) {
            return bytes;
        }
        int width = profile.partitionCount() < 0xFF ? 1 : profile.partitionCount() < 0xFFFF ? 2 : 4;
        double span = profile.spanKeys();
        if (span / DenseStorage.PAGE_SIZE < DenseArrayLookupTable.DEFAULT_MAX_PAGES) {
            bytes.put(Kind.DENSE_ARRAY, (long) (span * width));
        }
        if (profile.allIntKeys()) {
            bytes.put(Kind.COLT, ColtLookupTable.bytesFor(ints));
        }
        if (span / DenseStorage.PAGE_SIZE < DenseArrayLookupTable.DEFAULT_MAX_PAGES) {
            bytes.put(Kind.COMPRESSED, (long) CompressedLookupTable.estimateBytes(profile));
        }
        return bytes;
    }

    private static long cheapestHash(Map<Kind, Long> bytes) {
        return Math.min(bytes.get(Kind.HASH), bytes.getOrDefault(Kind.COLT, Long.MAX_VALUE));
    }

    private static String others(Map<Kind, Long> bytes, Kind best) {
        var sb = new StringBuilder();
        bytes.forEach((kind, b) -> {
            if (kind != best) {
                sb.append(sb.isEmpty() ? "" : ", ").append(name(kind)).append(' ').append(human(b));
            }
        });
        return sb.toString();
    }

    static String name(Kind kind) {
        return kind.name().toLowerCase().replace('_', ' ');
    }

    public static String human(long bytes) {
        if (bytes < 10_000) {
            return bytes + " B";
        }
        if (bytes < 10_000_000) {
            return bytes / 1000 + " KB";
        }
        if (bytes < 10_000_000_000L) {
            return bytes / 1_000_000 + " MB";
        }
        return bytes / 1_000_000_000 + " GB";
    }
}
