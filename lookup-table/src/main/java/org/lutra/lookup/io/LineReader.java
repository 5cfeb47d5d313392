package org.lutra.lookup.io;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads a file line by line into a reused byte buffer and splits fields without creating a
 * String per line: integers are parsed straight from the bytes. This, not BufferedReader, is what
 * makes loading run at millions of lines a second. Memory stays constant (one 1 MB buffer plus the
 * longest line).
 */
final class LineReader implements AutoCloseable {
    private final InputStream in;
    private byte[] buf = new byte[1 << 20];
    private int start;
    private int limit;
    private boolean eof;
    private long bytesRead;
    /** Current line: buf[lineStart, lineEnd). */
    int lineStart;
    int lineEnd;
    long lineNumber;

    LineReader(InputStream in) {
        this.in = in;
    }

    /** Advances to the next line; false at the end of the input. Strips a trailing '\r'. */
    boolean next() throws IOException {
        while (true) {
            for (int i = start; i < limit; i++) {
                if (buf[i] == '\n') {
                    setLine(start, i);
                    start = i + 1;
                    return true;
                }
            }
            if (eof) {
                if (start < limit) {
                    setLine(start, limit);
                    start = limit;
                    return true;
                }
                return false;
            }
            refill();
        }
    }

    private void setLine(int from, int to) {
        lineStart = from;
        lineEnd = to > from && buf[to - 1] == '\r' ? to - 1 : to;
        lineNumber++;
    }

    private void refill() throws IOException {
        int pending = limit - start;
        if (start > 0) {
            System.arraycopy(buf, start, buf, 0, pending);
        } else if (pending == buf.length) {
            buf = Arrays.copyOf(buf, buf.length * 2); // a line longer than the buffer
        }
        start = 0;
        limit = pending;
        int n = in.read(buf, limit, buf.length - limit);
        if (n < 0) {
            eof = true;
        } else {
            limit += n;
            bytesRead += n;
        }
    }

    long bytesRead() {
        return bytesRead;
    }

    byte at(int i) {
        return buf[i];
    }

    boolean blankOrComment() {
        for (int i = lineStart; i < lineEnd; i++) {
            byte b = buf[i];
            if (b == '#') {
                return true;
            }
            if (b != ' ' && b != '\t') {
                return false;
            }
        }
        return true;
    }

    /** Whether the line's first character other than spaces and tabs is {@code #}. */
    boolean comment() {
        for (int i = lineStart; i < lineEnd; i++) {
            byte b = buf[i];
            if (b != ' ' && b != '\t') {
                return b == '#';
            }
        }
        return false;
    }

    String text(int from, int to) {
        return new String(buf, from, to - from, StandardCharsets.UTF_8);
    }

    String line() {
        return text(lineStart, lineEnd);
    }

    /** Set by {@link #parseLong}: avoids boxing a Long per line. */
    long parsed;

    /**
     * Whether buf[from, to) is the canonical decimal spelling of a long, left in {@link #parsed};
     * anything else is a string key. Mirrors {@code Keys.parse}: "007" and "-0" are strings.
     */
    boolean parseLong(int from, int to) {
        int n = to - from;
        if (n == 0 || n > 20) {
            return false;
        }
        boolean negative = buf[from] == '-';
        int i = negative ? from + 1 : from;
        if (i == to || (buf[i] == '0' && (to - i > 1 || negative))) {
            return false;
        }
        long value = 0;
        for (; i < to; i++) {
            int d = buf[i] - '0';
            if (d < 0 || d > 9) {
                return false;
            }
            // Accumulate negatively so Long.MIN_VALUE parses; detect overflow before it happens.
            if (value < (Long.MIN_VALUE + d) / 10) {
                return false;
            }
            value = value * 10 - d;
        }
        if (!negative) {
            if (value == Long.MIN_VALUE) {
                return false;
            }
            value = -value;
        }
        parsed = value;
        return true;
    }

    /** A partition id in buf[from, to): non-negative decimal int, else -1. */
    int partition(int from, int to) {
        int n = to - from;
        if (n == 0 || n > 10) {
            return -1;
        }
        long value = 0;
        for (int i = from; i < to; i++) {
            int d = buf[i] - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            value = value * 10 + d;
        }
        return value > Integer.MAX_VALUE ? -1 : (int) value;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
