package org.lutra.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A frozen shard answers nothing sent after {@link Shards#freeze} returned. The kernel wakes one thread of the server to
 * take SIGSTOP (its main thread), and the others stop only once that one has run; here it is kept off the CPU (lowest
 * scheduling class, pinned to a CPU a busy loop holds), so the window between kill returning and the server being
 * stopped, which a loaded machine opens by chance, is open every time.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FreezeTest {
    private static final int FREEZES = 3;

    @Test
    void aStatementSentAfterFreezeReturnedIsNotAnswered() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux");
        assumeTrue(onPath("chrt") && onPath("taskset"), "needs util-linux's chrt and taskset");
        try (var shards = EmbeddedShards.start(EmbeddedShards.Options.defaults(1).withWorkDir(Path.of("target", "lutra-freeze-test")))) {
            long pid = shards.pid(0);
            var connections = new ArrayList<Connection>(); // opened before: a frozen server accepts no new one
            for (int i = 0; i < FREEZES; i++) connections.add(shards.connect(0));
            // the main thread (tid = pid) only: without -a, chrt and taskset change that one thread
            run("taskset", "-p", "-c", "0", Long.toString(pid));
            run("chrt", "-i", "-p", "0", Long.toString(pid));
            Process busy = new ProcessBuilder("taskset", "-c", "0", "sh", "-c", "while :; do :; done").start();
            try {
                for (Connection c : connections) {
                    try {
                        shards.freeze(0);
                        c.setNetworkTimeout(Runnable::run, 1_000);
                        var e = assertThrows(SQLException.class, () -> c.createStatement().executeQuery("SELECT 1"),
                                "a frozen server answered");
                        assertTrue(e.getMessage().contains("timed out") || e.getMessage().contains("Read timed out")
                                || String.valueOf(e.getSQLState()).startsWith("08"), e.toString());
                    } finally {
                        shards.thaw(0);
                    }
                }
            } finally {
                busy.destroyForcibly().waitFor(); // the main thread stays at SCHED_IDLE: with the CPU free again it runs, and the shard ends with the test
            }
            try (Connection c = shards.connect(0); var rs = c.createStatement().executeQuery("SELECT 1")) {
                assertTrue(rs.next());
                assertEquals(1, rs.getInt(1), "thawed, it answers again");
            }
            for (Connection c : connections) c.close();
        }
    }

    private static boolean onPath(String command) {
        return java.util.Arrays.stream(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .anyMatch(dir -> !dir.isEmpty() && Files.isExecutable(Path.of(dir, command)));
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, String.join(" ", command) + ": " + out);
    }
}
