package org.lutra.protocol;

import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Protocol 2's login, SCRAM-SHA-256 as RFC 5802 defines it, with the protocol's own framing of
 * the transcript (no GS2 header or comma syntax):
 * <pre>
 *   SaltedPassword  = PBKDF2-HMAC-SHA256(password, salt, iterations, 32 bytes)
 *   ClientKey       = HMAC(SaltedPassword, "Client Key")     StoredKey = SHA-256(ClientKey)
 *   ServerKey       = HMAC(SaltedPassword, "Server Key")
 *   AuthMessage     = "lutra-scram-1" | user | server nonce | client nonce | salt | iterations
 *                     (each field length-prefixed, so no two transcripts read alike)
 *   ClientProof     = ClientKey XOR HMAC(StoredKey, AuthMessage)      client -> router
 *   ServerSignature = HMAC(ServerKey, AuthMessage)                     router -> client
 * </pre>
 * The router keeps StoredKey and ServerKey only: neither logs in by itself (a proof needs
 * ClientKey), and guessing the password from them costs the KDF's iterations per guess. Both
 * nonces enter the transcript, so a proof is good for one login only.
 */
public final class Scram {
    /** OWASP's 2023 figure for PBKDF2-HMAC-SHA256; about 0.3 s on one core of a small server. */
    public static final int DEFAULT_ITERATIONS = 600_000;
    /** Fewer rounds than this a client refuses: a fake router could otherwise make proofs cheap to crack. */
    public static final int MIN_ITERATIONS = 4_096;
    public static final int SALT_BYTES = 16;
    public static final int MIN_CLIENT_NONCE = 16;
    public static final int MAX_CLIENT_NONCE = 64;
    /** Prefix of the stored form: {@code pbkdf2-sha256$iterations$salt$StoredKey$ServerKey}, base64. */
    public static final String SCHEME = "pbkdf2-sha256";
    private static final SecureRandom RANDOM = new SecureRandom();

    private Scram() {}

    /** What the router stores for a user. */
    public record StoredSecret(byte[] salt, int iterations, byte[] storedKey, byte[] serverKey) {
        public static StoredSecret derive(String password, int iterations) {
            byte[] salt = new byte[SALT_BYTES];
            RANDOM.nextBytes(salt);
            return fromSalted(salt, iterations, saltedPassword(password, salt, iterations));
        }

        static StoredSecret fromSalted(byte[] salt, int iterations, byte[] salted) {
            return new StoredSecret(salt, iterations, sha256(hmac(salted, "Client Key")), hmac(salted, "Server Key"));
        }

        /**
         * Whether {@code password} is the one these keys were derived from: what a server that is sent the password
         * itself (MySQL's caching_sha2_password full authentication, over TLS or RSA) checks; costs the iterations.
         */
        public boolean matches(String password) {
            byte[] key = sha256(hmac(saltedPassword(password, salt, iterations), "Client Key"));
            return java.security.MessageDigest.isEqual(key, storedKey);
        }

        /** The form for a config file: {@code pbkdf2-sha256$600000$salt$StoredKey$ServerKey}. */
        public String encode() {
            var b64 = Base64.getEncoder().withoutPadding();
            return SCHEME + "$" + iterations + "$" + b64.encodeToString(salt) + "$" + b64.encodeToString(storedKey)
                    + "$" + b64.encodeToString(serverKey);
        }

        /** @throws IllegalArgumentException naming what is wrong, never echoing the value */
        public static StoredSecret parse(String encoded) {
            String[] parts = encoded.split("\\$", -1);
            if (parts.length != 5 || !parts[0].equals(SCHEME)) {
                throw new IllegalArgumentException("expected " + SCHEME + "$iterations$salt$storedkey$serverkey");
            }
            try {
                int iterations = Integer.parseInt(parts[1]);
                var b64 = Base64.getDecoder();
                var secret = new StoredSecret(b64.decode(parts[2]), iterations, b64.decode(parts[3]), b64.decode(parts[4]));
                if (iterations < MIN_ITERATIONS) throw new IllegalArgumentException("fewer than " + MIN_ITERATIONS + " iterations");
                if (secret.salt.length < 8 || secret.storedKey.length != 32 || secret.serverKey.length != 32) {
                    throw new IllegalArgumentException("a salt of at least 8 bytes and two 32-byte keys are expected");
                }
                return secret;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("the iteration count is not a number");
            }
        }
    }

    public static byte[] newClientNonce() {
        byte[] nonce = new byte[32];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    public static byte[] saltedPassword(String password, byte[] salt, int iterations) {
        try {
            var spec = new PBEKeySpec(password.toCharArray(), salt, iterations, 256);
            try {
                return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
            } finally {
                spec.clearPassword();
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 is missing from this JVM", e);
        }
    }

    public static byte[] authMessage(String user, byte[] serverNonce, byte[] clientNonce, byte[] salt, int iterations) {
        var out = new ByteArrayOutputStream();
        for (byte[] field : new byte[][] {"lutra-scram-1".getBytes(StandardCharsets.US_ASCII), user.getBytes(StandardCharsets.UTF_8),
                serverNonce, clientNonce, salt, Integer.toString(iterations).getBytes(StandardCharsets.US_ASCII)}) {
            out.write(field.length >>> 8);
            out.write(field.length);
            out.writeBytes(field);
        }
        return out.toByteArray();
    }

    /** The client's side: its proof, from the salted password it derived. */
    public static byte[] clientProof(byte[] saltedPassword, byte[] authMessage) {
        byte[] clientKey = hmac(saltedPassword, "Client Key");
        return xor(clientKey, hmac(sha256(clientKey), authMessage));
    }

    /** The router's side: does {@code proof} come from someone who knows the password? Constant time. */
    public static boolean verifyClientProof(StoredSecret secret, byte[] authMessage, byte[] proof) {
        if (proof.length != 32) return false;
        byte[] clientKey = xor(proof, hmac(secret.storedKey(), authMessage));
        return MessageDigest.isEqual(sha256(clientKey), secret.storedKey());
    }

    public static byte[] serverSignature(byte[] serverKey, byte[] authMessage) {
        return hmac(serverKey, authMessage);
    }

    /** The client's check of the router's signature, from the salted password it derived. */
    public static boolean verifyServerSignature(byte[] saltedPassword, byte[] authMessage, byte[] signature) {
        return MessageDigest.isEqual(hmac(hmac(saltedPassword, "Server Key"), authMessage), signature);
    }

    private static byte[] hmac(byte[] key, String text) {
        return hmac(key, text.getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        try {
            var mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static byte[] xor(byte[] a, byte[] b) {
        byte[] out = new byte[a.length];
        for (int i = 0; i < a.length; i++) out[i] = (byte) (a[i] ^ b[i]);
        return out;
    }
}
