package org.lutra.trace;

/**
 * Where one transaction's statements report the routing keys they touched, when the router records
 * a trace ({@link TraceRecorder}). {@link #NONE} is what every transaction carries when recording is
 * off, or when it was not drawn for the sample: it does nothing, so the statement path has no
 * {@code if} for tracing.
 */
public interface KeyTrace {
    KeyTrace NONE = new KeyTrace() {
        @Override
        public void read(String table, Object[] keys) {}

        @Override
        public void write(String table, Object[] keys) {}

        @Override
        public void committed() {}
    };

    /** A statement read the rows of {@code keys} (routing-column values; null entries and a null array name nothing). */
    void read(String table, Object[] keys);

    /** A statement wrote the rows of {@code keys}. */
    void write(String table, Object[] keys);

    /** The transaction committed: its keys become one line of the trace. */
    void committed();
}
