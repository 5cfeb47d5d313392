package org.lutra.protocol;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * Challenge-response login: the router sends a random nonce, the client answers with
 * HMAC-SHA256(key = SHA-256(password), nonce). The router stores only SHA-256(password) if the
 * operator wishes, and the password itself never crosses the wire.
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
