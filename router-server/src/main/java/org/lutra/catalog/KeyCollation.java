package org.lutra.catalog;

import java.util.BitSet;
import java.util.HashMap;

/**
 * The equality of a string routing column as a function the router runs, learned from a backend at
 * start ({@code maintain.Collations}): every string maps to a key that is equal for exactly the strings
 * the column's {@code =} holds equal. Three ways, by collation:
 * <ul>
 *   <li><b>binary</b> ({@code utf8mb4_bin}, PAD SPACE): the string without trailing spaces;
 *   <li><b>representative</b> (utf8mb4_general_ci and its kind, every character one weight): each
 *       character replaced by the smallest character of the same weight, ignorable ones left out,
 *       trailing spaces dropped; a String that is itself a spelling of the key. 'ANN', 'ann ' and
 *       'Ann' route alike, and a probe bound with the representative matches exactly the rows the
 *       original would. Computed here, from weights read once;
 *   <li><b>weighed</b> (every other collation: UCA ones such as utf8mb4_uca1400_ai_ci or MySQL's
 *       utf8mb4_0900_ai_ci, NO PAD ones, latin1's): the server's own weight of the string
 *       ({@link CollationWeights}, a {@link CollatedKey}), through a bounded cache.
 * </ul>
 *
 * @see CollationWeights for what is exact and why
 */
public final class KeyCollation {
    /** The collation the schema names on the column; null: the column's default, read from the backend. */
    private final String declared;
    private volatile String name;
    private volatile boolean binary;
    private volatile char[] representative;
    /** Characters the collation ignores (no weight): left out of the representative. */
    private volatile BitSet ignored;
    private volatile char supplementary;
    private volatile CollationWeights weights;

    public KeyCollation(String declared) {
        this.declared = declared;
        this.name = declared;
    }

    /** The collation's name: the declared one, or once learned the backend's; null before that for an undeclared one. */
    public String name() {
        return name;
    }

    /** The collation the schema names, or null when the column takes its table's default. */
    public String declared() {
        return declared;
    }

    /** The character set of the collation, the part of its name before the first '_'. */
    public String charset() {
        return name.substring(0, name.indexOf('_'));
    }

    /** Learned: the column's collation is binary (PAD SPACE), its keys the strings without trailing spaces. */
    public void learnBinary(String collation) {
        this.name = collation;
        this.binary = true;
    }

    /** Learned: keys are the server's weights, through {@code weights}. */
    public void learnWeights(CollationWeights weights) {
        this.name = weights.collation();
        this.weights = weights;
    }

    /**
     * Installs the weights read from a backend, for the representative way.
     *
     * @param weights        the weight (hex) of each BMP character: null where the character set has
     *                       no such character, empty where the collation ignores it
     * @param supplementaryWeight the weight shared by every character above U+FFFF, or null if they differ
     * @throws IllegalStateException when a character weighs more than one unit or characters above U+FFFF
     *                               weigh apart: the collation is not of that kind (it can be weighed)
     */
    public void learn(String[] weights, String supplementaryWeight) {
        var rep = new char[0x10000];
        var none = new BitSet();
        var first = new HashMap<String, Character>();
        for (int cp = 0; cp < 0x10000; cp++) {
            String w = weights[cp];
            if (w == null) {
                rep[cp] = (char) cp;
                continue;
            }
            if (w.isEmpty()) {
                none.set(cp);
                continue;
            }
            if (w.length() != 4) {
                throw new IllegalStateException("collation " + name + " gives U+" + Integer.toHexString(cp) + " the weight '" + w
                        + "', not one unit: the router routes only by collations whose every character has one weight (e.g. utf8mb4_general_ci)");
            }
            first.putIfAbsent(w, (char) cp); // code points ascend: the first one seen is the smallest
            rep[cp] = first.get(w);
        }
        if (supplementaryWeight == null || !first.containsKey(supplementaryWeight)) {
            throw new IllegalStateException("collation " + name + " weighs characters above U+FFFF apart: the router does not route by it");
        }
        this.supplementary = first.get(supplementaryWeight);
        this.ignored = none;
        this.representative = rep;
    }

    /** {@link #learn(String[], String)} for the collation {@code collation} (the column's, as the backend names it). */
    public void learn(String collation, String[] weights, String supplementaryWeight) {
        this.name = collation;
        learn(weights, supplementaryWeight);
    }

    public boolean ready() {
        return binary || representative != null || weights != null;
    }

    /** Whether the learned collation is binary. */
    public boolean binary() {
        return binary;
    }

    /** Whether keys are the server's weights ({@link CollatedKey}). */
    public boolean weighed() {
        return weights != null;
    }

    /** The weights of a weighed collation, else null. */
    public CollationWeights weights() {
        return weights;
    }

    /**
     * The key of {@code s}: equal for exactly the strings the collation holds equal; null when the router
     * cannot give it one exactly (a value the column's character set cannot hold).
     *
     * @throws KeyWeighingException when a weighed collation's backend cannot be asked
     */
    public Object key(String s) {
        CollationWeights w = weights;
        if (w != null) return w.key(s);
        if (binary) return KeyValues.normalize(s, KeyType.STRING);
        return canonical(s);
    }

    /** {@link #key} of each value (null stays null), new values of a weighed collation in one round trip. */
    public Object[] keys(String[] values) {
        CollationWeights w = weights;
        if (w != null) return w.keys(values);
        var out = new Object[values.length];
        for (int i = 0; i < values.length; i++) out[i] = values[i] == null ? null : key(values[i]);
        return out;
    }

    /** The representative of {@code s}: equal under the collation to every string equal to {@code s}. */
    public String canonical(String s) {
        char[] rep = representative;
        if (rep == null) throw new IllegalStateException("collation " + (name == null ? "of the column" : name) + " has not been read from a backend yet");
        var sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            if (cp > 0xFFFF) sb.append(supplementary);
            else if (!ignored.get(cp)) sb.append(rep[cp]);
            i += Character.charCount(cp);
        }
        char space = rep[' '];
        int end = sb.length();
        while (end > 0 && sb.charAt(end - 1) == space) end--;
        sb.setLength(end);
        return sb.toString();
    }
}
