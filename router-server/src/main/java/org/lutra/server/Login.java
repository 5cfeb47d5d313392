package org.lutra.server;

import com.google.protobuf.ByteString;
import org.lutra.protocol.Auth;
import org.lutra.protocol.Challenge;
import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.FrameReader;
import org.lutra.protocol.FrameWriter;
import org.lutra.protocol.Frames;
import org.lutra.protocol.HelloOk;
import org.lutra.protocol.Ok;
import org.lutra.protocol.SaltChallenge;
import org.lutra.protocol.Scram;
import org.lutra.protocol.ServerMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * One session's login handshake (lutra.proto has the conversation): the challenge, the login
 * throttle's verdict, the password proof of protocol 2 (or 1), then the checks that may still
 * refuse a correct password (database, sessions per user: {@link LoginGate}, as on every listener).
 * A Cancel request ends here too.
 */
final class Login {
    private static final Logger log = LoggerFactory.getLogger(Session.class); // the session's log: its login lines belong there
    static final int PROTOCOL_VERSION = 2;

    private final long sessionId;
    private final byte[] cancelKey;
    private final RouterServer server;
    private final FrameReader in;
    private final FrameWriter out;
    private final String address;

    Login(long sessionId, byte[] cancelKey, RouterServer server, FrameReader in, FrameWriter out, String address) {
        this.sessionId = sessionId;
        this.cancelKey = cancelKey;
        this.server = server;
        this.in = in;
        this.out = out;
        this.address = address;
    }

    /** The logged-in user (counted against its session limit), or null when the session ends here; the client was told why. */
    String run() throws IOException {
        byte[] nonce = Auth.newNonce();
        send(ServerMessage.newBuilder().setChallenge(Challenge.newBuilder().setNonce(ByteString.copyFrom(nonce))
                .setServerVersion(RouterServer.VERSION).setProtocolVersion(PROTOCOL_VERSION)));
        ClientMessage first = read();
        if (first == null) return null;
        if (first.hasCancel()) {
            // no answer tells whether the id and key matched
            server.sessions().cancel(first.getCancel().getSessionId(), first.getCancel().getCancelKey().toByteArray(), first.getCancel().getRequestId());
            send(ServerMessage.newBuilder().setRequestId(first.getRequestId()).setOk(Ok.getDefaultInstance()));
            return null;
        }
        if (!first.hasHello()) throw new Frames.FrameException("expected Hello, got " + first.getKindCase());
        var hello = first.getHello();
        String user = hello.getUser();
        String quoted = Session.printable(user);
        var gate = server.loginGate();
        var refused = gate.refused(sessionId, address, user);
        if (refused != null) {
            send(ServerMessage.newBuilder().setError(refused).setRequestId(first.getRequestId()));
            return null;
        }
        var account = server.credentials().account(user);
        long requestId = first.getRequestId();
        byte[] serverSignature = null;
        boolean proven;
        if (hello.getClientNonce().isEmpty()) {
            // protocol 1: only for plain (development) passwords, whose unsalted key the router can compute
            proven = account != null && account.legacyKey() != null && Auth.verify(account.legacyKey(), nonce, hello.getProof().toByteArray());
            if (account != null && account.legacyKey() == null) {
                log.info("session {}: user {} has a password_hash, which protocol 1 (a driver older than the router) cannot prove", sessionId, quoted);
            }
        } else {
            byte[] clientNonce = hello.getClientNonce().toByteArray();
            if (clientNonce.length < Scram.MIN_CLIENT_NONCE || clientNonce.length > Scram.MAX_CLIENT_NONCE) {
                throw new Frames.FrameException("a client nonce of " + clientNonce.length + " bytes (expected "
                        + Scram.MIN_CLIENT_NONCE + " to " + Scram.MAX_CLIENT_NONCE + ")");
            }
            var salted = server.credentials().challengeFor(user);
            send(ServerMessage.newBuilder().setRequestId(requestId).setSaltChallenge(SaltChallenge.newBuilder()
                    .setSalt(ByteString.copyFrom(salted.salt())).setIterations(salted.iterations())));
            ClientMessage answer = read();
            if (answer == null) return null;
            if (!answer.hasAuthProof()) throw new Frames.FrameException("expected AuthProof, got " + answer.getKindCase());
            requestId = answer.getRequestId();
            byte[] transcript = Scram.authMessage(user, nonce, clientNonce, salted.salt(), salted.iterations());
            proven = account != null && Scram.verifyClientProof(account.secret(), transcript, answer.getAuthProof().getProof().toByteArray());
            if (proven) serverSignature = Scram.serverSignature(account.secret().serverKey(), transcript);
        }
        if (!proven) {
            send(ServerMessage.newBuilder().setError(gate.failed(sessionId, address, user)).setRequestId(requestId));
            return null;
        }
        var notAdmitted = gate.admit(sessionId, address, user, hello.getDatabase());
        if (notAdmitted != null) {
            send(ServerMessage.newBuilder().setError(notAdmitted).setRequestId(requestId));
            return null;
        }
        var ok = HelloOk.newBuilder().setSessionId(sessionId).setCancelKey(ByteString.copyFrom(cancelKey))
                .setServerVersion(RouterServer.VERSION).setMaxFrameBytes(server.config().maxFrameBytes())
                .setBackendVersion(server.backendIdentity().version()).setLowerCaseTableNames(server.backendIdentity().lowerCaseTableNames());
        if (serverSignature != null) ok.setServerSignature(ByteString.copyFrom(serverSignature));
        send(ServerMessage.newBuilder().setRequestId(requestId).setHelloOk(ok));
        return user;
    }

    private ClientMessage read() throws IOException {
        // before login a frame may be small only: a Hello is a few hundred bytes
        return in.read(ClientMessage.parser(), Math.min(server.config().limits().maxLoginFrameBytes(), server.config().maxFrameBytes()));
    }

    private void send(ServerMessage.Builder message) throws IOException {
        out.write(message.build());
    }
}
