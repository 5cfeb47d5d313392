package org.lutra.jdbc;

import java.io.IOException;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * The entry point for {@code jdbc:lutra://} URLs. Registered with DriverManager both by
 * META-INF/services (JDBC 4 auto-loading) and by the static initializer (Class.forName users).
 */
public final class LutraDriver implements Driver {
    public static final String VERSION = "0.1.0";
    static final int MAJOR_VERSION = 0;
    static final int MINOR_VERSION = 1;

    static {
        try {
            DriverManager.registerDriver(new LutraDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null; // the Driver contract: another driver's URL is not an error
        }
        return connect(JdbcUrl.parse(url, info));
    }

    /**
     * Tries the hosts in {@link JdbcUrl#connectOrder()}. Only failures to reach a router move on to the next host; an
     * answer from a router (bad password, unknown database) is final and thrown as it came.
     */
    static LutraConnection connect(JdbcUrl url) throws SQLException {
        var failures = new StringBuilder();
        SQLException first = null;
        SQLException rejected = null; // a router that refused the connection (08004: too many connections)
        Tls tls = Tls.of(url);
        for (JdbcUrl.Host host : url.connectOrder()) {
            Exception failure;
            try {
                var session = Session.open(host, tls, url.connectTimeoutMs(), url.socketTimeoutMs(), url.maxFrameBytes());
                session.login(url.user(), url.password(), url.database(), loginTimeout(url));
                return new LutraConnection(session, url);
            } catch (IOException e) {
                failure = e;
            } catch (SQLException e) {
                if (!e.getSQLState().startsWith("08")) {
                    throw e; // the router answered (28000, unknown database, ...): final
                }
                failure = e; // the handshake broke or timed out, or the router is full: like an unreachable host
                if ("08004".equals(e.getSQLState()) && rejected == null) rejected = e;
            }
            failures.append(failures.isEmpty() ? "" : "; ").append(host).append(": ").append(failure.getMessage());
            var wrapped = Errors.of("cannot connect to Lutra router " + host + ": " + failure.getMessage(),
                    Errors.UNABLE_TO_CONNECT, 0, failure);
            if (first == null) {
                first = wrapped;
            } else {
                first.addSuppressed(wrapped);
            }
        }
        // every router full (or the others unreachable): the refusal's state and code, as MySQL's 1040 reaches a client
        var e = rejected != null
                ? Errors.of("could not connect to any Lutra router of " + url + " (" + failures + ")", rejected.getSQLState(), rejected.getErrorCode(), null)
                : Errors.of("could not connect to any Lutra router of " + url + " (" + failures + ")", Errors.UNABLE_TO_CONNECT);
        if (first != null) {
            e.initCause(first.getCause()); // the first host's failure; the others are suppressed
            for (Throwable t : first.getSuppressed()) {
                e.addSuppressed(t);
            }
        }
        throw e;
    }

    /** Waits for the handshake at most as long as for the connect, so a silent peer cannot hang us. */
    private static int loginTimeout(JdbcUrl url) throws SQLException {
        int connect = url.connectTimeoutMs();
        int socket = url.socketTimeoutMs();
        if (connect == 0) {
            return socket;
        }
        return socket == 0 ? connect : Math.min(connect, socket);
    }

    @Override
    public boolean acceptsURL(String url) {
        return JdbcUrl.accepts(url);
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) throws SQLException {
        var merged = acceptsURL(url) ? JdbcUrl.parse(url, info).options() : (info == null ? new Properties() : info);
        var user = property(merged, "user", "user name known to the Lutra router", true);
        var password = property(merged, "password", "password; only a salted SCRAM proof of it is sent", true);
        var connect = property(merged, "connectTimeout", "TCP connect and login timeout in ms (0 = none)", false);
        var socket = property(merged, "socketTimeout", "read timeout in ms for every answer (0 = none)", false);
        var frame = property(merged, "maxFrameBytes", "largest frame accepted from the router", false);
        var ssl = property(merged, "ssl", "true: TLS to the router (its port must have tls configured); default false", false);
        ssl.choices = new String[] {"false", "true"};
        var trustStore = property(merged, "sslTrustStore", "PKCS12/JKS file of the certificates to trust (default: the JVM's)", false);
        var trustStorePassword = property(merged, "sslTrustStorePassword", "password of sslTrustStore, if it has one", false);
        var caCert = property(merged, "sslCaCert", "PEM file of the certificates to trust, instead of sslTrustStore", false);
        var verifyHostname = property(merged, "sslVerifyHostname", "check that the router's certificate names the host; default true", false);
        verifyHostname.choices = new String[] {"true", "false"};
        return new DriverPropertyInfo[] {user, password, connect, socket, frame, ssl, trustStore, trustStorePassword, caCert, verifyHostname};
    }

    private static DriverPropertyInfo property(Properties p, String name, String description, boolean required) {
        var info = new DriverPropertyInfo(name, p.getProperty(name));
        info.description = description;
        info.required = required;
        return info;
    }

    @Override
    public int getMajorVersion() {
        return MAJOR_VERSION;
    }

    @Override
    public int getMinorVersion() {
        return MINOR_VERSION;
    }

    /** Not yet: transactions and much of DatabaseMetaData are missing. */
    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw Errors.unsupported("Driver.getParentLogger (the driver does not log)");
    }
}
