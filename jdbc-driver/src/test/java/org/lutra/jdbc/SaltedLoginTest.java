package org.lutra.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.lutra.protocol.Scram;
import org.lutra.protocol.ServerMessage;

import java.sql.DriverManager;
import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.*;

/** Protocol 2's login from the driver's side: the SCRAM formulas, and what the driver refuses of a router. */
class SaltedLoginTest {
    ScriptedServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) server.close();
    }

    @Test
    void aProofVerifiesForTheRightPasswordOnly() {
        var secret = Scram.StoredSecret.derive("s3cret", Scram.MIN_ITERATIONS);
        byte[] transcript = Scram.authMessage("app", new byte[32], new byte[16], secret.salt(), secret.iterations());
        byte[] right = Scram.saltedPassword("s3cret", secret.salt(), secret.iterations());
        byte[] wrong = Scram.saltedPassword("s3creT", secret.salt(), secret.iterations());
        assertTrue(Scram.verifyClientProof(secret, transcript, Scram.clientProof(right, transcript)));
        assertFalse(Scram.verifyClientProof(secret, transcript, Scram.clientProof(wrong, transcript)));
        // a proof is bound to its transcript: replayed against another nonce it fails
        byte[] other = Scram.authMessage("app", new byte[32], new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, secret.salt(), secret.iterations());
        assertFalse(Scram.verifyClientProof(secret, other, Scram.clientProof(right, transcript)));
        assertTrue(Scram.verifyServerSignature(right, transcript, Scram.serverSignature(secret.serverKey(), transcript)));
        assertFalse(Scram.verifyServerSignature(wrong, transcript, Scram.serverSignature(secret.serverKey(), transcript)));
    }

    @Test
    void theStoredFormRoundTripsAndIsSalted() {
        var a = Scram.StoredSecret.derive("pw", Scram.MIN_ITERATIONS);
        var b = Scram.StoredSecret.derive("pw", Scram.MIN_ITERATIONS);
        String encoded = a.encode();
        assertTrue(encoded.startsWith("pbkdf2-sha256$4096$"), encoded);
        assertEquals(5, encoded.split("\\$").length);
        var parsed = Scram.StoredSecret.parse(encoded);
        assertArrayEquals(a.storedKey(), parsed.storedKey());
        assertArrayEquals(a.serverKey(), parsed.serverKey());
        assertArrayEquals(a.salt(), parsed.salt());
        assertNotEquals(encoded, b.encode(), "the same password stored twice must not look the same");
        // PBKDF2-HMAC-SHA256 itself, RFC 7914 section 11's test vector (c = 1)
        assertEquals("55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc",
                java.util.HexFormat.of().formatHex(Scram.saltedPassword("passwd", "salt".getBytes(), 1)));
        for (String bad : new String[] {"sha256$1$a$b$c", "pbkdf2-sha256$100$AAAAAAAAAAA$" + "A".repeat(43) + "$" + "A".repeat(43),
                "pbkdf2-sha256$x$a$b$c", "pbkdf2-sha256$5000$AAAAAAAAAAA$AAAA$AAAA"}) {
            assertThrows(IllegalArgumentException.class, () -> Scram.StoredSecret.parse(bad), bad);
        }
    }

    @Test
    void theDriverLogsInWithASaltedProof() throws Exception {
        server = new ScriptedServer(request -> ServerMessage.newBuilder().setOk(org.lutra.protocol.Ok.getDefaultInstance()));
        try (var c = DriverManager.getConnection(server.url())) {
            assertTrue(c.isValid(2));
        }
        var hello = server.received(org.lutra.protocol.ClientMessage.KindCase.HELLO).getFirst().getHello();
        assertTrue(hello.getProof().isEmpty(), "protocol 1's unsalted proof must not be sent");
    }

    @Test
    void aRouterAskingForFewIterationsGetsNoProof() throws Exception {
        server = new ScriptedServer(request -> null);
        server.iterations = 1;
        var e = assertThrows(SQLException.class, () -> DriverManager.getConnection(server.url()));
        assertTrue(e.getMessage().contains("PBKDF2 iterations"), e.getMessage());
        assertTrue(e.getSQLState().startsWith("08"), e.getSQLState());
    }

    @Test
    void aRouterThatCannotSignIsNotTrusted() throws Exception {
        server = new ScriptedServer(request -> ServerMessage.newBuilder().setOk(org.lutra.protocol.Ok.getDefaultInstance()));
        server.signs = false;
        var e = assertThrows(SQLException.class, () -> DriverManager.getConnection(server.url().replace(ScriptedServer.PASSWORD, "any")));
        assertTrue(e.getMessage().contains("without proving"), e.getMessage());
        assertTrue(e.getSQLState().startsWith("08"), e.getSQLState());
    }
}
