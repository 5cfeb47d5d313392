package org.lutra.server.mysql;

import org.lutra.backend.MysqlFields;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * The character set a client asked for in its handshake (its collation id): statements arrive in
 * it, and results are sent in it, as a server's character_set_client and character_set_results
 * would be. A collation the router cannot map to a Java character set is taken as utf8mb4.
 */
record ClientCharset(int collation, Charset charset, int maxBytesPerChar) {
    static final ClientCharset UTF8MB4 = new ClientCharset(MysqlWire.UTF8MB4_GENERAL_CI, StandardCharsets.UTF_8, 4);

    /**
     * {@code text} in this character set. utf8mb3 holds no character beyond the Basic Multilingual Plane: a server
     * sends '?' for each (measured: an emoji to the mariadb client, whose default is utf8mb3); Java's encoder does the
     * same for characters other character sets cannot hold.
     */
    byte[] encode(String text) {
        if (maxBytesPerChar == 3 && charset.equals(StandardCharsets.UTF_8) && text.codePoints().anyMatch(cp -> cp > 0xFFFF)) {
            var sb = new StringBuilder(text.length());
            text.codePoints().forEach(cp -> sb.append(cp > 0xFFFF ? "?" : Character.toString(cp)));
            text = sb.toString();
        }
        return text.getBytes(charset);
    }

    static ClientCharset of(int collation) {
        if (collation == 0 || collation == MysqlWire.BINARY_COLLATION) return UTF8MB4;
        Charset charset = MysqlFields.javaCharset(collation);
        int max = MysqlFields.maxBytesPerChar(collation);
        if (charset.equals(StandardCharsets.UTF_8) && max < 3) return UTF8MB4; // a collation Connector/J does not know
        return new ClientCharset(collation, charset, max);
    }
}
