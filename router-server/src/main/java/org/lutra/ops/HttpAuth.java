package org.lutra.ops;

import org.lutra.config.RouterConfig;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;

/**
 * The listener's credentials ({@code http.bearer_token}, or {@code http.user} with {@code http.password}
 * for basic authentication): either one lets a request through; none configured lets every request
 * through. Compared in constant time. Over plain HTTP the credentials cross in clear: configure
 * {@code http.tls} where the network is not trusted.
 */
final class HttpAuth {
    private final byte[] bearer;
    private final byte[] basic;

    HttpAuth(RouterConfig.Http http) {
        this.bearer = http.bearerToken() == null ? null : ("Bearer " + http.bearerToken()).getBytes(StandardCharsets.UTF_8);
        this.basic = http.user() == null ? null : ("Basic " + Base64.getEncoder().encodeToString((http.user() + ":" + http.password())
                .getBytes(StandardCharsets.UTF_8))).getBytes(StandardCharsets.UTF_8);
    }

    /** Whether a request with this Authorization header (null: none) may be answered. */
    boolean allows(String authorization) {
        if (bearer == null && basic == null) return true;
        if (authorization == null) return false;
        byte[] given = authorization.strip().getBytes(StandardCharsets.UTF_8);
        boolean ok = false;
        if (bearer != null) ok |= MessageDigest.isEqual(given, bearer);
        if (basic != null) ok |= MessageDigest.isEqual(given, basic);
        return ok;
    }

    /** The WWW-Authenticate header of a 401: the schemes configured. */
    String challenge() {
        if (basic != null) return "Basic realm=\"lutra\", charset=\"UTF-8\"";
        return "Bearer realm=\"lutra\"";
    }
}
