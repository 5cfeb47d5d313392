package org.lutra.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Certificates for the TLS tests, made with the JDK's own keytool (no openssl on a fresh machine). */
final class TestCertificates {
    private TestCertificates() {}

    static void keytool(String... args) throws IOException, InterruptedException {
        var command = new ArrayList<String>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        var process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertEquals(0, process.waitFor(), "keytool " + String.join(" ", args) + ": " + output);
    }

    /** The private key of {@code alias} in {@code keystore} as an unencrypted PKCS8 PEM file, as `openssl pkcs8 -topk8 -nocrypt` writes it. */
    static void writePemKey(Path keystore, String password, String alias, Path file) throws Exception {
        var store = KeyStore.getInstance(keystore.toFile(), password.toCharArray());
        var key = (PrivateKey) store.getKey(alias, password.toCharArray());
        Files.writeString(file, "-----BEGIN PRIVATE KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(key.getEncoded())
                + "\n-----END PRIVATE KEY-----\n");
    }
}
