package org.lutra.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.exec.RouterMetrics;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Without http: in the config nothing is kept: the engine reports to RouterMetrics.NONE, no HTTP
 * listener opens, and SHOW LUTRA HOT KEYS is refused saying why; SHOW LUTRA STATUS answers as ever.
 */
@ExtendWith(EmbeddedShardsExtension.class)
class MonitoringOffIT {
    @Test
    void withoutAnHttpSectionTheEngineReportsToNothingAndHotKeysAreRefused(Shards shards) throws Exception {
        try (var router = new OperatedRouter(shards, "offit", "CREATE TABLE kv (k INT PRIMARY KEY, v INT) PARTITION BY lookup(k) ON (p0, p1, p2, p3);",
                new RouterConfig.Transactions("offit", 5, 0, 0), url -> url, config -> config)) {
            assertSame(RouterMetrics.NONE, router.operations.router().metrics());
            assertEquals(-1, router.operations.httpPort());
            try (var c = router.connect(); var st = c.createStatement()) {
                st.executeUpdate("INSERT INTO kv VALUES (1, 1)");
                try (var rs = st.executeQuery("SELECT v FROM kv WHERE k = 1")) {
                    assertTrue(rs.next());
                }
                var e = assertThrows(SQLException.class, () -> st.executeQuery("SHOW LUTRA HOT KEYS"));
                assertEquals("HY000", e.getSQLState());
                assertTrue(e.getMessage().contains("http:"), e.getMessage());
                try (var rs = st.executeQuery("SHOW LUTRA STATUS")) {
                    assertTrue(rs.next());
                }
            }
        }
    }
}
