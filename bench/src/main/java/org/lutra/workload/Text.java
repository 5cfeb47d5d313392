package org.lutra.workload;

import java.util.SplittableRandom;

/** Random text for the generators. */
public final class Text {
    private Text() {}

    /** {@code length} random lower-case letters and spaces. */
    public static String letters(SplittableRandom random, int length) {
        char[] c = new char[length];
        for (int i = 0; i < length; i++) {
            int r = random.nextInt(27);
            c[i] = r == 26 ? ' ' : (char) ('a' + r);
        }
        return new String(c);
    }
}
