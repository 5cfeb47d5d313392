package org.lutra.protocol;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * The router's random nonces, and protocol 1's login: the client answers the nonce with
 * HMAC-SHA256(key = SHA-256(password), nonce). That key is unsalted and is itself enough to log
 * in, so the router accepts protocol 1 only for users with a plain password in its config
 * (development); {@link Scram} is protocol 2's login, the one the driver uses.
 */
public final class Auth {
    public static final int NONCE_BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private Auth() {}

    public static byte[] newNonce() {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    /** The secret both sides derive from the password: SHA-256 of its UTF-8 bytes. */
    public static byte[] passwordKey(String password) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(password.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    public static byte[] proof(byte[] passwordKey, byte[] nonce) {
        try {
            var mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(passwordKey, "HmacSHA256"));
            return mac.doFinal(nonce);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }

    /** Constant-time check of a client's proof. */
    public static boolean verify(byte[] passwordKey, byte[] nonce, byte[] proof) {
        return MessageDigest.isEqual(proof(passwordKey, nonce), proof);
    }
}
