package org.lutra.lookup.io;

import java.io.IOException;

/**
 * A map file line that cannot be loaded; carries the file and 1-based line number. The problem is cut at
 * {@link #MAX_PROBLEM} characters and its control characters escaped: a line of binary junk or a huge value
 * makes a message one can read, not the line itself.
 */
public final class MapFormatException extends IOException {
    private final String file;
    private final long line;

    static final int MAX_PROBLEM = 300;

    public MapFormatException(String file, long line, String problem) {
        super(file + ":" + line + ": " + readable(problem));
        this.file = file;
        this.line = line;
    }

    public String file() {
        return file;
    }

    public long line() {
        return line;
    }

    private static String readable(String problem) {
        var out = new StringBuilder();
        problem.codePoints().limit(MAX_PROBLEM).forEach(c -> {
            if (Character.isISOControl(c)) {
                out.append(String.format("\\x%02x", c));
            } else if (c == 0xFFFD) {
                out.append('?'); // bytes that were not UTF-8
            } else {
                out.appendCodePoint(c);
            }
        });
        return problem.codePointCount(0, problem.length()) > MAX_PROBLEM ? out + "... (cut)" : out.toString();
    }
}
