package org.lutra.paper;

import java.io.PrintStream;

/**
 * The progress line: rewritten in place once a second on a terminal, printed every few seconds
 * otherwise (a log file gets lines, not carriage returns).
 */
final class Terminal {
    private static final long LOG_EVERY_NANOS = 10_000_000_000L;
    private final PrintStream err;
    private final boolean tty;
    private long lastLogged;
    private int width;

    Terminal(PrintStream err) {
        this.err = err;
        this.tty = System.console() != null || Boolean.getBoolean("lutra.tty");
    }

    synchronized void progress(String text) {
        if (tty) {
            err.print("\r" + text + " ".repeat(Math.max(0, width - text.length())));
            width = text.length();
            err.flush();
        } else if (System.nanoTime() - lastLogged > LOG_EVERY_NANOS) {
            err.println(text);
            lastLogged = System.nanoTime();
        }
    }

    /** Ends the progress line with {@code text}. */
    synchronized void done(String text) {
        if (tty) err.print("\r" + " ".repeat(width) + "\r");
        width = 0;
        lastLogged = 0;
        err.println(text);
    }

    synchronized void line(String text) {
        if (tty && width > 0) err.print("\r" + " ".repeat(width) + "\r");
        width = 0;
        err.println(text);
    }
}
