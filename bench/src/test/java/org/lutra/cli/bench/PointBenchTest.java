package org.lutra.cli.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A short run of {@code ./lutra bench point} against a router in its own process: the report has
 * every cell, and — what the bench exists to watch — each routed statement cost the shard exactly
 * one statement (no session-state SETs around it).
 */
@ExtendWith(EmbeddedShardsExtension.class)
class PointBenchTest {
    private static final Pattern ROW = Pattern.compile("^\\| (point select|single-row update) \\| 1 \\|");
    /** Columns of a report row (after the leading "|"): router /s, direct /s, the threads forwarder's /s, the event loop's /s; round trips last. */
    private static final int[] THROUGHPUTS = {2, 3, 9, 12};

    @Test
    void everyRoutedStatementIsOneBackendStatement(Shards shards) throws Exception {
        var err = new ByteArrayOutputStream();
        var bench = new PointBench(new PrintStream(java.io.OutputStream.nullOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        String report = bench.measure(shards, PointBench.parse(List.of("--rows", "500", "--seconds", "0.5", "--rounds", "1", "--clients", "1",
                "--warmup", "0.2", "--warmup-max", "0"))); // one pass: waiting for the JIT to be idle takes a minute or more
        int cells = 0, mysqlCells = 0;
        boolean mysqlTable = false;
        for (String line : report.lines().toList()) {
            if (line.startsWith("The router's MySQL listener")) mysqlTable = true;
            if (!ROW.matcher(line).find()) continue;
            if (mysqlTable) { // the fifth path: Connector/J at the router's MySQL listener
                mysqlCells++;
                assertTrue(Long.parseLong(line.substring(1).split("\\|")[2].trim().replace(",", "")) > 0, "the MySQL listener: " + line);
                continue;
            }
            cells++;
            String[] columns = line.substring(1).split("\\|");
            for (int column : THROUGHPUTS) {
                assertTrue(Long.parseLong(columns[column].trim().replace(",", "")) > 0, "router, direct, both forwarders: " + line);
            }
            String trips = columns[columns.length - 1].trim();
            // an extra round trip per statement reads 2.00; the router's own background statements on the shard (its catalog
            // lease) are taken off at the rate they ran while no client did
            assertEquals(1.0, Double.parseDouble(trips), 0.15, "backend round trips per statement: " + line + "\n" + report);
        }
        assertEquals(2, cells, report + err);
        assertEquals(2, mysqlCells, report + err);
        var executes = Pattern.compile("Com_stmt_execute ([\\d.]+)").matcher(report);
        assertTrue(executes.find(), report);
        assertEquals(1.0, Double.parseDouble(executes.group(1)), 0.15, "the shard executed one statement per routed one\n" + report);
    }
}
