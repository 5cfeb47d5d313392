package org.lutra.cli.bench;

import org.lutra.cli.Command;
import org.lutra.cli.sql.Args;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * {@code ./lutra bench forward --to HOST:PORT [--event-loop]}: one of {@code bench point}'s byte-copying forwarders on a
 * loopback port of its own, until the process is stopped, so that clients other than the bench's (sysbench,
 * {@code bench/sysbench.sh}) can be measured through the extra hop alone. Prints the port it listens on, and when stopped
 * the CPU its copying threads used.
 */
public final class ForwardCommand implements Command {
    private static final String USAGE = """
            usage: ./lutra bench forward --to HOST:PORT [--event-loop]

              Copies bytes between each client that connects and HOST:PORT and does nothing else: two platform threads per
              connection (the router's own design), or with --event-loop one thread and a selector for every connection.
              Prints "forwarding 127.0.0.1:PORT -> HOST:PORT" once it listens; runs until stopped (SIGTERM), then prints
              the CPU time its copying threads used.""";

    private final PrintStream out;
    private final PrintStream err;

    public ForwardCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name() {
        return "forward";
    }

    @Override
    public String summary() {
        return "a forwarder that only copies bytes (threads or an event loop), to measure other clients through the extra hop alone";
    }

    @Override
    public int run(List<String> args) throws Exception {
        var parsed = Args.forCommand("lutra bench forward", USAGE, args, java.util.Set.of("--to"), java.util.Set.of("--event-loop"), out, err);
        if (parsed.done()) return parsed.exit();
        Args a = parsed.args();
        String to = a.get("--to", null);
        int colon = to == null ? -1 : to.lastIndexOf(':');
        if (colon <= 0) {
            err.println("lutra bench forward: --to HOST:PORT is required");
            err.println(USAGE);
            return 2;
        }
        String host = to.substring(0, colon);
        int port = Integer.parseInt(to.substring(colon + 1));
        boolean loop = a.has("--event-loop");
        Forwarder forwarder = loop ? new SelectorForwarder(host, port) : new TcpForwarder(host, port);
        var stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> {
            out.printf(java.util.Locale.ROOT, "forwarder stopped: %.3f s of CPU in its copying threads%n", forwarder.cpuNanos() / 1e9);
            out.flush();
            stopped.countDown();
        }));
        out.printf("forwarding 127.0.0.1:%d -> %s (%s)%n", forwarder.port(), to, loop ? "event loop" : "threads");
        out.flush();
        stopped.await();
        return 0;
    }
}
