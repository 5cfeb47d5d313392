package org.lutra.it;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every socket a router keeps to its shards stays in blocking mode whatever ran on it: point
 * statements, fan-outs over every partition, two-phase commits, locking reads of home rows, fenced
 * scans. A socket the JDK once put in non-blocking mode (a virtual thread's read, a timed wait)
 * costs three system calls per read for good (BlockingSocketFactory, BackendThreads). The router
 * runs in a process of its own; its sockets' flags are read from /proc (Linux only).
 */
@ExtendWith(EmbeddedShardsExtension.class)
class BlockingBackendSocketsIT {
    private static final int O_NONBLOCK = 04000;

    @Test
    void noBackendSocketOfTheRouterIsNonBlockingAfterAMixedWorkload(Shards shards) throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self/fdinfo")), "needs Linux /proc");
        String database = ("blocking_" + Long.toString(new Random().nextLong() >>> 24, 36)).toLowerCase();
        Path maps = Files.createTempDirectory("lutra-maps");
        var setup = new TestRouter(shards, database, MoveJobsIT.SCHEMA, null, shards.size(), null, 8, 0,
                new RouterConfig.CatalogSettings(0, null, maps, 20));
        setup.stopRouter(); // its name is the process's now
        Path log = Files.createTempFile("lutra-router", ".log");
        Process router = RouterProcess.start(setup, maps, 20, log);
        try (Connection c = DriverManager.getConnection("jdbc:lutra://127.0.0.1:" + RouterProcess.port(router, log) + "/" + database,
                TestRouter.USER, TestRouter.PASSWORD); var st = c.createStatement()) {
            for (int id = 1; id <= 40; id++) st.executeUpdate("INSERT INTO users VALUES (" + id + ", 'u" + id + "')"); // home rows locked
            for (int id = 1; id <= 40; id++) st.executeUpdate("INSERT INTO followers VALUES (" + id + ", " + (id % 7 + 1) + ")");
            for (int round = 0; round < 5; round++) {
                try (var rs = st.executeQuery("SELECT COUNT(*) FROM users")) { // a fenced scan of every partition
                    assertTrue(rs.next());
                    assertEquals(40, rs.getInt(1));
                }
                try (var rs = st.executeQuery("SELECT f.source, u.name FROM followers f JOIN users u ON u.id = f.source ORDER BY f.source DESC LIMIT 3")) {
                    assertTrue(rs.next());
                }
                try (var ps = c.prepareStatement("SELECT name FROM users WHERE id = ?")) {
                    for (int id = 1; id <= 40; id++) {
                        ps.setInt(1, id);
                        try (var rs = ps.executeQuery()) {
                            assertTrue(rs.next());
                        }
                    }
                }
                c.setAutoCommit(false); // a transaction over several partitions: two-phase commit
                st.executeUpdate("UPDATE users SET name = CONCAT(name, 'x') WHERE id IN (1, 2, 3, 4, 5, 6, 7, 8)");
                c.commit();
                c.setAutoCommit(true);
            }
            st.executeUpdate("ALTER TABLE users SET PARTITION = p3 WHERE id <= 10"); // a move
            try (var rs = st.executeQuery("SELECT COUNT(*) FROM followers")) {
                assertTrue(rs.next());
                assertEquals(40, rs.getInt(1));
            }

            var ports = new HashSet<Integer>();
            var url = Pattern.compile("//[^:/]+:(\\d+)");
            for (int s = 0; s < shards.size(); s++) {
                var m = url.matcher(shards.url(s));
                assertTrue(m.find(), shards.url(s));
                ports.add(Integer.parseInt(m.group(1)));
            }
            var sockets = backendSockets(router.pid(), ports);
            assertTrue(sockets.size() >= 4, "the router holds connections to its shards: " + sockets);
            var nonBlocking = new ArrayList<String>();
            for (var e : sockets.entrySet()) if ((e.getValue() & O_NONBLOCK) != 0) nonBlocking.add("fd " + e.getKey());
            assertEquals(List.of(), nonBlocking, "backend sockets in non-blocking mode, of " + sockets.size());
        } finally {
            router.destroyForcibly().waitFor();
        }
    }

    /** The router's sockets connected to one of {@code ports}: fd to its file status flags (octal in fdinfo). */
    private static Map<Integer, Integer> backendSockets(long pid, Set<Integer> ports) throws IOException {
        var inodes = new HashSet<String>();
        for (String table : List.of("tcp", "tcp6")) {
            Path file = Path.of("/proc/" + pid + "/net/" + table);
            if (!Files.exists(file)) continue;
            var lines = Files.readAllLines(file); // read once: the table changes between two reads
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.trim().split("\\s+");
                int remotePort = Integer.parseInt(f[2].substring(f[2].indexOf(':') + 1), 16);
                if (ports.contains(remotePort) && f[3].equals("01")) inodes.add(f[9]); // ESTABLISHED
            }
        }
        var flags = new HashMap<Integer, Integer>();
        try (var fds = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            for (Path fd : fds.toList()) {
                String target;
                try {
                    target = Files.readSymbolicLink(fd).toString();
                } catch (IOException gone) {
                    continue;
                }
                if (!target.startsWith("socket:[") || !inodes.contains(target.substring(8, target.length() - 1))) continue;
                for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/fdinfo/" + fd.getFileName()))) {
                    if (line.startsWith("flags:")) flags.put(Integer.parseInt(fd.getFileName().toString()), Integer.parseInt(line.substring(6).trim(), 8));
                }
            }
        }
        return flags;
    }
}
