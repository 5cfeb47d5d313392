package org.lutra.server.mysql;

import org.lutra.server.Credentials;

import javax.crypto.Cipher;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.ConcurrentHashMap;

/**
 * MySQL's two password plugins against the router's users ({@link Credentials}).
 *
 * <ul>
 *   <li>{@code mysql_native_password}: the client proves SHA1(password) by
 *       {@code SHA1(password) XOR SHA1(scramble + SHA1(SHA1(password)))}; the router can check it
 *       only where it knows SHA1(SHA1(password)), i.e. for users with a plain (development) password.</li>
 *   <li>{@code caching_sha2_password}: the fast path proves SHA256(password) by
 *       {@code SHA256(password) XOR SHA256(SHA256(SHA256(password)) + scramble)} against the
 *       server's cache of SHA256(SHA256(password)); without a cache entry the client sends the
 *       password itself ("full authentication"), over TLS or RSA-OAEP encrypted with the router's
 *       public key (XORed with the scramble first), and the router checks it against the user's
 *       PBKDF2 keys and fills the cache, as MySQL's server does. The cache lives in memory only.</li>
 * </ul>
 */
final class MysqlPasswords {
    static final String NATIVE = "mysql_native_password";
    static final String CACHING_SHA2 = "caching_sha2_password";

    private final Credentials credentials;
    /** SHA256(SHA256(password)) per user, from the config's plain passwords and from full authentications. */
    private final ConcurrentHashMap<String, byte[]> sha2Cache = new ConcurrentHashMap<>();
    /** SHA1(SHA1(password)) per user with a plain password. */
    private final ConcurrentHashMap<String, byte[]> nativeHashes = new ConcurrentHashMap<>();
    private final KeyPair rsa;
    private final byte[] publicKeyPem;
    private static final SecureRandom RANDOM = new SecureRandom();

    MysqlPasswords(Credentials credentials) {
        this.credentials = credentials;
        for (var user : credentials.plainPasswords().entrySet()) {
            byte[] password = user.getValue().getBytes(StandardCharsets.UTF_8);
            nativeHashes.put(user.getKey(), sha1(sha1(password)));
            sha2Cache.put(user.getKey(), sha256(sha256(password)));
        }
        try {
            var generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            this.rsa = generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        String pem = "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(rsa.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n";
        this.publicKeyPem = pem.getBytes(StandardCharsets.US_ASCII);
    }

    /** 20 random scramble bytes, none of them NUL (the greeting ends its second part with one). */
    static byte[] scramble() {
        byte[] s = new byte[20];
        for (int i = 0; i < s.length; i++) s[i] = (byte) (1 + RANDOM.nextInt(127));
        return s;
    }

    boolean knowsNative(String user) {
        return nativeHashes.containsKey(user);
    }

    boolean verifyNative(String user, byte[] scramble, byte[] response) {
        byte[] stored = nativeHashes.get(user);
        if (stored == null) return false;
        if (response.length == 0) return MessageDigest.isEqual(stored, sha1(sha1(new byte[0])));
        if (response.length != 20) return false;
        byte[] mask = sha1(concat(scramble, stored));
        byte[] candidate = xor(response, mask);
        return MessageDigest.isEqual(sha1(candidate), stored);
    }

    /** The fast path: true when the cache holds the user and the response proves its password. */
    boolean verifySha2Fast(String user, byte[] scramble, byte[] response) {
        byte[] stored = sha2Cache.get(user);
        if (stored == null || response.length != 32) return false;
        byte[] mask = sha256(concat(stored, scramble));
        byte[] candidate = xor(response, mask); // SHA256(password), if the client knows it
        return MessageDigest.isEqual(sha256(candidate), stored);
    }

    /** Whether the fast path can decide for this user (a cache entry exists). */
    boolean cached(String user) {
        return sha2Cache.containsKey(user);
    }

    /** Full authentication: checks the password itself against the user's keys; on success the cache learns it. */
    boolean verifyPassword(String user, byte[] password) {
        String text = new String(password, StandardCharsets.UTF_8);
        if (!credentials.verifyPassword(user, text)) return false;
        sha2Cache.put(user, sha256(sha256(password)));
        return true;
    }

    byte[] publicKeyPem() {
        return publicKeyPem;
    }

    /** The password a client sent RSA-encrypted (OAEP, its bytes XORed with the scramble, NUL-terminated); null if it does not decrypt. */
    byte[] decryptPassword(byte[] encrypted, byte[] scramble) {
        try {
            var cipher = Cipher.getInstance("RSA/ECB/OAEPWithSHA-1AndMGF1Padding");
            cipher.init(Cipher.DECRYPT_MODE, rsa.getPrivate());
            byte[] plain = cipher.doFinal(encrypted);
            for (int i = 0; i < plain.length; i++) plain[i] ^= scramble[i % scramble.length];
            return withoutNul(plain);
        } catch (GeneralSecurityException e) {
            return null;
        }
    }

    /** A password sent in clear over TLS: the bytes before its terminating NUL. */
    static byte[] withoutNul(byte[] b) {
        int n = b.length;
        while (n > 0 && b[n - 1] == 0) n--;
        return java.util.Arrays.copyOf(b, n);
    }

    static byte[] sha1(byte[] b) {
        return digest("SHA-1", b);
    }

    static byte[] sha256(byte[] b) {
        return digest("SHA-256", b);
    }

    private static byte[] digest(String algorithm, byte[] b) {
        try {
            return MessageDigest.getInstance(algorithm).digest(b);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    static byte[] xor(byte[] a, byte[] b) {
        byte[] c = new byte[a.length];
        for (int i = 0; i < a.length; i++) c[i] = (byte) (a[i] ^ b[i % b.length]);
        return c;
    }
}
