package org.lutra.jdbc;

import org.junit.jupiter.api.Test;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JdbcUrlTest {
    @Test
    void parsesHostsDatabaseAndOptions() throws SQLException {
        var url = JdbcUrl.parse("jdbc:lutra://r1:6000,r2/shop?user=app&password=p%26w%3D&connectTimeout=500&socketTimeout=9000", null);
        assertEquals(List.of(new JdbcUrl.Host("r1", 6000), new JdbcUrl.Host("r2", JdbcUrl.DEFAULT_PORT)), url.hosts());
        assertEquals("shop", url.database());
        assertEquals("app", url.user());
        assertEquals("p&w=", url.password());
        assertEquals(500, url.connectTimeoutMs());
        assertEquals(9000, url.socketTimeoutMs());
    }

    @Test
    void defaultsAndIpv6() throws SQLException {
        var url = JdbcUrl.parse("jdbc:lutra://[::1]:7000,[fe80::2]", null);
        assertEquals(List.of(new JdbcUrl.Host("::1", 7000), new JdbcUrl.Host("fe80::2", 5307)), url.hosts());
        assertEquals("", url.database());
        assertEquals("", url.user());
        assertEquals(JdbcUrl.DEFAULT_CONNECT_TIMEOUT_MS, url.connectTimeoutMs());
        assertEquals(0, url.socketTimeoutMs());
        assertEquals("[::1]:7000", url.hosts().getFirst().toString());
    }

    @Test
    void propertiesAreDefaultsAndTheUrlWins() throws SQLException {
        var info = new Properties();
        info.setProperty("user", "fromProps");
        info.setProperty("password", "pw");
        var url = JdbcUrl.parse("jdbc:lutra://h/db?user=fromUrl", info);
        assertEquals("fromUrl", url.user());
        assertEquals("pw", url.password());
    }

    @Test
    void badUrlsAre08001WithAReason() {
        for (String bad : List.of("jdbc:lutra:h/db", "jdbc:lutra://h:port/db", "jdbc:lutra://h:0/db", "jdbc:lutra://h:70000/db",
                "jdbc:lutra://,h/db", "jdbc:lutra://[::1/db", "jdbc:lutra://h/db?connectTimeout=abc",
                "jdbc:lutra://h/db?socketTimeout=-1", "jdbc:lutra://h/a/b", "jdbc:mysql://h/db")) {
            var e = assertThrows(SQLException.class, () -> JdbcUrl.parse(bad, null), bad);
            assertEquals("08001", e.getSQLState(), bad);
            assertTrue(e.getMessage().startsWith("invalid Lutra URL"), e.getMessage());
        }
    }

    @Test
    void passwordsStayOutOfMessages() {
        var e = assertThrows(SQLException.class, () -> JdbcUrl.parse("jdbc:lutra://h:x/db?user=a&password=hunter2", null));
        assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
        assertEquals("jdbc:lutra://h/db?password=***&user=a", JdbcUrl.redact("jdbc:lutra://h/db?password=hunter2&user=a"));
    }

    @Test
    void driverAcceptsOnlyLutraUrlsAndIsRegistered() throws SQLException {
        var driver = new LutraDriver();
        assertTrue(driver.acceptsURL("jdbc:lutra://h/db"));
        assertFalse(driver.acceptsURL("jdbc:mysql://h/db"));
        assertFalse(driver.acceptsURL(null));
        assertNull(driver.connect("jdbc:mysql://h/db", new Properties()));
        assertInstanceOf(LutraDriver.class, DriverManager.getDriver("jdbc:lutra://h/db"));
        assertEquals(10, driver.getPropertyInfo("jdbc:lutra://h/db?user=u", null).length);
        assertEquals("u", driver.getPropertyInfo("jdbc:lutra://h/db?user=u", null)[0].value);
    }

    @Test
    void tlsOptionsAreCheckedAtParseTimeAndTheirPasswordsRedacted() throws Exception {
        assertEquals("08001", assertThrows(java.sql.SQLException.class, () -> JdbcUrl.parse("jdbc:lutra://h/db?ssl=maybe", null)).getSQLState());
        var url = JdbcUrl.parse("jdbc:lutra://h/db?ssl=TRUE&sslTrustStore=/t.p12&sslTrustStorePassword=hunter2", null);
        assertTrue(url.booleanOption("ssl", false));
        assertTrue(url.booleanOption("sslVerifyHostname", true));
        assertFalse(url.toString().contains("hunter2"), url.toString());
        assertNull(Tls.of(JdbcUrl.parse("jdbc:lutra://h/db", null)), "ssl defaults to false");
        var missing = assertThrows(java.sql.SQLException.class, () -> Tls.of(JdbcUrl.parse("jdbc:lutra://h/db?ssl=true&sslTrustStore=/no/such.p12", null)));
        assertEquals("08001", missing.getSQLState());
    }

    @Test
    void routersInOrderOrLoadBalanced() throws SQLException {
        var hosts = List.of(new JdbcUrl.Host("a", 1), new JdbcUrl.Host("b", 2), new JdbcUrl.Host("c", 3));
        assertEquals(hosts, JdbcUrl.parse("jdbc:lutra://a:1,b:2,c:3/db", null).connectOrder(), "default: in order, the later ones for failover");
        assertEquals(hosts, JdbcUrl.parse("jdbc:lutra://a:1,b:2,c:3/db?loadBalance=false", null).connectOrder());
        var balanced = JdbcUrl.parse("jdbc:lutra://a:1,b:2,c:3/db?loadBalance=true", null);
        var firsts = new java.util.HashSet<JdbcUrl.Host>();
        for (int i = 0; i < 200; i++) {
            var order = balanced.connectOrder();
            assertEquals(3, order.size());
            assertEquals(new java.util.HashSet<>(hosts), new java.util.HashSet<>(order), "every router, each once");
            int first = hosts.indexOf(order.getFirst());
            assertEquals(List.of(hosts.get(first), hosts.get((first + 1) % 3), hosts.get((first + 2) % 3)), order, "round the list");
            firsts.add(order.getFirst());
        }
        assertEquals(3, firsts.size(), "connections start at every router");
        assertThrows(SQLException.class, () -> JdbcUrl.parse("jdbc:lutra://a:1/db?loadBalance=maybe", null));
    }
}
