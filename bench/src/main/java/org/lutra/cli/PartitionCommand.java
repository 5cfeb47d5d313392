package org.lutra.cli;

import org.lutra.lookup.io.MapFormat;
import org.lutra.partition.CoAccessGraph;
import org.lutra.partition.MapFiles;
import org.lutra.partition.Partitioner;
import org.lutra.partition.Quality;
import org.lutra.partition.Replication;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** {@code ./lutra partition TRACE ...}: trace → co-access graph → k parts → map files (docs/partitioning.md). */
public final class PartitionCommand implements Command {
    private static final String USAGE = """
            usage: ./lutra partition TRACE --k K [--out PATH] [options]

              TRACE               a trace (docs/traces.md): a benchmark's --record file or a router's recording
              --k K               parts to make (or as many as --partitions names)
              --out PATH          where the map goes (default: TRACE's name with .csv / .graph.part.K / .schism): a file
                                  for one table, or a directory (existing, or ending in /) for one file per table
              --format F          csv (key,partition; default), metis (NAME.part.K + NAME.vertices) or schism (table,key,partition)
              --partitioner P     metis (gpmetis, Debian's metis package), builtin (multilevel k-way), or auto
                                  (default: metis where gpmetis is installed, else builtin)
              --imbalance X       a part may weigh (1 + X) x the average (default 0.03)
              --seed N            the same seed gives the same map (default 1)
              --tables T1,T2      only these owner tables' keys become vertices (default: every table in the trace)
              --same-as C=O,...   table C's rows are placed with O's (added to the trace's @same-as lines)
              --partitions P,...  partition names, part i -> the i-th (default p0..p{K-1}: the table's ON list)
              --weights W         accesses (a vertex weighs the transactions that touched it; default) or keys (1 each)
              --max-keys N        a transaction touching more keys adds no edges (default 1000)
              --replicate N       also place the N keys of highest co-access degree on every partition of their
                                  neighbours (csv and schism; LOAD ... APPLY replicates them)""";

    private final PrintStream out;
    private final PrintStream err;

    public PartitionCommand() {
        this(System.out, System.err);
    }

    public PartitionCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name() {
        return "partition";
    }

    @Override
    public String summary() {
        return "trace -> co-access graph -> k balanced parts (METIS or built-in) -> a map for LOAD LOOKUP TABLE ... APPLY";
    }

    @Override
    public int run(List<String> argv) throws Exception {
        var positional = new ArrayList<String>();
        var options = new HashMap<String, String>();
        for (int i = 0; i < argv.size(); i++) {
            String a = argv.get(i);
            if (a.equals("--help") || a.equals("-h")) {
                out.println(USAGE);
                return 0;
            }
            if (a.startsWith("--")) {
                if (i + 1 >= argv.size()) return usage("option " + a + " needs a value");
                options.put(a, argv.get(++i));
            } else {
                positional.add(a);
            }
        }
        var known = Set.of("--k", "--out", "--format", "--partitioner", "--imbalance", "--seed", "--tables", "--same-as", "--partitions",
                "--weights", "--max-keys", "--replicate");
        for (String o : options.keySet()) if (!known.contains(o)) return usage("unknown option " + o);
        if (positional.size() != 1) return usage("expected one TRACE file");
        try {
            return partition(Path.of(positional.getFirst()), options);
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        }
    }

