package org.lutra.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardClusterTest {

    @TempDir Path dir;
    ShardCluster cluster;

    @AfterEach
    void stopAll() throws IOException {
        if (cluster != null) cluster.stop();
    }

    @Test
    void startStatusStopRoundTrip() throws Exception {
        cluster = new ShardCluster(dir);
        int base = freeRange(2);
        List<ShardCluster.Shard> started = cluster.start(2, base, null);
        assertEquals(List.of(ShardCluster.State.STARTED, ShardCluster.State.STARTED), started.stream().map(ShardCluster.Shard::state).toList());
        assertEquals(base + 1, started.get(1).port());

        // the servers outlive nothing here, but they are separate processes with their own pid
        try (var c = DriverManager.getConnection(started.get(1).url(), "root", ""); var rs = c.createStatement().executeQuery("SELECT @@port")) {
            rs.next();
            assertEquals(base + 1, rs.getInt(1));
        }

        var again = cluster.start(2, base, null);
        assertEquals(List.of(ShardCluster.State.ALREADY_RUNNING, ShardCluster.State.ALREADY_RUNNING), again.stream().map(ShardCluster.Shard::state).toList());
        assertEquals(started.get(0).pid(), again.get(0).pid());

        assertTrue(cluster.status().stream().allMatch(s -> s.state() == ShardCluster.State.RUNNING));

        var stopped = cluster.stop();
        assertEquals(List.of(ShardCluster.State.STOPPED, ShardCluster.State.STOPPED), stopped.stream().map(ShardCluster.Shard::state).toList());
        assertTrue(cluster.status().stream().allMatch(s -> s.state() == ShardCluster.State.NOT_RUNNING));
        assertTrue(cluster.stop().stream().allMatch(s -> s.state() == ShardCluster.State.NOT_RUNNING));

        // data dirs survive a restart
        var restarted = cluster.start(1, base, null);
        assertEquals(ShardCluster.State.STARTED, restarted.get(0).state());
    }

    @Test
    void portTakenBySomethingElseIsAClearError() throws Exception {
        cluster = new ShardCluster(dir);
        try (var squatter = new ServerSocket()) {
            squatter.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            var e = assertThrows(IOException.class, () -> cluster.start(1, squatter.getLocalPort(), null));
            assertTrue(e.getMessage().contains("port " + squatter.getLocalPort()), e.getMessage());
            assertTrue(e.getMessage().contains("in use"), e.getMessage());
        }
    }

    /** A base port with {@code n} free ports after it. */
    static int freeRange(int n) {
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = ShardProcess.freePort();
            boolean ok = base + n <= 65535;
            for (int i = 1; ok && i < n; i++) ok = ShardProcess.portFree(base + i);
            if (ok) return base;
        }
        throw new IllegalStateException("no range of " + n + " free ports");
    }
}
