package org.lutra.log;

/**
 * Client-chosen text made safe for a log line: user names, statements, and the exception messages
 * that quote them. Control characters, quotes and non-ASCII are escaped ({@code \u000a}), so a
 * client cannot forge log lines or send escape sequences to an operator's terminal; long text is cut.
 */
public final class LogText {
    /** How much of an exception's message a log line keeps. */
    static final int MESSAGE_CHARS = 300;

    private LogText() {}

    /** {@code text} quoted, escaped and cut at {@code max} characters (its length said). */
    public static String printable(String text, int max) {
        if (text == null) return "null";
        var out = new StringBuilder("'");
        for (int i = 0; i < text.length() && i < max; i++) {
            char c = text.charAt(i);
            if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') out.append(c);
            else out.append(String.format("\\u%04x", (int) c));
        }
        return out.append(text.length() > max ? "'... (" + text.length() + " characters)" : "'").toString();
    }

    /**
     * {@code e} for a log line: the same classes and stack frames, each message (a parser's may
     * quote the whole statement) escaped and cut. Causes follow, a few deep.
     */
    public static Throwable redacted(Throwable e) {
        return redacted(e, 0);
    }

    private static Throwable redacted(Throwable e, int depth) {
        if (e == null || depth > 8) return null;
        var copy = new Redacted(e.getClass().getName() + (e.getMessage() == null ? "" : ": " + printable(e.getMessage(), MESSAGE_CHARS)),
                redacted(e.getCause(), depth + 1));
        copy.setStackTrace(e.getStackTrace());
        return copy;
    }

    /** Stands for an exception in the log; its toString is the original class and the escaped message. */
    private static final class Redacted extends RuntimeException {
        Redacted(String text, Throwable cause) {
            super(text, cause, false, true);
        }

        @Override
        public String toString() {
            return getMessage();
        }
    }
}