    private int partition(Path trace, Map<String, String> options) throws Exception {
        List<String> names = options.containsKey("--partitions") ? List.of(options.get("--partitions").split(",")) : null;
        int k = options.containsKey("--k") ? positive("--k", options.get("--k")) : names == null ? 0 : names.size();
        if (k == 0) return usage("--k K (or --partitions) is required");
        if (names == null) {
            names = new ArrayList<>();
            for (int p = 0; p < k; p++) names.add("p" + p);
        } else if (names.size() != k) {
            return usage("--k " + k + " but --partitions names " + names.size());
        }
        double imbalance = Double.parseDouble(options.getOrDefault("--imbalance", "0.03"));
        if (!(imbalance >= 0 && imbalance <= 10)) return usage("--imbalance is between 0 and 10");
        long seed = Long.parseLong(options.getOrDefault("--seed", "1"));
        MapFormat format = MapFormat.parse(options.getOrDefault("--format", "csv"));
        if (format == MapFormat.SNAPSHOT) return usage("--format is csv, metis or schism");
        String which = options.getOrDefault("--partitioner", "auto");
        Partitioner partitioner = which.equals("auto") ? Partitioner.best() : Partitioner.named(which);
        Set<String> tables = options.containsKey("--tables") ? lowerSet(options.get("--tables")) : null;
        var sameAs = new HashMap<String, String>();
        if (options.containsKey("--same-as")) {
            for (String pair : options.get("--same-as").split(",")) {
                String[] kv = pair.split("=");
                if (kv.length != 2 || kv[0].isBlank() || kv[1].isBlank()) return usage("--same-as takes TABLE=OWNER pairs: '" + pair + "'");
                sameAs.put(kv[0].strip(), kv[1].strip());
            }
        }
        String weighing = options.getOrDefault("--weights", "accesses");
        if (!weighing.equals("accesses") && !weighing.equals("keys")) return usage("--weights is accesses or keys, not '" + weighing + "'");
        var weights = CoAccessGraph.Weights.valueOf(weighing.toUpperCase(Locale.ROOT));
        int maxKeys = positive("--max-keys", options.getOrDefault("--max-keys", "1000"));
        int replicate = Integer.parseInt(options.getOrDefault("--replicate", "0"));
        if (replicate > 0 && format == MapFormat.METIS) return usage("--replicate writes keys on several partitions: --format csv or schism");

        long started = System.nanoTime();
        CoAccessGraph graph = CoAccessGraph.read(trace, tables, sameAs, weights, maxKeys);
        var g = graph.graph();
        err.printf("graph: %,d transactions, %,d vertices (%s), %,d edges, read in %.1f s%s%n", graph.traceLines(), g.vertices(),
                String.join(", ", graph.tables()), g.edges(), (System.nanoTime() - started) / 1e9,
                graph.skippedLarge() > 0 ? String.format("; %,d transactions of more than %,d keys added no edges", graph.skippedLarge(), maxKeys) : "");
        if (g.vertices() == 0) {
            err.println("lutra partition: the trace names no rows" + (tables == null ? "" : " of " + tables) + ": nothing to partition");
            return 1;
        }
        started = System.nanoTime();
        int[] parts = partitioner.partition(g, k, imbalance, seed);
        double seconds = (System.nanoTime() - started) / 1e9;
        var quality = Quality.of(g, parts, k);
        int[][] replicas = Replication.hottest(g, parts, k, replicate);
        double single = graph.singlePartShare(parts);
        out.printf("partitioner   %s%n", partitioner.description());
        out.printf("parts         %d (%s), imbalance %.3f, seed %d, %.2f s%n", k, String.join(", ", names), imbalance, seed, seconds);
        out.printf("edge cut      %,d of %,d (%.2f%%)%n", quality.edgeCut(), quality.totalEdgeWeight(), 100 * quality.cutShare());
        out.printf("balance       %.3f (heaviest part / average; limit %.3f), part weights %s%n", quality.balance(), 1 + imbalance,
                Arrays.toString(quality.partWeights()));
        out.printf("transactions  %.2f%% on one partition%n", 100 * single);
        if (replicate > 0) {
            out.printf("replicated    %d keys; %.2f%% of transactions on one partition reading copies there%n", replicate,
                    100 * Replication.singlePartShare(graph, parts, replicas, k));
        }
        Path target = options.containsKey("--out") ? Path.of(options.get("--out")) : defaultOut(trace, format, k);
        boolean directory = options.getOrDefault("--out", "").endsWith("/") || Files.isDirectory(target)
                || !options.containsKey("--out") && graph.tables().size() > 1 && format != MapFormat.SCHISM;
        if (directory && !options.containsKey("--out")) target = trace.resolveSibling(stem(trace) + "-map");
        var header = List.of(
                "made by ./lutra partition " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + " from " + trace.getFileName(),
                "partitioner " + partitioner.description(),
                String.format("k=%d imbalance=%.3f seed=%d weights=%s; edge cut %,d of %,d (%.2f%%), balance %.3f, %.2f%% of transactions on one partition",
                        k, imbalance, seed, weights.name().toLowerCase(Locale.ROOT), quality.edgeCut(), quality.totalEdgeWeight(),
                        100 * quality.cutShare(), quality.balance(), 100 * single));
        List<Path> files = MapFiles.write(graph, parts, replicas, names, format, target,
                directory ? MapFiles.Out.DIRECTORY : MapFiles.Out.FILE, header);
        for (Path f : files) out.printf("wrote         %s%n", f);
        return 0;
    }

    private static Path defaultOut(Path trace, MapFormat format, int k) {
        String stem = stem(trace);
        return trace.resolveSibling(switch (format) {
            case METIS -> stem + ".graph.part." + k;
            case SCHISM -> stem + ".schism";
            default -> stem + ".csv";
        });
    }

    private static String stem(Path trace) {
        String name = trace.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return dot > 0 ? name.substring(0, dot) : name;
    }

    private static int positive(String option, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n >= 1) return n;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " takes a positive integer, not '" + value + "'");
    }

    private static Set<String> lowerSet(String list) {
        var out = new LinkedHashSet<String>();
        for (String t : list.split(",")) if (!t.isBlank()) out.add(t.strip().toLowerCase(Locale.ROOT));
        return out;
    }

    private int usage(String problem) {
        err.println("lutra partition: " + problem);
        err.println(USAGE);
        return 2;
    }
}
