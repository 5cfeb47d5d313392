package org.lutra.server.mysql;

import io.netty.buffer.ByteBuf;
import org.lutra.protocol.Error;
import org.lutra.server.LoginGate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's login (Connection Phase of the MySQL protocol), packet by packet: the greeting
 * was sent with a scramble and caching_sha2_password as the default plugin; the client may first
 * ask for TLS (SSLRequest), then answers with its handshake response. The login throttle decides
 * before any password is checked ({@link LoginGate}), then the plugin's exchange
 * ({@link MysqlPasswords}): the response to the greeting, an AuthSwitchRequest to the plugin the
 * user needs, caching_sha2_password's fast path or its full authentication (the password over TLS,
 * or RSA-encrypted with the router's public key, which it sends on request).
 */
final class MysqlLogin {
    private static final Logger log = LoggerFactory.getLogger(MysqlConnection.class);

    /** What the login ended with: the user (counted against its session limit) and its handshake, or why it did not. */
    sealed interface Outcome {
        record LoggedIn(String user, HandshakeResponse hello) implements Outcome {}

        record Refused(Error error) implements Outcome {}
    }

    private enum Step { RESPONSE, SWITCHED, FULL_AUTH }

    private final long sessionId;
    private final String address;
    private final LoginGate gate;
    private final MysqlPasswords passwords;
    private final boolean tlsRequired;
    private final byte[] scramble = MysqlPasswords.scramble();
    private Step step = Step.RESPONSE;
    private boolean tls;
    private HandshakeResponse hello;
    private String plugin;

    MysqlLogin(long sessionId, String address, LoginGate gate, MysqlPasswords passwords, boolean tlsRequired) {
        this.sessionId = sessionId;
        this.address = address;
        this.gate = gate;
        this.passwords = passwords;
        this.tlsRequired = tlsRequired;
    }

    byte[] scramble() {
        return scramble;
    }

    void tlsStarted() {
        tls = true;
    }

    /** The next client packet of the login: an Outcome when the login is decided, null when the client must answer again. */
    Outcome next(ByteBuf packet, PacketWriter out) {
        return switch (step) {
            case RESPONSE -> response(packet, out);
            case SWITCHED -> switched(packet, out);
            case FULL_AUTH -> fullAuth(packet, out);
        };
    }

    private Outcome response(ByteBuf packet, PacketWriter out) {
        hello = HandshakeResponse.parse(packet);
        if ((hello.capabilities() & MysqlWire.CLIENT_PROTOCOL_41) == 0) {
            return refused("08004", 1251, "Client does not support authentication protocol requested by server; consider upgrading MySQL client");
        }
        if (tlsRequired && !tls) {
            return refused("08004", 3159, "Connections using insecure transport are prohibited: the router has tls in its config"
                    + " (connect with TLS, e.g. mysql --ssl, Connector/J sslMode=REQUIRED)");
        }
        Error throttled = gate.refused(sessionId, address, hello.user());
        if (throttled != null) return new Outcome.Refused(throttled);
        String user = hello.user();
        if (MysqlPasswords.NATIVE.equals(hello.plugin()) && passwords.knowsNative(user)) {
            return decided(passwords.verifyNative(user, scramble, hello.authResponse()));
        }
        if (MysqlPasswords.CACHING_SHA2.equals(hello.plugin())) return sha2(hello.authResponse(), out);
        // another plugin, or mysql_native_password for a user whose SHA1 hash the router cannot know: switch plugins
        plugin = passwords.knowsNative(user) ? MysqlPasswords.NATIVE : MysqlPasswords.CACHING_SHA2;
        step = Step.SWITCHED;
        Packets.authSwitch(out, plugin, scramble);
        return null;
    }

    private Outcome switched(ByteBuf packet, PacketWriter out) {
        byte[] response = new byte[packet.readableBytes()];
        packet.readBytes(response);
        if (plugin.equals(MysqlPasswords.NATIVE)) return decided(passwords.verifyNative(hello.user(), scramble, response));
        return sha2(response, out);
    }

    /** caching_sha2_password's first answer: the fast path where the cache knows the user, else full authentication. */
    private Outcome sha2(byte[] response, PacketWriter out) {
        String user = hello.user();
        if (response.length == 0) return decided(passwords.verifyPassword(user, new byte[0])); // the client's empty password
        if (passwords.cached(user)) {
            boolean proven = passwords.verifySha2Fast(user, scramble, response);
            if (proven) Packets.authMoreData(out, new byte[] {0x03}); // fast_auth_success, then the OK
            return decided(proven);
        }
        step = Step.FULL_AUTH;
        Packets.authMoreData(out, new byte[] {0x04}); // perform_full_authentication
        return null;
    }

    private Outcome fullAuth(ByteBuf packet, PacketWriter out) {
        byte[] data = new byte[packet.readableBytes()];
        packet.readBytes(data);
        if (tls) return decided(passwords.verifyPassword(hello.user(), MysqlPasswords.withoutNul(data)));
        if (data.length == 1 && data[0] == 0x02) { // the client asks for the router's public key
            Packets.authMoreData(out, passwords.publicKeyPem());
            return null;
        }
        byte[] password = passwords.decryptPassword(data, scramble);
        if (password == null) {
            log.info("session {}: a client from {} sent its password neither over TLS nor encrypted with the router's public key", sessionId, address);
            return decided(false);
        }
        return decided(passwords.verifyPassword(hello.user(), password));
    }

    private Outcome decided(boolean proven) {
        if (!proven) return new Outcome.Refused(gate.failed(sessionId, address, hello.user()));
        Error refused = gate.admit(sessionId, address, hello.user(), hello.database());
        return refused != null ? new Outcome.Refused(refused) : new Outcome.LoggedIn(hello.user(), hello);
    }

    private static Outcome refused(String state, int code, String message) {
        return new Outcome.Refused(Error.newBuilder().setSqlState(state).setVendorCode(code).setMessage(message).build());
    }
}
