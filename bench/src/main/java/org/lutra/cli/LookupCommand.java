package org.lutra.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.lutra.lookup.EntryVisitor;
import org.lutra.lookup.KeyProfile;
import org.lutra.lookup.LookupTable;
import org.lutra.lookup.LookupTables;
import org.lutra.lookup.PartitionSet;
import org.lutra.lookup.ReplicatedLookupTable;
import org.lutra.lookup.io.MapFormat;
import org.lutra.lookup.io.MapLoader;
import org.lutra.lookup.io.MapSource;
import org.lutra.lookup.io.MapWriter;

/** `./lutra lookup inspect|load|convert`: map files (csv, metis, schism, snapshot) without a router. */
public final class LookupCommand implements Command {
    private static final String USAGE = """
            usage: ./lutra lookup inspect FILE [--format F] [--vertices V] [--table T]
                   ./lutra lookup load    FILE [--format F] [--vertices V] [--table T]
                   ./lutra lookup convert IN OUT [--from F] [--to F] [--vertices V] [--out-vertices V] [--table T]

              formats: csv (key,partition[,partition...]), metis (FILE is the .part.k file, --vertices
                       names the key of each vertex, one per line), schism (table,key,partition; --table
                       keeps one table), snapshot (Lutra binary, .lts). Guessed from the name if omitted.
              inspect  key count, density, partition histogram, the memory each representation would
                       need, and the representation the chooser picks (and why).
              load     loads into the chosen representation, reporting progress and lines/s.
              convert  reads one format and writes another (e.g. csv -> snapshot for fast restarts).""";

    private final PrintStream out;
    private final PrintStream err;

    public LookupCommand() {
        this(System.out, System.err);
    }

    LookupCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name() {
        return "lookup";
    }

    @Override
    public String summary() {
        return "inspect, load or convert lookup-table map files (csv, metis, schism, snapshot)";
    }

