package org.lutra.jdbc;

import org.lutra.protocol.Scram;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The salted passwords this JVM derived, by (password, salt, iterations): PBKDF2 at the
 * router's 600,000 rounds costs about 0.3 s of CPU, which a connection pool should pay once, not
 * per connection. The salted password is as good as the password for logging in to that router,
 * which this JVM holds anyway; the cache keeps a digest of the password, not the password.
 */
final class SaltedPasswords {
    private static final int MAX_ENTRIES = 64;
    private static final Map<String, byte[]> CACHE = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, byte[]> eldest) {
            return size() > MAX_ENTRIES;
        }
    };

    private SaltedPasswords() {}

    static byte[] get(String password, byte[] salt, int iterations) {
        String key = key(password, salt, iterations);
        synchronized (CACHE) {
            byte[] cached = CACHE.get(key);
            if (cached != null) return cached;
        }
        byte[] salted = Scram.saltedPassword(password, salt, iterations); // outside the lock: slow on purpose
        synchronized (CACHE) {
            CACHE.put(key, salted);
        }
        return salted;
    }

    private static String key(String password, byte[] salt, int iterations) {
        try {
            var digest = MessageDigest.getInstance("SHA-256");
            digest.update(salt);
            digest.update((byte) 0);
            digest.update(Integer.toString(iterations).getBytes(StandardCharsets.US_ASCII));
            digest.update((byte) 0);
            return HexFormat.of().formatHex(digest.digest(password.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
