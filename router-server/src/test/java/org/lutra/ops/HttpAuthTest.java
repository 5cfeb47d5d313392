package org.lutra.ops;

import org.junit.jupiter.api.Test;
import org.lutra.config.RouterConfig;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import static org.junit.jupiter.api.Assertions.*;

class HttpAuthTest {
    static String basic(String userAndPassword) {
        return "Basic " + Base64.getEncoder().encodeToString(userAndPassword.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void withoutCredentialsConfiguredEveryRequestPasses() {
        var auth = new HttpAuth(new RouterConfig.Http("127.0.0.1:0"));
        assertTrue(auth.allows(null));
        assertTrue(auth.allows("Bearer anything"));
    }

    @Test
    void aBearerTokenOrABasicLoginMustMatchExactly() {
        var auth = new HttpAuth(new RouterConfig.Http("127.0.0.1:0", null, "tok", "ops", "pw", false, null, null));
        assertFalse(auth.allows(null));
        assertFalse(auth.allows(""));
        assertFalse(auth.allows("Bearer to"));
        assertFalse(auth.allows("Bearer tokk"));
        assertFalse(auth.allows("bearer tok"));
        assertFalse(auth.allows(basic("ops:p")));
        assertFalse(auth.allows(basic("op:pw")));
        assertTrue(auth.allows("Bearer tok"));
        assertTrue(auth.allows(basic("ops:pw")));
        assertTrue(auth.challenge().startsWith("Basic"));
    }

    @Test
    void theConfigRefusesHalfALoginAndAnEmptyToken() {
        assertThrows(IllegalArgumentException.class, () -> new RouterConfig.Http("127.0.0.1:0", null, null, "ops", null, false, null, null));
        assertThrows(IllegalArgumentException.class, () -> new RouterConfig.Http("127.0.0.1:0", null, " ", null, null, false, null, null));
        assertThrows(IllegalArgumentException.class, () -> new RouterConfig.Http("9307"));
        assertThrows(IllegalArgumentException.class, () -> new RouterConfig.Http("127.0.0.1:0", null, null, null, null, false, -1, null));
    }
}
