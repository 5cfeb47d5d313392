package org.lutra.catalog;

import org.lutra.lookup.TextKey;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * The routing key of a string under a collation whose equality the router takes from the server's
 * weights ({@link CollationWeights}): two keys are equal exactly when the column's {@code =} holds
 * their values equal ('Straße' and 'STRASSE' under utf8mb4_uca1400_ai_ci), so they share one lookup
 * entry, one hash bucket and one secondary lookup home.
 *
 * <p>The key still carries one spelling, {@link #value}: a probe the router sends itself ({@code WHERE
 * col = ?}: a move, a lookup validation, a secondary lookup's entry) binds it, and the backend matches
 * every row of the class, as it would for the client's own spelling. {@link #toString} is that value,
 * so a key written as text (the placement log, the move log) reads back as an equal key.
 */
public final class CollatedKey implements TextKey {
    private final byte[] weight;
    private final String text;
    private final String value;

    /** @param weight the collation's weight of {@code value}, trailing pad weights already taken off under PAD SPACE */
    public CollatedKey(byte[] weight, String value) {
        this.weight = weight;
        this.value = value;
        this.text = "w:" + HexFormat.of().formatHex(weight);
    }

    /** One spelling of the key, to bind where the backend compares it with the column. */
    public String value() {
        return value;
    }

    /** The weight bytes (not copied: callers only read them). */
    byte[] weight() {
        return weight;
    }

    @Override
    public String lookupText() {
        return text;
    }

    /** Orders keys by weight, unsigned byte by byte: the collation's order when it is NO PAD. */
    int compareTo(CollatedKey other) {
        return Arrays.compareUnsigned(weight, other.weight);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CollatedKey k && text.equals(k.text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return value;
    }
}
