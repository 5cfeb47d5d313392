package org.lutra.cli.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lutra.cli.sql.Args;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code ./lutra bench point --baseline-jar}: which builds it takes, and how it reads this build against the baseline. */
class PointBaselineTest {
    @Test
    void aBaselineIsABuildsJarWithItsLibBesideIt(@TempDir Path build) throws Exception {
        Path jar = build.resolve("lutra-bench-0.1.0-SNAPSHOT.jar");
        var missing = assertThrows(Args.UsageException.class, () -> PointBench.parse(List.of("--baseline-jar", jar.toString())));
        assertTrue(missing.getMessage().contains("no such jar"), missing.getMessage());
        Files.writeString(jar, "");
        var noLib = assertThrows(Args.UsageException.class, () -> PointBench.parse(List.of("--baseline-jar", jar.toString())));
        assertTrue(noLib.getMessage().contains("no lib/ directory"), noLib.getMessage());
        Files.createDirectory(build.resolve("lib"));
        assertEquals(jar.toString(), PointBench.parse(List.of("--baseline-jar", jar.toString())).get("--baseline-jar", null));
        assertTrue(PointBench.parse(List.of("--baseline-jar", jar.toString(), "--baseline-mysql")).has("--baseline-mysql"));
        assertThrows(Args.UsageException.class, () -> PointBench.parse(List.of("--baseline-mysql")));
        assertTrue(PointBench.parse(List.of("--baseline-jar", jar.toString(), "--idle-listener")).has("--idle-listener"));
        assertThrows(Args.UsageException.class, () -> PointBench.parse(List.of("--idle-listener")));
        assertThrows(Args.UsageException.class, () -> PointBench.parse(List.of("--baseline-jar", jar.toString(), "--idle-listener", "--baseline-mysql")));
        assertEquals(build.resolve("router.before.jfr"), PointBench.sibling(build.resolve("router.jfr"), "before"));
    }

    /** Each ratio is the median of the rounds' after / before (the two measured side by side), not the ratio of the medians. */
    @Test
    void theReportGivesEachRoundsAfterOverBeforeAndTheirMedian() {
        var cell = new PointCell("point select", 16);
        // before 1,000, 2,000, 4,000 /s; after 1,100, 1,800, 4,400 /s: per round 1.10 0.90 1.10, median 1.10 (the medians' ratio is 0.90)
        round(cell, 1000, 10, 4, 1100, 11, 5);
        round(cell, 2000, 20, 8, 1800, 18, 6);
        round(cell, 4000, 30, 10, 4400, 33, 12);
        String report = PointReport.baseline(List.of(cell), Path.of("/builds/old/lutra-bench.jar"), null, false);
        assertTrue(report.contains("| point select | 16 | 2,000 | 1,800 | 1.100 | 20.0 | 18.0 | 1.100 | 8.0 | 6.0 | 1.200 |"), report);
        assertTrue(report.contains("- point select × 16: throughput 1.10 0.90 1.10; CPU 1.10 0.90 1.10; user space 1.25 0.75 1.20"), report);
        assertTrue(report.contains("`/builds/old/lutra-bench.jar`"), report);
        assertTrue(report.contains("through the same Lutra driver"), report);
        assertTrue(!report.contains("--idle-listener") && !report.contains("no client connects to"), report);
        String idle = PointReport.baseline(List.of(cell), Path.of("/builds/old/lutra-bench.jar"), null, true);
        assertTrue(idle.contains("`--idle-listener`") && idle.contains("the after router also serves a MySQL listener that no client connects to"), idle);
        String mysql = PointReport.baseline(List.of(cell), Path.of("/builds/old/lutra-bench.jar"), "useServerPrepStmts=false", false);
        assertTrue(mysql.contains("Connector/J client at their MySQL listeners (`useServerPrepStmts=false`)"), mysql);
    }

    /** One round: statements per second (over 1 s), router CPU µs per statement and the user-space part of it, before and after. */
    private static void round(PointCell cell, long beforePerSecond, double beforeCpu, double beforeUser, long afterPerSecond, double afterCpu,
                              double afterUser) {
        add(cell.baseline(), beforePerSecond, beforeCpu, beforeUser);
        add(cell.current(), afterPerSecond, afterCpu, afterUser);
    }

    private static void add(PointCell.Routed routed, long statements, double cpuMicros, double userMicros) {
        routed.results().add(new ClosedLoop.Result(statements, 0, 1.0, new Latencies(), List.of()));
        routed.cpuMicros().add(cpuMicros);
        routed.userCpuMicros().add(userMicros);
    }
}
