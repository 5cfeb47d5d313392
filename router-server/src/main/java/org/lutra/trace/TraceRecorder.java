package org.lutra.trace;

import java.io.Closeable;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's recording of live traffic ({@code docs/traces.md}, "Recording live traffic"): each
 * transaction, at its start, is drawn into the sample or not; a sampled one collects its keys
 * ({@link TransactionKeys}) and is written as one line when it commits. After
 * {@code maxTransactions} lines the file is closed and no transaction is drawn any more.
 */
public class TraceRecorder implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(TraceRecorder.class);

    /** Recording off: every transaction gets {@link KeyTrace#NONE}. */
    public static final TraceRecorder OFF = new TraceRecorder();

    private final TraceWriter writer;
    private final double sample;
    private final long maxTransactions;
    private long admitted;
    private volatile boolean open;
    private long lastFlush = System.nanoTime();

    private TraceRecorder() {
        this.writer = null;
        this.sample = 0;
        this.maxTransactions = 0;
    }

    private TraceRecorder(TraceWriter writer, double sample, long maxTransactions) {
        this.writer = writer;
        this.sample = sample;
        this.maxTransactions = maxTransactions;
        this.open = true;
    }

    /**
     * Starts recording into a new file (refused if it exists).
     *
     * @param sameAs   SAME AS table → its owner, written as {@code @same-as} lines
     * @param comments written as comment lines first
     */
    public static TraceRecorder start(java.nio.file.Path file, double sample, long maxTransactions, Map<String, String> sameAs,
                                      java.util.List<String> comments) throws IOException {
        if (!(sample > 0 && sample <= 1)) throw new IllegalArgumentException("trace.sample must be in (0, 1], not " + sample);
        if (maxTransactions < 1) throw new IllegalArgumentException("trace.max_transactions must be at least 1");
        var writer = TraceWriter.create(file);
        try {
            for (String c : comments) writer.comment(c);
            for (var e : new java.util.TreeMap<>(sameAs).entrySet()) writer.sameAs(e.getKey(), e.getValue());
            writer.flush();
        } catch (IOException | RuntimeException e) {
            writer.close();
            throw e;
        }
        return new TraceRecorder(writer, sample, maxTransactions);
    }

    /** The trace of a transaction starting now: a collector if it is drawn into the sample, else {@link KeyTrace#NONE}. */
    public KeyTrace begin() {
        if (!open || ThreadLocalRandom.current().nextDouble() >= sample) return KeyTrace.NONE;
        return new TransactionKeys(this);
    }

    /** Lines written so far. */
    public long written() {
        return writer == null ? 0 : writer.transactions();
    }

    /** A sampled transaction committed. */
    synchronized void committed(TraceLine line) {
        if (!open) return;
        try {
            writer.write(line);
            long now = System.nanoTime();
            if (++admitted == maxTransactions) {
                close();
                log.info("trace: {} transactions recorded, the configured maximum: the file is closed", maxTransactions);
            } else if (now - lastFlush > 1_000_000_000L) {
                lastFlush = now; // a reader of the file sees lines within about a second
                writer.flush();
            }
        } catch (IOException e) {
            log.warn("trace: cannot write, recording stops: {}", e.getMessage());
            close();
        }
    }

    /** Stops recording and closes the file (lines of transactions still open are not written). */
    @Override
    public synchronized void close() {
        if (!open) return;
        open = false;
        try {
            writer.close();
        } catch (IOException e) {
            log.warn("trace: closing the file failed: {}", e.getMessage());
        }
    }
}
