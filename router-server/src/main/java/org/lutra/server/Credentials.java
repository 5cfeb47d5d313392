package org.lutra.server;

import org.lutra.config.RouterConfig;
import org.lutra.protocol.Auth;
import org.lutra.protocol.Scram;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The users that may log in and what the router keeps of their passwords: the SCRAM keys
 * ({@link Scram.StoredSecret}), derived at start for a plain development password.
 */
public final class Credentials {
    /** Rounds for plain (development) passwords: the config file holds the password itself, so more would only slow the start. */
    static final int PLAIN_PASSWORD_ITERATIONS = Scram.MIN_ITERATIONS;

    /** @param legacyKey protocol 1's key, SHA-256(password): kept only for plain passwords, null otherwise */
    record Account(String name, Scram.StoredSecret secret, byte[] legacyKey) {}

    private final Map<String, Account> accounts = new HashMap<>();
    /** The plain (development) passwords of the config, by user: the MySQL listener derives its plugins' hashes from them. */
    private final Map<String, String> plain = new HashMap<>();
    /** Makes up salts for unknown names: the same name always gets the same salt, which no one can predict. */
    private final byte[] unknownSaltKey = new byte[32];
    private final int unknownIterations;

    public Credentials(List<RouterConfig.User> users) {
        new SecureRandom().nextBytes(unknownSaltKey);
        for (var u : users) {
            var secret = u.passwordHash() != null ? Scram.StoredSecret.parse(u.passwordHash())
                    : Scram.StoredSecret.derive(u.password(), PLAIN_PASSWORD_ITERATIONS);
            if (u.passwordHash() == null) plain.put(u.name(), u.password());
            accounts.put(u.name(), new Account(u.name(), secret, u.passwordHash() != null ? null : Auth.passwordKey(u.password())));
        }
        // an unknown name is answered like the configured users are, so the answer does not tell it apart
        unknownIterations = accounts.values().stream().mapToInt(a -> a.secret().iterations()).max().orElse(Scram.DEFAULT_ITERATIONS);
    }

    /** The account of {@code name}, or null. */
    Account account(String name) {
        return accounts.get(name);
    }

    /** The users with a plain password in the config, and their passwords. */
    public Map<String, String> plainPasswords() {
        return Map.copyOf(plain);
    }

    /**
     * Whether {@code password} is {@code name}'s, for a protocol that is sent the password itself (MySQL's
     * caching_sha2_password full authentication); a password_hash user costs its PBKDF2 iterations. False for
     * an unknown user, after the same work as for a known one.
     */
    public boolean verifyPassword(String name, String password) {
        var account = accounts.get(name);
        if (account == null) {
            challengeFor(name); // an unknown name costs about what a known one does
            Scram.StoredSecret.derive(password, unknownIterations);
            return false;
        }
        String known = plain.get(name);
        if (known != null) {
            return java.security.MessageDigest.isEqual(known.getBytes(StandardCharsets.UTF_8), password.getBytes(StandardCharsets.UTF_8));
        }
        return account.secret().matches(password);
    }

    /** The salt and iterations to send for {@code name}: its own, or made-up ones that look alike. */
    Scram.StoredSecret challengeFor(String name) {
        var account = accounts.get(name);
        if (account != null) return account.secret();
        byte[] salt = Arrays.copyOf(hmac(unknownSaltKey, name.getBytes(StandardCharsets.UTF_8)), Scram.SALT_BYTES);
        return new Scram.StoredSecret(salt, unknownIterations, new byte[32], new byte[32]);
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        try {
            var mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
