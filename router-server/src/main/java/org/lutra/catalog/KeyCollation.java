package org.lutra.catalog;

import java.util.BitSet;
import java.util.HashMap;

/**
 * The equality of a case- or accent-insensitive routing column, as a function the router runs:
 * every string maps to a representative that the column's collation holds equal to it (each
 * character to the smallest character of the same weight; trailing characters that weigh as a
 * space dropped, as PAD SPACE compares). 'ANN', 'ann ' and 'Ann' route alike, and a lookup probe
 * bound with the representative matches exactly the rows the original would.
 *
 * <p>Only collations whose every character has exactly one weight (utf8mb4_general_ci and its
 * kind) are taken; the weights are read once from a backend at start ({@link #learn}), so the
 * router's equality is the server's own.
 */
public final class KeyCollation {
    private final String name;
    private volatile char[] representative;
    /** Characters the collation ignores (no weight): left out of the representative. */
    private volatile BitSet ignored;
    private volatile char supplementary;

    public KeyCollation(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    /** The character set of the collation, the part of its name before the first '_'. */
    public String charset() {
        return name.substring(0, name.indexOf('_'));
    }

    /**
     * Installs the weights read from a backend.
     *
     * @param weights        the weight (hex) of each BMP character: null where the character set has
     *                       no such character, empty where the collation ignores it
     * @param supplementary  the weight shared by every character above U+FFFF, or null if they differ
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

    public boolean ready() {
        return representative != null;
    }

    /** The representative of {@code s}: equal under the collation to every string equal to {@code s}. */
    public String canonical(String s) {
        char[] rep = representative;
        if (rep == null) throw new IllegalStateException("collation " + name + " has not been read from a backend yet");
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
