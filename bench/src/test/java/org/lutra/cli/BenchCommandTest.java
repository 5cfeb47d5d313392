package org.lutra.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchCommandTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final BenchCommand bench = new BenchCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));

    @Test
    void listsItsBenchmarksAndRefusesUnknownOnes() throws Exception {
        assertEquals(0, bench.run(List.of("help")));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("  txn  "), out.toString(StandardCharsets.UTF_8));
        assertEquals(2, bench.run(List.of()), "no benchmark named");
        assertEquals(2, bench.run(List.of("no-such-benchmark")));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown benchmark 'no-such-benchmark'"));
    }

    @Test
    void helpOfOneBenchmarkShowsItsOptions() throws Exception {
        assertEquals(0, bench.run(List.of("help", "txn")));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--clients"));
        assertEquals(2, bench.run(List.of("txn", "--clients", "0")));
    }
}