    /** For callers without the {@link Command} registry. */
    public static int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        return new LookupCommand(out, err).run(args);
    }

    @Override
    public int run(List<String> argv) throws Exception {
        List<String> positional = new ArrayList<>();
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < argv.size(); i++) {
            String a = argv.get(i);
            if (a.equals("--help") || a.equals("-h")) {
                out.println(USAGE);
                return 0;
            }
            if (a.startsWith("--")) {
                if (i + 1 >= argv.size()) {
                    return usage("option " + a + " needs a value");
                }
                options.put(a, argv.get(++i));
            } else {
                positional.add(a);
            }
        }
        if (positional.isEmpty()) {
            return usage("expected inspect, load or convert");
        }
        String verb = positional.getFirst();
        return switch (verb) {
            case "inspect" -> positional.size() == 2 ? inspect(source(positional.get(1), options, "--format", "--vertices")) : usage("inspect takes one FILE");
            case "load" -> positional.size() == 2 ? load(source(positional.get(1), options, "--format", "--vertices")) : usage("load takes one FILE");
            case "convert" -> positional.size() == 3 ? convert(source(positional.get(1), options, "--from", "--vertices"), Path.of(positional.get(2)), options)
                    : usage("convert takes IN and OUT");
            default -> usage("unknown lookup command '" + verb + "'");
        };
    }

    private int usage(String problem) {
        err.println("lutra lookup: " + problem);
        err.println(USAGE);
        return 2;
    }

    private static MapSource source(String file, Map<String, String> options, String formatOption, String verticesOption) {
        MapFormat format = options.containsKey(formatOption) ? MapFormat.parse(options.get(formatOption)) : MapFormat.guess(file);
        String vertices = options.get(verticesOption);
        return new MapSource(format, Path.of(file), vertices == null ? null : Path.of(vertices), options.get("--table"));
    }

    private MapLoader loader() {
        return new MapLoader((lines, bytes, total) -> err.printf("\r  %,d lines, %.0f%%", lines, total == 0 ? 100.0 : 100.0 * bytes / total));
    }

    private int inspect(MapSource source) throws Exception {
        var stats = loader().scan(source, NO_OP);
        err.println();
        KeyProfile p = stats.profile();
        out.printf("file        %s (%s)%n", source.file(), source.format().name().toLowerCase());
        out.printf("lines       %,d (%,.0f lines/s)%n", stats.lines(), stats.linesPerSecond());
        out.printf("keys        %,d (%,d integer, %,d string, %,d on several partitions)%n", p.keyCount(), p.integerKeys(), p.stringKeys(), p.replicatedKeys());
        if (p.integerKeys() > 0) {
            out.printf("range       %d .. %d, density %.2f%%%s%n", p.minKey(), p.maxKey(), 100 * p.density(),
                    p.runs() > 0 ? String.format(", %,d runs of one partition (keys in order)", p.runs()) : "");
        }
        out.printf("partitions  %d, entropy %.2f bits/key%n", p.partitionCount(), p.entropyBits());
        long max = 1;
        for (long n : p.histogram()) {
            max = Math.max(max, n);
        }
        for (int i = 0; i < p.histogram().length; i++) {
            long n = p.histogram()[i];
            out.printf("  p%-4d %,14d  %s%n", i, n, "#".repeat((int) (40 * n / max)));
        }
        out.println("memory by representation (estimates):");
        LookupTables.estimate(p).forEach((kind, bytes) -> out.printf("  %-12s %10s  (%.2f bytes/key)%n",
                kind.name().toLowerCase(), LookupTables.human(bytes), p.keyCount() == 0 ? 0.0 : (double) bytes / p.keyCount()));
        var choice = LookupTables.choose(p);
        out.printf("choice      %s: %s%n", choice.kind().name().toLowerCase(), choice.reason());
        return 0;
    }

    /** Two passes: profile the file, then load into the representation chosen for it. */
    private LookupTable loadChosen(MapSource source) throws Exception {
        if (source.format() == MapFormat.SNAPSHOT) {
            return loader().load(source, () -> null);
        }
        KeyProfile p = loader().scan(source, NO_OP).profile();
        err.println();
        var choice = LookupTables.choose(p);
        out.printf("representation: %s (%s)%n", choice.kind().name().toLowerCase(), choice.reason());
        LookupTable table = loader().load(source, () -> {
            LookupTable t = LookupTables.create(choice, p);
            return p.replicatedKeys() > 0 ? new ReplicatedLookupTable(t, Math.max(p.partitionCount(), 1)) : t;
        });
        err.println();
        return table;
    }

    private int load(MapSource source) throws Exception {
        long started = System.nanoTime();
        LookupTable table = loadChosen(source);
        double seconds = (System.nanoTime() - started) / 1e9;
        out.printf("loaded %,d keys in %.2f s; %s in memory (%s)%n", table.size(), seconds,
                LookupTables.human(table.estimatedBytes()), table.getClass().getSimpleName());
        return 0;
    }

    private int convert(MapSource in, Path outFile, Map<String, String> options) throws Exception {
        MapFormat to = options.containsKey("--to") ? MapFormat.parse(options.get("--to")) : MapFormat.guess(outFile.toString());
        String outVertices = options.get("--out-vertices");
        if (to == MapFormat.METIS && outVertices == null) {
            return usage("writing metis needs --out-vertices FILE for the keys");
        }
        LookupTable table = loadChosen(in);
        long written = MapWriter.write(table, to, outFile, outVertices == null ? null : Path.of(outVertices),
                options.getOrDefault("--table", "t"));
        out.printf("wrote %,d entries to %s (%s)%n", written, outFile, to.name().toLowerCase());
        return 0;
    }

    private static final EntryVisitor NO_OP = new EntryVisitor() {
        @Override
        public void visit(long key, PartitionSet partitions) {}

        @Override
        public void visit(String key, PartitionSet partitions) {}
    };
}
