package org.lutra.lookup;

/** Key conversions shared by the implementations. */
public final class Keys {
    private Keys() {}

    static long asLong(Object key) {
        if (key instanceof Long l) {
            return l;
        }
        if (key instanceof Integer || key instanceof Short || key instanceof Byte) {
            return ((Number) key).longValue();
        }
        throw new IllegalArgumentException("lookup keys are long, String or TextKey, not " + (key == null ? "null" : key.getClass().getName()));
    }

    /** The text a String or {@link TextKey} key is stored under; null for integer keys. */
    public static String text(Object key) {
        if (key instanceof String s) {
            return s;
        }
        return key instanceof TextKey t ? t.lookupText() : null;
    }

    /** Whether a long key fits the int-keyed tables (Colt). */
    static boolean fitsInt(long key) {
        return key == (int) key;
    }

    /**
     * A text key from a map file: a {@link Long} if the text is the canonical decimal spelling of
     * a long (so that writing it back gives the same text), otherwise the text itself.
     */
    public static Object parse(String text) {
        int n = text.length();
        if (n == 0 || n > 20) {
            return text;
        }
        int i = text.charAt(0) == '-' ? 1 : 0;
        if (i == n || (text.charAt(i) == '0' && n > i + 1) || text.equals("-0")) {
            return text; // not the canonical spelling of an integer ("007", "-0"): keep it as text
        }
        for (int j = i; j < n; j++) {
            char c = text.charAt(j);
            if (c < '0' || c > '9') {
                return text;
            }
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException tooLarge) {
            return text;
        }
    }
}
