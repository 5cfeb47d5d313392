package org.lutra.paper;

import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the workload integration tests run on: the embedded shards behind gates whose capacity is far above any test's load
 * (they count, they do not slow), a router host process, a directory for the runs' files and a terminal that prints nowhere.
 */
record GatedRouterHost(Cluster cluster, RouterHostProcess host, Path out, Terminal terminal) implements AutoCloseable {
    static GatedRouterHost start(String directoryPrefix) throws Exception {
        var cluster = Cluster.over(EmbeddedShardsExtension.shards(), Emulation.gate(1_000_000, 0));
        Path out = Files.createTempDirectory(directoryPrefix);
        var host = RouterHostProcess.start(out.resolve("router.log"));
        return new GatedRouterHost(cluster, host, out, new Terminal(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)));
    }

    @Override
    public void close() throws Exception {
        try {
            host.close();
        } finally {
            cluster.close();
        }
    }
}
