package org.lutra.lookup.io;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.function.Supplier;
import org.lutra.lookup.ColtLookupTable;
import org.lutra.lookup.CompressedLookupTable;
import org.lutra.lookup.DenseArrayLookupTable;
import org.lutra.lookup.EntryVisitor;
import org.lutra.lookup.IntegerKeyTable;
import org.lutra.lookup.KeyProfile;
import org.lutra.lookup.LookupTable;
import org.lutra.lookup.MultiLookupTable;
import org.lutra.lookup.PartitionSet;

/**
 * Streams map files into lookup tables.
 *
 * <p>Memory: one line buffer, whatever the file size. All or nothing: {@link #load} fills a fresh
 * table and hands it over only when the whole file parsed, so a bad line leaves no half-loaded
 * table behind; {@link #loadInto} (for a table already serving) first reads the whole file
 * without writing, checks that the table can hold every entry, and only then applies it.
 */
public final class MapLoader {
    /** Called every {@link #REPORT_EVERY} lines and at the end. */
    @FunctionalInterface
    public interface Progress {
        Progress NONE = (lines, bytes, totalBytes) -> {};

        void update(long lines, long bytes, long totalBytes);
    }

    public record Stats(long lines, long entries, KeyProfile profile, long nanos) {
        public double linesPerSecond() {
            return nanos == 0 ? 0 : lines * 1e9 / nanos;
        }
    }

    /**
     * Partitions written by name ({@code p2}) rather than by id ({@code 2}): the router's map files
     * name its logical partitions. Ids (non-negative decimal ints) never go through it.
     */
    @FunctionalInterface
    public interface PartitionNames {
        PartitionNames NONE = name -> -1;

        /** The id of the named partition, or -1 if there is none. */
        int idOf(String name);
    }

    static final long REPORT_EVERY = 1 << 20;
    /** Fields a map line may have: Schism's table and key, and a partition each for a key replicated on up to 64 partitions. */
    static final int MAX_FIELDS = 66;

    private final Progress progress;
    private final PartitionNames names;

    public MapLoader() {
        this(Progress.NONE);
    }

    public MapLoader(Progress progress) {
        this(progress, PartitionNames.NONE);
    }

    public MapLoader(Progress progress, PartitionNames names) {
        this.progress = progress;
        this.names = names;
    }

    /** Parses the whole source, handing every entry to the visitor; a visitor's exception becomes a line error. */
    public Stats scan(MapSource source, EntryVisitor visitor) throws IOException {
        long started = System.nanoTime();
        var profiler = new KeyProfile.Profiler();
        EntryVisitor both = new EntryVisitor() {
            @Override
            public void visit(long key, PartitionSet partitions) {
                profiler.visit(key, partitions);
                visitor.visit(key, partitions);
            }

            @Override
            public void visit(String key, PartitionSet partitions) {
                profiler.visit(key, partitions);
                visitor.visit(key, partitions);
            }
        };
        long[] counts = switch (source.format()) {
            case CSV -> scanCsv(source, both, false);
            case SCHISM -> scanCsv(source, both, true);
            case METIS -> scanMetis(source, both);
            case SNAPSHOT -> {
                LookupTable table = Snapshots.read(source.file());
                table.forEach(both);
                yield new long[] {table.size(), table.size()};
            }
        };
        return new Stats(counts[0], counts[1], profiler.profile(), System.nanoTime() - started);
    }

    /** A fresh table from the factory, filled from the source; nothing is returned if any line is bad. */
    public LookupTable load(MapSource source, Supplier<? extends LookupTable> factory) throws IOException {
        if (source.format() == MapFormat.SNAPSHOT) {
            return Snapshots.read(source.file());
        }
        LookupTable table = factory.get();
        scan(source, new Applier(table));
        return table;
    }

    /** Validates the whole source against the table, then applies it: the table is untouched on error. */
    public Stats loadInto(MapSource source, LookupTable table) throws IOException {
        scan(source, new Checker(table));
        return scan(source, new Applier(table));
    }

