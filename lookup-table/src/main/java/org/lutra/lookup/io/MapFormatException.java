package org.lutra.lookup.io;

import java.io.IOException;

/** A map file line that cannot be loaded; carries the file and 1-based line number. */
public final class MapFormatException extends IOException {
    private final String file;
    private final long line;

    public MapFormatException(String file, long line, String problem) {
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
