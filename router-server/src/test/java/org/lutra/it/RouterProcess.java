package org.lutra.it;

import org.lutra.config.RouterConfig;
import org.lutra.server.RouterServer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A router in a JVM of its own, for tests that kill it with SIGKILL: nothing of it runs in the test's
 * process, so nothing of it can tidy up (no shutdown hook, no finally). Configured as
 * {@link TestRouter} configures its routers (same user, pool size, partitions p0..p3 on the shards).
 *
 * <p>{@code main} arguments: database, schema file, map dir, move pause (ms), user, password, then one
 * JDBC URL per shard. It prints {@code port N} once it serves, and runs until it is killed.
 */
public final class RouterProcess {
    public static void main(String[] args) throws Exception {
        var backends = new ArrayList<RouterConfig.Backend>();
        var partitions = new ArrayList<RouterConfig.PartitionPlacement>();
        int shards = args.length - 6;
        for (int i = 0; i < shards; i++) backends.add(new RouterConfig.Backend("shard" + i, args[6 + i], args[4], args[5], 8, 0));
        for (int i = 0; i < 4; i++) partitions.add(new RouterConfig.PartitionPlacement("p" + i, "shard" + (i % shards), null));
        var config = new RouterConfig("127.0.0.1:0", args[0], Path.of(args[1]), List.of(new RouterConfig.User(TestRouter.USER, TestRouter.PASSWORD, null)),
                backends, partitions, List.of(), 1 << 20, 1000, null, null, null,
                new RouterConfig.CatalogSettings(0, null, Path.of(args[2]), Integer.parseInt(args[3])));
        config.validate();
        RouterServer server = RouterServer.start(config);
        System.out.println("port " + server.port());
        System.out.flush();
        Thread.currentThread().join();
    }

    /** Starts a router process for {@code r}'s database (stopped first: a router name runs once); its output goes to {@code log}. */
    static Process start(TestRouter r, Path maps, int pauseMillis, Path log) throws IOException {
        var command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp", System.getProperty("java.class.path"),
                RouterProcess.class.getName(), r.database, r.config.schema().toString(), maps.toString(), String.valueOf(pauseMillis), r.shards.user(),
                r.shards.password()));
        for (int s = 0; s < r.servers; s++) command.add(r.shards.url(s));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** The port the process serves on, once it says so. */
    static int port(Process p, Path log) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < until) {
            if (!p.isAlive()) throw new IllegalStateException("the router process ended (" + p.exitValue() + "): " + Files.readString(log));
            for (String line : Files.readAllLines(log)) {
                if (line.startsWith("port ")) return Integer.parseInt(line.substring(5).trim());
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the router process did not start within 120 s: " + Files.readString(log));
    }

}
