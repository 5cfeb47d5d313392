package org.lutra.cli;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.lutra.cli.bench.ForwardCommand;
import org.lutra.cli.bench.InsertBench;
import org.lutra.cli.bench.LoadBench;
import org.lutra.cli.bench.MoveBench;
import org.lutra.cli.bench.PointBench;
import org.lutra.cli.bench.QueryBench;
import org.lutra.cli.bench.TxnBench;

/** {@code ./lutra bench <workload> ...}: the benchmarks, one subcommand each. */
final class BenchCommand implements Command {

    private final PrintStream out;
    private final PrintStream err;

    BenchCommand() {
        this(System.out, System.err);
    }

    BenchCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** The benchmarks, in the order the usage lists them. One line each. */
    List<Command> workloads() {
        return List.of(
                new TxnBench(out, err),
                new QueryBench(out, err),
                new PointBench(out, err),
                new LoadBench(out, err),
                new MoveBench(out, err),
                new InsertBench(out, err),
                new org.lutra.paper.PaperBench("micro", out, err),
                new org.lutra.paper.PaperBench("wikipedia", out, err),
                new org.lutra.paper.PaperBench("twitter", out, err),
                new org.lutra.paper.PaperBench("tpce", out, err),
                new org.lutra.paper.PaperBench("paper", out, err),
                new ForwardCommand(out, err)
        );
    }

    @Override
    public String name() {
        return "bench";
    }

    @Override
    public String summary() {
        return "benchmarks, each reporting side by side in one run: txn, query, point, load, move, insert; the paper's micro, wikipedia, twitter, tpce, paper; "
                + "forward, a byte-copying forwarder for other clients (./lutra bench help)";
    }

    @Override
    public int run(List<String> args) throws Exception {
        Map<String, Command> byName = new LinkedHashMap<>();
        for (Command c : workloads()) byName.put(c.name(), c);
        if (args.isEmpty() || List.of("help", "--help", "-h").contains(args.getFirst())) {
            if (args.size() > 1 && byName.containsKey(args.get(1))) return byName.get(args.get(1)).run(List.of("--help"));
            printUsage(byName, out);
            return args.isEmpty() ? 2 : 0;
        }
        Command workload = byName.get(args.getFirst());
        if (workload == null) {
            err.println("lutra bench: unknown benchmark '" + args.getFirst() + "'");
            printUsage(byName, err);
            return 2;
        }
        return workload.run(List.copyOf(args.subList(1, args.size())));
    }

    private static void printUsage(Map<String, Command> workloads, PrintStream to) {
        to.println("usage: ./lutra bench <benchmark> [options]    (./lutra bench help <benchmark> for its options)");
        to.println();
        to.println("benchmarks:");
        int width = workloads.keySet().stream().mapToInt(String::length).max().orElse(0);
        for (Command c : workloads.values()) to.printf("  %-" + width + "s  %s%n", c.name(), c.summary());
    }
}
