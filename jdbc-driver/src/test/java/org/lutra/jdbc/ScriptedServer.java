package org.lutra.jdbc;

import com.google.protobuf.ByteString;
import org.lutra.protocol.Auth;
import org.lutra.protocol.Challenge;
import org.lutra.protocol.ClientMessage;
import org.lutra.protocol.Frames;
import org.lutra.protocol.HelloOk;
import org.lutra.protocol.SaltChallenge;
import org.lutra.protocol.Scram;
import org.lutra.protocol.ServerMessage;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A tiny router stand-in on a real socket: it does the real handshake (Challenge, SaltChallenge,
 * SCRAM proof check, HelloOk or Error 28000) and then answers each request with what the test's
 * {@link Script} returns, echoing the request_id. Everything the client sent is recorded.
 */
final class ScriptedServer implements AutoCloseable {
    static final String USER = "app";
    static final String PASSWORD = "s3cret";
    static final String DATABASE = "shop";
    /** What the stand-in stores of PASSWORD, as the router does (few rounds: tests connect often). */
    static final Scram.StoredSecret SECRET = Scram.StoredSecret.derive(PASSWORD, Scram.MIN_ITERATIONS);

    /** The answer to one request; null closes the socket without answering (a crash). */
    interface Script {
        ServerMessage.Builder answer(ClientMessage request) throws Exception;
    }

    private final ServerSocket listener;
    private final Script script;
    private final List<ClientMessage> received = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    volatile int maxFrameBytes = 0; // sent in HelloOk when > 0
    volatile long requestIdSkew = 0; // added to echoed request ids, to test the client's pairing check
    volatile int iterations = SECRET.iterations(); // sent in SaltChallenge: fewer than the secret's, to test the client's floor
    volatile boolean signs = true; // false: HelloOk without a server signature, as an impostor that accepts any proof would send

    ScriptedServer(Script script) throws IOException {
        this.script = script;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(this::acceptLoop);
    }

    int port() {
        return listener.getLocalPort();
    }

    String url() {
        return "jdbc:lutra://127.0.0.1:" + port() + "/" + DATABASE + "?user=" + USER + "&password=" + PASSWORD;
    }

    List<ClientMessage> received() {
        return received;
    }

    List<ClientMessage> received(ClientMessage.KindCase kind) {
        return received.stream().filter(m -> m.getKindCase() == kind).toList();
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket s = listener.accept();
                sockets.add(s);
                Thread.ofVirtual().start(() -> serve(s));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            var in = new BufferedInputStream(socket.getInputStream());
            var out = socket.getOutputStream();
            byte[] nonce = Auth.newNonce();
            send(out, ServerMessage.newBuilder().setChallenge(Challenge.newBuilder()
                    .setNonce(ByteString.copyFrom(nonce)).setServerVersion("0.1.0-test").setProtocolVersion(2)));
            ClientMessage hello = Frames.read(in, ClientMessage.parser(), Frames.DEFAULT_MAX_FRAME_BYTES);
            received.add(hello);
            var h = hello.getHello();
            send(out, ServerMessage.newBuilder().setRequestId(hello.getRequestId()).setSaltChallenge(SaltChallenge.newBuilder()
                    .setSalt(ByteString.copyFrom(SECRET.salt())).setIterations(iterations)));
            if (iterations < SECRET.iterations()) return; // the client must not answer
            ClientMessage proof = Frames.read(in, ClientMessage.parser(), Frames.DEFAULT_MAX_FRAME_BYTES);
            byte[] transcript = Scram.authMessage(h.getUser(), nonce, h.getClientNonce().toByteArray(), SECRET.salt(), SECRET.iterations());
            if (proof == null) return;
            if (signs && (!h.getUser().equals(USER) || !Scram.verifyClientProof(SECRET, transcript, proof.getAuthProof().getProof().toByteArray()))) {
                send(out, ServerMessage.newBuilder().setRequestId(proof.getRequestId())
                        .setError(error("28000", 1045, "Access denied for user '" + h.getUser() + "'")));
                return;
            }
            send(out, ServerMessage.newBuilder().setRequestId(proof.getRequestId())
                    .setHelloOk(HelloOk.newBuilder().setSessionId(42).setServerVersion("0.1.0-test").setMaxFrameBytes(maxFrameBytes)
                            .setServerSignature(ByteString.copyFrom(signs ? Scram.serverSignature(SECRET.serverKey(), transcript) : new byte[32]))));
            while (true) {
                ClientMessage request = Frames.read(in, ClientMessage.parser(), Frames.DEFAULT_MAX_FRAME_BYTES);
                if (request == null) {
                    return;
                }
                received.add(request);
                if (request.hasQuit()) {
                    return;
                }
                ServerMessage.Builder answer = script.answer(request);
                if (answer == null) {
                    return;
                }
                send(out, answer.setRequestId(request.getRequestId() + requestIdSkew));
            }
        } catch (Exception e) {
            // the client went away or the test ended
        }
    }

    private static void send(OutputStream out, ServerMessage.Builder message) throws IOException {
        Frames.write(out, message.build());
    }

    static org.lutra.protocol.Error.Builder error(String state, int vendorCode, String message) {
        return org.lutra.protocol.Error.newBuilder().setSqlState(state).setVendorCode(vendorCode).setMessage(message);
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
