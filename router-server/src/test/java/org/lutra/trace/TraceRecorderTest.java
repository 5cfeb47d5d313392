package org.lutra.trace;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TraceRecorderTest {
    @TempDir
    Path dir;

    @Test
    void offHandsOutTheDoNothingTrace() {
        for (int i = 0; i < 100; i++) assertSame(KeyTrace.NONE, TraceRecorder.OFF.begin());
        assertEquals(0, TraceRecorder.OFF.written());
    }

    @Test
    void aCommittedTransactionIsOneLineOfItsKeysEachOnce() throws Exception {
        Path file = dir.resolve("t.trace");
        var recorder = TraceRecorder.start(file, 1.0, 100, Map.of("posts", "users"), List.of("test"));
        KeyTrace t = recorder.begin();
        t.read("users", new Object[] {1L, 2L, null});
        t.write("posts", new Object[] {2L});
        t.write("users", new Object[] {1L}); // read, then written: written
        t.read("users", null);
        t.committed();
        recorder.begin().committed(); // no keys: no line
        KeyTrace rolledBack = recorder.begin();
        rolledBack.read("users", new Object[] {99L}); // never committed: never written
        recorder.close();
        var trace = TraceReader.readAll(file);
        assertEquals(Map.of("posts", "users"), trace.sameAs());
        assertEquals(List.of(TraceLine.untyped(List.of(Access.write("users", "1"), Access.read("users", "2"), Access.write("posts", "2")))),
                trace.transactions());
        assertTrue(Files.readString(file).contains("# test\n"));
    }

    @Test
    void theSampleAndTheMaximumBoundTheFile() throws Exception {
        Path file = dir.resolve("s.trace");
        var recorder = TraceRecorder.start(file, 0.25, 50, Map.of(), List.of());
        int drawn = 0;
        int fiftieth = -1;
        for (int i = 0; i < 2000; i++) {
            KeyTrace t = recorder.begin();
            if (t != KeyTrace.NONE && ++drawn == 50) fiftieth = i;
            t.read("users", new Object[] {(long) i});
            t.committed();
        }
        // a quarter drawn: the 50th near the 200th transaction (4 standard deviations either way), none after it
        assertTrue(fiftieth > 100 && fiftieth < 400, "the 50th drawn was transaction " + fiftieth);
        assertEquals(50, drawn);
        assertEquals(50, TraceReader.readAll(file).transactions().size(), "closed after max_transactions lines");
        assertSame(KeyTrace.NONE, recorder.begin(), "nothing drawn once closed");
        assertThrows(IllegalArgumentException.class, () -> TraceRecorder.start(dir.resolve("x.trace"), 0, 1, Map.of(), List.of()));
        assertThrows(java.nio.file.FileAlreadyExistsException.class, () -> TraceRecorder.start(file, 1, 1, Map.of(), List.of()));
    }

    @Test
    void aTransactionKeepsAtMostItsLimitOfKeys() throws Exception {
        Path file = dir.resolve("big.trace");
        var recorder = TraceRecorder.start(file, 1.0, 10, Map.of(), List.of());
        KeyTrace t = recorder.begin();
        var keys = new Object[TransactionKeys.MAX_KEYS + 500];
        for (int i = 0; i < keys.length; i++) keys[i] = (long) i;
        t.read("users", keys);
        t.committed();
        recorder.close();
        assertEquals(TransactionKeys.MAX_KEYS, TraceReader.readAll(file).transactions().getFirst().accesses().size());
    }
}
