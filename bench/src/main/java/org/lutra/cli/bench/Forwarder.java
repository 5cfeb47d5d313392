package org.lutra.cli.bench;

import java.io.IOException;

/** A proxy that only copies bytes to one target: {@code bench point}'s yardstick for what the extra hop alone costs. */
public interface Forwarder extends AutoCloseable {
    int port();

    /** CPU time the forwarder has used so far. */
    long cpuNanos();

    @Override
    void close() throws IOException;

    /** Closes a socket or channel whose peer went away: closing is all that is left to do. */
    static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // already broken
        }
    }
}
