package org.lutra.shards;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The TLS an embedded MariaDB offers: a certificate and its key, PEM files. Given, not the one
 * MariaDB 11.4 makes itself at start when none is: that one takes seconds to make and stays in
 * the server's memory, so no client can be given it to trust.
 */
public record ServerTls(Path certificate, Path key) {
    public ServerTls {
        certificate = Objects.requireNonNull(certificate, "certificate").toAbsolutePath(); // the server runs in a directory of its own
        key = Objects.requireNonNull(key, "key").toAbsolutePath();
    }
}
