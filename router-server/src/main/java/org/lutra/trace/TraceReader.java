package org.lutra.trace;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Reads a trace ({@code docs/traces.md}) line by line. {@link #readAll} checks the whole file
 * before returning anything; {@link #next} streams, raising {@link TraceFormatException} when it
 * reaches a bad line.
 */
public final class TraceReader implements Closeable {
    private final BufferedReader in;
    private final String name;
    private final Map<String, String> sameAs = new LinkedHashMap<>();
    private long lineNumber;
    private boolean seenTransaction;

    private TraceReader(BufferedReader in, String name) throws IOException {
        this.in = in;
        this.name = name;
        header();
    }

    /** Opens {@code file} and checks its header. */
    public static TraceReader open(Path file) throws IOException {
        var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        var reader = new BufferedReader(new InputStreamReader(Files.newInputStream(file), decoder), 1 << 16);
        try {
            return new TraceReader(reader, file.toString());
        } catch (IOException | RuntimeException e) {
            reader.close();
            throw e;
        }
    }

    /** The whole file, or an exception naming its first bad line: nothing partial. */
    public static Trace readAll(Path file) throws IOException {
        try (var reader = open(file)) {
            var lines = new ArrayList<TraceLine>();
            for (TraceLine line; (line = reader.next()) != null; ) lines.add(line);
            return new Trace(reader.sameAs(), lines);
        }
    }

    /** The next transaction, or null at the end of the file. */
    public TraceLine next() throws IOException {
        while (true) {
            String line = readLine();
            if (line == null) return null;
            if (line.isBlank() || line.startsWith("#")) continue;
            if (line.startsWith("@")) {
                directive(line);
                continue;
            }
            try {
                TraceLine parsed = TraceCodec.parse(line);
                seenTransaction = true;
                return parsed;
            } catch (IllegalArgumentException e) {
                throw error(e.getMessage());
            }
        }
    }

    /** A SAME AS table's lower-case name → its owner's, from the {@code @same-as} lines read so far (all of them once a transaction was read). */
    public Map<String, String> sameAs() {
        return Collections.unmodifiableMap(sameAs);
    }

    /** The number of the line last read (1 is the header). */
    public long lineNumber() {
        return lineNumber;
    }

    private void header() throws IOException {
        String line = readLine();
        if (line == null) throw error("empty file: a trace begins with the line 'lutra-trace<TAB>1'");
        String[] fields = line.split("\t", -1);
        if (fields.length != 2 || !fields[0].equals(TraceCodec.HEADER)) {
            throw error("not a trace: the first line must be 'lutra-trace<TAB>" + TraceCodec.VERSION + "', found '" + TraceCodec.printable(line) + "'");
        }
        if (!fields[1].equals(Integer.toString(TraceCodec.VERSION))) {
            throw error("trace format version '" + TraceCodec.printable(fields[1]) + "' is not known to this reader (it reads version "
                    + TraceCodec.VERSION + ")");
        }
    }

    private void directive(String line) throws TraceFormatException {
        String[] fields = line.split("\t", -1);
        if (!fields[0].equals(TraceCodec.SAME_AS)) throw error("unknown directive '" + TraceCodec.printable(fields[0]) + "' (known: @same-as)");
        if (fields.length != 3) throw error("expected '@same-as<TAB>table<TAB>owner', found " + fields.length + " fields");
        if (seenTransaction) throw error("@same-as after a transaction line: these lines come first");
        String table;
        String owner;
        try {
            table = TraceCodec.unescape(fields[1], 1).toLowerCase(Locale.ROOT);
            owner = TraceCodec.unescape(fields[2], 2).toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
        if (table.isEmpty() || owner.isEmpty()) throw error("@same-as needs a table and its owner");
        String known = sameAs.putIfAbsent(table, owner);
        if (known != null && !known.equals(owner)) throw error("table " + table + " is SAME AS " + known + " already (an earlier line), not " + owner);
    }

    private String readLine() throws IOException {
        String line;
        try {
            line = in.readLine();
        } catch (java.nio.charset.CharacterCodingException e) {
            lineNumber++;
            throw error("not UTF-8 text");
        }
        if (line != null) lineNumber++;
        return line;
    }

    private TraceFormatException error(String problem) {
        return new TraceFormatException(name, Math.max(lineNumber, 1), problem);
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