    private long[] scanCsv(MapSource source, EntryVisitor visitor, boolean schism) throws IOException {
        long total = Files.size(source.file());
        long entries = 0;
        byte[] wantedTable = source.table() == null ? null : source.table().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try (var in = new LineReader(open(source.file()))) {
            int[] fields = new int[2 * MAX_FIELDS];
            while (in.next()) {
                if ((in.lineNumber & (REPORT_EVERY - 1)) == 0) {
                    progress.update(in.lineNumber, in.bytesRead(), total);
                }
                if (in.blankOrComment()) {
                    continue;
                }
                int n = split(in, fields, (byte) ',');
                if (n > MAX_FIELDS) {
                    throw error(source, in, "more than " + MAX_FIELDS + " fields (a key on more than " + (MAX_FIELDS - 2) + " partitions?)");
                }
                int first = 0;
                if (schism) {
                    if (n < 3) {
                        throw error(source, in, "expected table,key,partition[,partition...] but found " + n + " fields");
                    }
                    if (wantedTable != null && !Arrays.equals(wantedTable, bytes(in, fields[0], fields[1]))) {
                        continue;
                    }
                    first = 1;
                } else if (n < 2) {
                    throw error(source, in, "expected key,partition[,partition...]");
                }
                PartitionSet partitions = partitions(source, in, fields, first + 1, n);
                deliver(source, in, fields[2 * first], fields[2 * first + 1], partitions, visitor);
                entries++;
            }
            progress.update(in.lineNumber, in.bytesRead(), total);
            return new long[] {in.lineNumber, entries};
        }
    }

    private long[] scanMetis(MapSource source, EntryVisitor visitor) throws IOException {
        long total = Files.size(source.file());
        long entries = 0;
        try (var parts = new LineReader(open(source.file())); var vertices = new LineReader(open(source.vertexFile()))) {
            while (parts.next()) {
                if ((parts.lineNumber & (REPORT_EVERY - 1)) == 0) {
                    progress.update(parts.lineNumber, parts.bytesRead(), total);
                }
                if (parts.comment()) {
                    continue; // a partitioner's header ("# made by ..."): not a vertex
                }
                if (!vertices.next()) {
                    throw error(source, parts, "vertex file " + source.vertexFile() + " ends before the partition file (vertex " + parts.lineNumber + " has no key)");
                }
                int p = partition(parts, trimStart(parts), trimEnd(parts));
                if (p < 0) {
                    throw error(source, parts, "not a partition id: '" + parts.line() + "'");
                }
                deliver(source, vertices, trimStart(vertices), trimEnd(vertices), PartitionSet.of(p), visitor);
                entries++;
            }
            if (vertices.next()) {
                throw error(source, parts, "vertex file " + source.vertexFile() + " has more lines than the partition file");
            }
            progress.update(parts.lineNumber, parts.bytesRead(), total);
            return new long[] {parts.lineNumber, entries};
        }
    }

    private static InputStream open(java.nio.file.Path file) throws IOException {
        InputStream in = Files.newInputStream(file);
        return file.toString().endsWith(".gz") ? new java.util.zip.GZIPInputStream(in, 1 << 16) : in;
    }

    /** Field i spans [fields[2i], fields[2i+1]); returns the field count. Quoted fields ("a,b", "say ""hi""") are kept quoted. */
    private static int split(LineReader in, int[] fields, byte separator) {
        int n = 0;
        int from = in.lineStart;
        boolean quoted = false;
        for (int i = in.lineStart; i <= in.lineEnd; i++) {
            if (i < in.lineEnd && in.at(i) == '"') {
                quoted = !quoted;
            }
            if (i == in.lineEnd || (!quoted && in.at(i) == separator)) {
                if (2 * n + 1 >= fields.length) {
                    return n + 1; // more fields than any format allows: report the count, parse nothing
                }
                fields[2 * n] = from;
                fields[2 * n + 1] = i;
                n++;
                from = i + 1;
            }
        }
        return n;
    }

    /** A partition id, or one named through {@link PartitionNames}; -1 if neither. */
    private int partition(LineReader in, int from, int to) {
        int p = in.partition(from, to);
        return p >= 0 || names == PartitionNames.NONE || from == to ? p : names.idOf(in.text(from, to).strip());
    }

    private PartitionSet partitions(MapSource source, LineReader in, int[] fields, int from, int to) throws MapFormatException {
        if (to - from == 1) {
            int p = partition(in, fields[2 * from], fields[2 * from + 1]);
            if (p < 0) {
                throw error(source, in, "not a partition id: '" + in.text(fields[2 * from], fields[2 * from + 1]) + "'");
            }
            return PartitionSet.of(p);
        }
        int[] ps = new int[to - from];
        for (int i = from; i < to; i++) {
            ps[i - from] = partition(in, fields[2 * i], fields[2 * i + 1]);
            if (ps[i - from] < 0) {
                throw error(source, in, "not a partition id: '" + in.text(fields[2 * i], fields[2 * i + 1]) + "'");
            }
        }
        return PartitionSet.of(ps);
    }

