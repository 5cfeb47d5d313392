package org.lutra.trace;

import java.io.IOException;

/** A trace line that is not in the format of {@code docs/traces.md}: names the file and the line. */
public final class TraceFormatException extends IOException {
    private final String file;
    private final long line;

    public TraceFormatException(String file, long line, String problem) {
        super(file + ":" + line + ": " + problem);
        this.file = file;
        this.line = line;
    }

    public String file() {
        return file;
    }

    public long line() {
        return line;
    }
}
