package org.lutra.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.lutra.cli.sql.Args;
import org.lutra.shards.ShardCluster;

/** `./lutra shards start|stop|status`: local shard servers that keep running after the command returns. */
public final class ShardsCommand implements Command {

    private static final String USAGE = """
            usage: ./lutra shards start  [--count N] [--dir D] [--base-port P] [--server-binary PATH]
                   ./lutra shards status [--dir D]
                   ./lutra shards stop   [--dir D]

              start   starts N servers (default 4) on 127.0.0.1 ports P..P+N-1 (default 13306), each
                      with its own data dir under D (default $LUTRA_HOME/shards, i.e. ~/.lutra/shards),
                      and returns while they keep running. Shards that run already are left alone.
                      Embedded MariaDB by default; --server-binary (or env LUTRA_MARIADBD) names a
                      mariadbd/mysqld installed on the system instead. Logs: D/shard-<i>/server.log.
              status  lists the shards of D: running or stopped, pid, port, JDBC URL.
              stop    stops them (SIGTERM; SIGKILL after 30 s). Data dirs are kept.

            Shards accept user root with an empty password.""";

    private final PrintStream out;
    private final PrintStream err;

    public ShardsCommand() {
        this(System.out, System.err);
    }

    ShardsCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name() {
        return "shards";
    }

    @Override
    public String summary() {
        return "start, stop or list local MySQL-compatible shard servers (embedded MariaDB)";
    }

    @Override
    public int run(List<String> argv) throws Exception {
        Args args;
        try {
            args = Args.parse(argv, Set.of("--count", "--dir", "--base-port", "--server-binary"), Set.of("--help", "-h"));
            if (args.has("--help") || args.has("-h")) {
                out.println(USAGE);
                return 0;
            }
            if (args.positional.size() != 1) throw new Args.UsageException("expected one of start, stop, status");
            var cluster = new ShardCluster(args.has("--dir") ? Path.of(args.get("--dir", null)) : ShardCluster.defaultDir());
            return switch (args.positional.getFirst()) {
                case "start" -> start(cluster, args.getInt("--count", 4), args.getInt("--base-port", ShardCluster.DEFAULT_BASE_PORT),
                        args.has("--server-binary") ? Path.of(args.get("--server-binary", null)) : null);
                case "status" -> status(cluster);
                case "stop" -> stop(cluster);
                default -> throw new Args.UsageException("unknown action '" + args.positional.getFirst() + "'");
            };
        } catch (Args.UsageException e) {
            err.println("lutra shards: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
    }

    private int start(ShardCluster cluster, int count, int basePort, Path serverBinary) throws Exception {
        long t0 = System.nanoTime();
        List<ShardCluster.Shard> shards;
        try {
            shards = cluster.start(count, basePort, serverBinary);
        } catch (java.io.IOException | IllegalArgumentException e) {
            err.println("lutra shards: " + e.getMessage());
            return 1;
        }
        for (var s : shards) {
            out.printf("shard %d  %-15s pid %-8d %s%n", s.index(),
                    s.state() == ShardCluster.State.STARTED ? "started" : "already running", s.pid(), s.url());
        }
        out.printf("%d shard(s) up in %.1f s; data under %s; user root, empty password%n",
                shards.size(), (System.nanoTime() - t0) / 1e9, cluster.dir());
        out.println("LUTRA_BACKENDS=" + shards.stream().map(ShardCluster.Shard::url).collect(Collectors.joining(",")));
        return 0;
    }

    private int status(ShardCluster cluster) throws Exception {
        var shards = cluster.status();
        if (shards.isEmpty()) {
            out.println("no shards under " + cluster.dir() + " (start them with ./lutra shards start)");
            return 0;
        }
        for (var s : shards) {
            boolean up = s.state() == ShardCluster.State.RUNNING;
            out.printf("shard %d  %-8s pid %-8s port %-6d %s%n", s.index(), up ? "running" : "stopped",
                    up ? Long.toString(s.pid()) : "-", s.port(), s.url());
        }
        return 0;
    }

    private int stop(ShardCluster cluster) throws Exception {
        var shards = cluster.stop();
        if (shards.isEmpty()) {
            out.println("no shards under " + cluster.dir());
            return 0;
        }
        for (var s : shards) {
            String what = switch (s.state()) {
                case STOPPED -> "stopped (pid " + s.pid() + ")";
                case KILLED -> "killed after " + 30 + " s without shutting down (pid " + s.pid() + ")";
                default -> "was not running";
            };
            out.printf("shard %d  port %-6d %s%n", s.index(), s.port(), what);
        }
        return 0;
    }
}
