package org.lutra.paper;

import org.lutra.cli.Command;
import org.lutra.cli.sql.Args;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code ./lutra bench micro|wikipedia|twitter|tpce|paper}: the paper's experiments on emulated
 * backends (or real servers), with the figures and the targets' table.
 */
public final class PaperBench implements Command {
    static final List<String> WORKLOADS = List.of("micro", "wikipedia", "twitter", "tpce");
    private static final Set<String> VALUED = Set.of("--backends", "--schemes", "--clients", "--duration", "--warmup", "--transactions", "--scale",
            "--seed", "--out", "--emulation", "--capacity", "--latency-us", "--cores", "--backends-from", "--record", "--replay", "--shares", "--wikibench", "--write-wikibench", "--partitioner");
    private static final Set<String> FLAGS = Set.of("--quick", "--no-baseline");

    private final String name;
    private final PrintStream out;
    private final PrintStream err;

    public PaperBench(String name, PrintStream out, PrintStream err) {
        if (!WORKLOADS.contains(name) && !name.equals("paper")) throw new IllegalArgumentException(name);
        this.name = name;
        this.out = out;
        this.err = err;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String summary() {
        return switch (name) {
            case "micro" -> "the paper's microbenchmark: throughput vs share of distributed queries and vs participants (Fig. 6, 7)";
            case "wikipedia" -> "fetch-page transactions over hash, range and lookup placements vs one machine (Fig. 5, 8)";
            case "twitter" -> "a follower graph's timelines: hash vs partitioner-placed lookup vs one-hop replication (Fig. 9)";
            case "tpce" -> "TPC-E trades by hash, range and partitioner-placed lookup (Table II, Fig. 9)";
            default -> "the paper's experiments, all four workloads, figures and targets (--quick: a first look)";
        };
    }

    String usage() {
        return """
                usage: ./lutra bench %s [--quick] [--backends 1,2,4,8] [--schemes a,b] [--clients N] [--duration S] [--warmup S]
                                  [--transactions N] [--scale X] [--seed N] [--out DIR] [--no-baseline]
                                  [--emulation gate|cgroup|none] [--capacity UNITS_PER_S] [--latency-us US] [--cores C]
                                  [--backends-from router.yaml] [--record FILE] [--replay FILE] [--partitioner auto|metis|builtin]%s

                  %s
                  Starts embedded MariaDB shards (as many as the most backends asked), each with a fixed capacity (--emulation
                  gate, the default: a proxy admitting --capacity units of work per second, default 500, a statement 1 unit and
                  an answer's packet (a row) 0.08, after --latency-us of network, default 200; cgroup: a CPU cap of --cores per
                  server, where cgroups can be written), or uses the servers of --backends-from (no emulation). Each scheme on
                  each backend count (default: micro 1,4,8; wikipedia 1,2,4,8, --quick 1,4,8; twitter 8; tpce 8, --quick 4):
                  a router, the rows loaded through it, a warm-up of --warmup seconds (longer while the router's JIT is busy),
                  then --duration seconds (or --transactions) of closed-loop clients (default 4 + 4 per backend). The baseline:
                  the same transactions through Connector/J on one MariaDB holding every row, behind the same capacity.
                  A lookup scheme's maps: the workload's trace through ./lutra partition (--partitioner: auto, the default, is METIS's
                  gpmetis where installed, else the built-in multilevel partitioner), loaded with LOAD LOOKUP TABLE.
                  --scale multiplies each workload's default size. Writes runs/*.json and *.csv, runs.csv, summary.md,
                  summary.json and PNG figures to --out (default bench-results/<date>-<name>) and prints the summary; exits 1
                  when a run had errors or broken invariants. --record FILE writes each run's committed transactions (a trace,
                  docs/traces.md); --replay FILE runs a trace's transactions instead of the mix. wikipedia --wikibench TRACE
                  replays a WikiBench trace's page views (counter timestamp url save-flag) on a wiki of its titles;
                  --write-wikibench TRACE writes --transactions page views (default 100,000) of the generated wiki and exits.""".formatted(name,
                name.equals("micro") ? "\n                                  [--shares 0,0.25,0.5,0.75,1]"
                        : name.equals("wikipedia") ? "\n                                  [--wikibench TRACE] [--write-wikibench TRACE --transactions N]" : "", summary());
    }

    @Override
    public int run(List<String> args) throws Exception {
        if (args.contains("--help") || args.contains("-h")) {
            out.println(usage());
            return 0;
        }
        Options options;
        List<Double> shares;
        try {
            var a = Args.parse(args, VALUED, FLAGS);
            if (!a.positional.isEmpty()) throw new Args.UsageException("unexpected argument '" + a.positional.getFirst() + "'");
            options = options(a);
            shares = doubles(a.get("--shares", options.quick() ? "0,0.5,1" : "0,0.25,0.5,0.75,1"));
        } catch (Args.UsageException | IllegalArgumentException e) {
            err.println("lutra bench " + name + ": " + e.getMessage());
            err.println(usage());
            return 2;
        }
        if (name.equals("wikipedia") && args.contains("--write-wikibench")) {
            var a = Args.parse(args, VALUED, FLAGS);
            Path file = Path.of(a.get("--write-wikibench", null));
            long count = options.transactions() > 0 ? options.transactions() : 100_000;
            var wiki = new org.lutra.workload.wikipedia.Wikipedia(options.scaleFor("wikipedia"), options.seed());
            org.lutra.workload.wikipedia.WikiBenchTrace.write(file, wiki, (int) Math.min(Integer.MAX_VALUE, count), options.seed());
            out.println("wrote " + count + " page views of " + wiki.describe().replaceAll(";.*", "") + " to " + file);
            return 0;
        }
        var terminal = new Terminal(err);
        var results = new Results(options.out());
        long start = System.nanoTime();
        terminal.line("Output: " + options.out().toAbsolutePath());
        var workloads = name.equals("paper") ? WORKLOADS : List.of(name);
        terminal.line(options.backendsFrom() != null ? "Using the servers of " + options.backendsFrom()
                : "Starting " + options.maxBackends(workloads) + " shards...");
        try (var cluster = options.backendsFrom() != null ? Cluster.external(options.backendsFrom())
                : Cluster.embedded(options.maxBackends(workloads), options.emulation(), null)) {
            terminal.line("Backends: " + cluster.describe());
            try (var experiment = new Experiment(cluster, options, results, terminal)) {
                for (String w : workloads) {
                    if (w.equals("micro")) experiment.micro(shares);
                    else experiment.workload(Workloads.create(w, options.scaleFor(w), options.seed(), options.maxBackends(List.of(w)), options.wikibench()));
                }
                var summary = Summary.write(results, options, cluster.describe(), (System.nanoTime() - start) / 1e9, experiment.notes());
                out.print(summary);
            }
        }
        return results.all().stream().anyMatch(RunResult::failed) ? 1 : 0;
    }

    private Options options(Args a) throws Args.UsageException {
        boolean quick = a.has("--quick");
        var backends = a.has("--backends") ? ints(a.get("--backends", "")) : List.<Integer>of();
        String mode = a.get("--emulation", "gate");
        long latency = Long.parseLong(a.get("--latency-us", "200"));
        Emulation emulation = switch (mode) {
            case "gate" -> Emulation.gate(Double.parseDouble(a.get("--capacity", "500")), latency);
            case "cgroup" -> Emulation.cgroup(Double.parseDouble(a.get("--cores", "0.05")), latency);
            case "none" -> Emulation.NONE;
            default -> throw new Args.UsageException("--emulation is gate, cgroup or none, not '" + mode + "'");
        };
        Path out = a.has("--out") ? Path.of(a.get("--out", null))
                : Path.of("bench-results", LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmmss", Locale.ROOT)) + "-" + name);
        return new Options(backends, a.has("--schemes") ? Arrays.asList(a.get("--schemes", "").split(",")) : List.of(),
                a.getInt("--clients", 0), Double.parseDouble(a.get("--warmup", quick ? "3" : "4")),
                Double.parseDouble(a.get("--duration", quick ? "5" : "8")), Long.parseLong(a.get("--transactions", "0")),
                Double.parseDouble(a.get("--scale", "1")), Long.parseLong(a.get("--seed", "1")), out, quick, emulation,
                a.has("--backends-from") ? Path.of(a.get("--backends-from", null)) : null, !a.has("--no-baseline"),
                a.has("--record") ? Path.of(a.get("--record", null)) : null, a.has("--replay") ? Path.of(a.get("--replay", null)) : null,
                a.has("--wikibench") ? Path.of(a.get("--wikibench", null)) : null, partitioner(a.get("--partitioner", "auto")));
    }

    private static String partitioner(String name) throws Args.UsageException {
        if (!List.of("auto", "metis", "builtin").contains(name)) throw new Args.UsageException("--partitioner is auto, metis or builtin, not '" + name + "'");
        if (name.equals("metis")) org.lutra.partition.Partitioner.named(name); // gpmetis must be installed: say so before any shard starts
        return name;
    }

    private static List<Integer> ints(String csv) {
        var out = new ArrayList<Integer>();
        for (String s : csv.split(",")) if (!s.isBlank()) out.add(Integer.parseInt(s.trim()));
        if (out.isEmpty() || out.stream().anyMatch(n -> n < 1)) throw new IllegalArgumentException("--backends: positive counts, e.g. 1,2,4,8");
        return out;
    }

    private static List<Double> doubles(String csv) {
        var out = new ArrayList<Double>();
        for (String s : csv.split(",")) if (!s.isBlank()) out.add(Double.parseDouble(s.trim()));
        return out;
    }
}
