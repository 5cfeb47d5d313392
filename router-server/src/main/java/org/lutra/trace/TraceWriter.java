package org.lutra.trace;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.Flushable;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a trace ({@code docs/traces.md}): the header at once, then comments, {@code @same-as}
 * lines and transactions. Safe for several threads (each line is written whole).
 */
public final class TraceWriter implements Closeable, Flushable {
    private final Writer out;
    private final Map<String, String> sameAs = new HashMap<>();
    private long transactions;

    public TraceWriter(Writer out) throws IOException {
        this.out = out;
        out.write(TraceCodec.HEADER + "\t" + TraceCodec.VERSION + "\n");
    }

    /** A new file (refused if it exists: a trace is never overwritten by accident). */
    public static TraceWriter create(Path file) throws IOException {
        return new TraceWriter(new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW), 1 << 16));
    }

    /** A comment line; line breaks in {@code text} become spaces. */
    public synchronized void comment(String text) throws IOException {
        out.write("# " + text.replace('\n', ' ').replace('\r', ' ') + "\n");
    }

    /** {@code table}'s rows are placed with {@code owner}'s; only before the first transaction. */
    public synchronized void sameAs(String table, String owner) throws IOException {
        if (transactions > 0) throw new IllegalStateException("@same-as lines come before the first transaction");
        String known = sameAs.putIfAbsent(table.toLowerCase(Locale.ROOT), owner.toLowerCase(Locale.ROOT));
        if (known != null && !known.equals(owner.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("table " + table + " is SAME AS " + known + " already, not " + owner);
        }
        if (known != null) return;
        out.write(TraceCodec.SAME_AS + "\t" + TraceCodec.escape(table, true) + "\t" + TraceCodec.escape(owner, true) + "\n");
    }

    public synchronized void write(TraceLine line) throws IOException {
        out.write(TraceCodec.format(line));
        out.write('\n');
        transactions++;
    }

    /** Transaction lines written so far. */
    public synchronized long transactions() {
        return transactions;
    }

    @Override
    public synchronized void flush() throws IOException {
        out.flush();
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
