package org.lutra.it;

import com.google.protobuf.ByteString;
import org.lutra.protocol.AuthProof;
import org.lutra.protocol.Cancel;
import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.Execute;
import org.lutra.protocol.Frames;
import org.lutra.protocol.Hello;
import org.lutra.protocol.Scram;
import org.lutra.protocol.ServerMessage;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;

/**
 * A session speaking the protocol by hand (plaintext, protocol 2 login), for tests that must
 * choose request ids and send Cancel frames the driver would not: its session id and cancel key
 * are the router's answer to the login.
 */
final class RawSession implements AutoCloseable {
    private static final int MAX_FRAME = 1 << 20;

    private final TestRouter router;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    final long sessionId;
    final ByteString cancelKey;

    RawSession(TestRouter router) throws IOException {
        this.router = router;
        socket = new Socket("127.0.0.1", router.server.port());
        socket.setSoTimeout(30_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
        var challenge = Frames.read(in, ServerMessage.parser(), MAX_FRAME).getChallenge();
        byte[] clientNonce = Scram.newClientNonce();
        Frames.write(out, ClientMessage.newBuilder().setRequestId(1).setHello(Hello.newBuilder().setUser(TestRouter.USER)
                .setDatabase(router.database).setProtocolVersion(2).setClientNonce(ByteString.copyFrom(clientNonce))).build());
        var salt = Frames.read(in, ServerMessage.parser(), MAX_FRAME).getSaltChallenge();
        byte[] transcript = Scram.authMessage(TestRouter.USER, challenge.getNonce().toByteArray(), clientNonce, salt.getSalt().toByteArray(),
                salt.getIterations());
        byte[] proof = Scram.clientProof(Scram.saltedPassword(TestRouter.PASSWORD, salt.getSalt().toByteArray(), salt.getIterations()), transcript);
        Frames.write(out, ClientMessage.newBuilder().setRequestId(2).setAuthProof(AuthProof.newBuilder().setProof(ByteString.copyFrom(proof))).build());
        var ok = Frames.read(in, ServerMessage.parser(), MAX_FRAME);
        if (!ok.hasHelloOk()) throw new IOException("login refused: " + ok);
        sessionId = ok.getHelloOk().getSessionId();
        cancelKey = ok.getHelloOk().getCancelKey();
    }

    /** Sends {@code sql} as request {@code requestId}; the answer is {@link #answer}'s. */
    void execute(long requestId, String sql) throws IOException {
        Frames.write(out, ClientMessage.newBuilder().setRequestId(requestId).setExecute(Execute.newBuilder().setSql(sql)).build());
    }

    /** Sends {@code execute} as request {@code requestId}; the answer is {@link #answer}'s. */
    void execute(long requestId, Execute.Builder execute) throws IOException {
        Frames.write(out, ClientMessage.newBuilder().setRequestId(requestId).setExecute(execute).build());
    }

    ServerMessage answer() throws IOException {
        return Frames.read(in, ServerMessage.parser(), MAX_FRAME);
    }

    /** A Cancel naming request {@code requestId} of this session, sent on a connection of its own as the driver does. */
    void cancel(long requestId) throws IOException {
        try (var s = new Socket("127.0.0.1", router.server.port())) {
            s.setSoTimeout(10_000);
            Frames.read(s.getInputStream(), ServerMessage.parser(), MAX_FRAME); // the challenge
            Frames.write(s.getOutputStream(), ClientMessage.newBuilder().setRequestId(1).setCancel(Cancel.newBuilder()
                    .setSessionId(sessionId).setCancelKey(cancelKey).setRequestId(requestId)).build());
            Frames.read(s.getInputStream(), ServerMessage.parser(), MAX_FRAME); // Ok, whatever happened
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
