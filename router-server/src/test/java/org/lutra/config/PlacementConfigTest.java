package org.lutra.config;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** The config's placement section (change log, start-up sources) and partial lookup tables. */
class PlacementConfigTest {
    private static RouterConfig load(String yaml) throws Exception {
        Path dir = Files.createTempDirectory("lutra-config");
        Path file = dir.resolve("router.yaml");
        Files.writeString(file, SecurityConfigTest.BASE + "users: [{ name: app, password: pw }]\n" + yaml);
        return RouterConfig.load(file);
    }

    @Test
    void defaultsWithoutASection() throws Exception {
        var p = load("").placement();
        assertEquals(200, p.logPollMillis());
        assertEquals(3600, p.logKeepSeconds());
        assertEquals(300, p.snapshotIntervalSeconds());
        assertNull(p.snapshotFile());
        assertTrue(p.peers().isEmpty());
        assertFalse(p.peerVerifyHostname());
    }

    @Test
    void aSectionIsReadAndItsFileResolvedAgainstTheConfig() throws Exception {
        var p = load("""
                placement: { log_poll_ms: -1, log_keep_seconds: 60, snapshot_file: snap/lookups.snap, snapshot_interval_seconds: -1,
                             peers: ["10.0.0.5:5307"], peer_user: app, peer_password: hush,
                             peer_verify_hostname: true }
                """).placement();
        assertEquals(-1, p.logPollMillis());
        assertEquals(60, p.logKeepSeconds());
        assertTrue(p.snapshotFile().isAbsolute());
        assertTrue(p.snapshotFile().endsWith(Path.of("snap", "lookups.snap")));
        assertEquals(-1, p.snapshotIntervalSeconds());
        assertEquals("10.0.0.5:5307", p.peers().getFirst());
        assertTrue(p.peerVerifyHostname(), "kept when the snapshot file is resolved");
        assertFalse(p.toString().contains("hush"), "the peer password stays out of logs");
        var noUser = assertThrows(Exception.class, () -> load("placement: { peers: [\"h:1\"] }\n"));
        assertTrue(String.valueOf(noUser.getMessage()).contains("peer_user"), noUser.getMessage());
    }

    @Test
    void partialLookupsNeedACapacityAndAKnownMode() throws Exception {
        var source = load("lookups: [{ table: users, mode: partial, capacity: 1000 }]\n").lookups().getFirst();
        assertTrue(source.partial());
        assertEquals(1000, source.capacity());
        assertNull(source.file());
        var noCapacity = assertThrows(Exception.class, () -> load("lookups: [{ table: users, mode: partial }]\n"));
        assertTrue(String.valueOf(noCapacity.getMessage()).contains("capacity"), noCapacity.getMessage());
        var badMode = assertThrows(Exception.class, () -> load("lookups: [{ table: users, mode: lru }]\n"));
        assertTrue(String.valueOf(badMode.getMessage()).contains("full or partial"), badMode.getMessage());
    }

    @Test
    void aTraceIsOffByDefaultAndItsFileResolvedAgainstTheConfig() throws Exception {
        assertNull(load("").trace());
        var t = load("trace: { file: maps/live.trace, sample: 0.05, max_transactions: 1000 }\n").trace();
        assertTrue(t.file().isAbsolute() && t.file().endsWith(Path.of("maps", "live.trace")));
        assertEquals(0.05, t.sample());
        assertEquals(1000, t.maxTransactions());
        var defaults = load("trace: { file: live.trace }\n").trace();
        assertEquals(1.0, defaults.sample());
        assertEquals(1_000_000, defaults.maxTransactions());
        var bad = assertThrows(Exception.class, () -> load("trace: { file: t, sample: 1.5 }\n"));
        assertTrue(String.valueOf(bad.getMessage()).contains("trace.sample"), bad.getMessage());
        assertThrows(Exception.class, () -> load("trace: { sample: 0.5 }\n"));
    }
}