    private static void deliver(MapSource source, LineReader in, int from, int to, PartitionSet partitions, EntryVisitor visitor)
            throws MapFormatException {
        if (from == to) {
            throw error(source, in, "empty key");
        }
        try {
            if (in.parseLong(from, to)) {
                visitor.visit(in.parsed, partitions);
            } else {
                visitor.visit(unquote(in.text(from, to)), partitions);
            }
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw error(source, in, e.getMessage());
        }
    }

    static String unquote(String field) {
        if (field.length() >= 2 && field.startsWith("\"") && field.endsWith("\"")) {
            return field.substring(1, field.length() - 1).replace("\"\"", "\"");
        }
        return field;
    }

    private static byte[] bytes(LineReader in, int from, int to) {
        byte[] b = new byte[to - from];
        for (int i = from; i < to; i++) {
            b[i - from] = in.at(i);
        }
        return b;
    }

    private static int trimStart(LineReader in) {
        int i = in.lineStart;
        while (i < in.lineEnd && (in.at(i) == ' ' || in.at(i) == '\t')) {
            i++;
        }
        return i;
    }

    private static int trimEnd(LineReader in) {
        int i = in.lineEnd;
        while (i > in.lineStart && (in.at(i - 1) == ' ' || in.at(i - 1) == '\t')) {
            i--;
        }
        return i;
    }

    private static MapFormatException error(MapSource source, LineReader in, String problem) {
        return new MapFormatException(source.file().toString(), in.lineNumber, problem);
    }

    /** Writes entries into a table; replicated entries need a {@link MultiLookupTable}. */
    private record Applier(LookupTable table) implements EntryVisitor {
        @Override
        public void visit(long key, PartitionSet partitions) {
            if (partitions.size() == 1) {
                table.put(key, partitions.first());
            } else {
                multi().putAll(key, partitions);
            }
        }

        @Override
        public void visit(String key, PartitionSet partitions) {
            if (partitions.size() == 1) {
                table.put(key, partitions.first());
            } else {
                multi().putAll(key, partitions);
            }
        }

        private MultiLookupTable multi() {
            if (table instanceof MultiLookupTable m) {
                return m;
            }
            throw new IllegalArgumentException("key on several partitions, but the target is a unique table ("
                    + table.getClass().getSimpleName() + "); load into a replicated table");
        }
    }

    /**
     * Raises on the first entry the table could not take, without writing anything: string keys
     * or several partitions where the table cannot hold them, keys outside an int for Colt,
     * partitions beyond the compressed table's alphabet, and for a dense array a key that would
     * stretch the span (with the file's other keys so far and the table's own) beyond what it holds.
     * Checked against the table as it is when the check runs.
     */
    private static final class Checker implements EntryVisitor {
        private final LookupTable table;
        private long low = Long.MAX_VALUE;
        private long high = Long.MIN_VALUE;

        Checker(LookupTable table) {
            this.table = table;
        }

        @Override
        public void visit(long key, PartitionSet partitions) {
            checkShape(partitions);
            switch (table) {
                case ColtLookupTable c when key != (int) key ->
                        throw new IllegalArgumentException("key " + key + " does not fit the int keys of a Colt table");
                case DenseArrayLookupTable dense when key < low || key > high -> {
                    low = Math.min(low, key);
                    high = Math.max(high, key);
                    dense.checkCanHold(key, low, high);
                }
                case CompressedLookupTable c when largest(partitions) > CompressedLookupTable.MAX_PARTITION ->
                        throw new IllegalArgumentException("partition " + largest(partitions) + " is beyond the compressed table's "
                                + CompressedLookupTable.MAX_PARTITION);
                default -> {}
            }
        }

        @Override
        public void visit(String key, PartitionSet partitions) {
            checkShape(partitions);
            if (table instanceof IntegerKeyTable) {
                throw new IllegalArgumentException("string key '" + key + "' but " + table.getClass().getSimpleName() + " holds integer keys only");
            }
        }

        private void checkShape(PartitionSet partitions) {
            if (partitions.size() > 1 && !(table instanceof MultiLookupTable)) {
                new Applier(table).multi();
            }
        }

        private static int largest(PartitionSet partitions) {
            return partitions.get(partitions.size() - 1); // sorted
        }
    }
}
