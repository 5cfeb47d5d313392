package org.lutra.jdbc;

import org.lutra.protocol.Frames;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * A parsed {@code jdbc:lutra://host:port[,host2:port2]/database?key=value&...} URL.
 *
 * <p>Options come from the Properties given to connect and from the URL's query; the URL wins,
 * as in Connector/J and pgjdbc, so a URL copied from a config file means the same everywhere.
 * Hosts are tried in the order written.
 */
record JdbcUrl(String url, List<Host> hosts, String database, Properties options) {
    static final String PREFIX = "jdbc:lutra:";
    static final int DEFAULT_PORT = 5307;
    static final int DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

    record Host(String name, int port) {
        @Override
        public String toString() {
            return (name.indexOf(':') >= 0 ? "[" + name + "]" : name) + ":" + port;
        }
    }

    /**
     * The routers in the order a new connection tries them: as written (the first live one takes
     * every connection, the others are its failover), or with {@code loadBalance=true} from a random
     * one on, round the list (connections spread over the live routers; a dead one is passed over).
     */
    List<Host> connectOrder() throws SQLException {
        if (hosts.size() < 2 || !booleanOption("loadBalance", false)) return hosts;
        int start = java.util.concurrent.ThreadLocalRandom.current().nextInt(hosts.size());
        var order = new ArrayList<Host>(hosts.size());
        for (int i = 0; i < hosts.size(); i++) order.add(hosts.get((start + i) % hosts.size()));
        return order;
    }

    static boolean accepts(String url) {
        return url != null && url.startsWith(PREFIX);
    }

    static JdbcUrl parse(String url, Properties info) throws SQLException {
        if (!accepts(url)) {
            throw bad(url, "it does not start with " + PREFIX + "//");
        }
        String rest = url.substring(PREFIX.length());
        if (!rest.startsWith("//")) {
            throw bad(url, "expected // after " + PREFIX);
        }
        rest = rest.substring(2);
        String query = "";
        int q = rest.indexOf('?');
        if (q >= 0) {
            query = rest.substring(q + 1);
            rest = rest.substring(0, q);
        }
        int slash = rest.indexOf('/');
        String authority = slash >= 0 ? rest.substring(0, slash) : rest;
        String database = slash >= 0 ? decode(url, rest.substring(slash + 1)) : "";
        if (database.contains("/")) {
            throw bad(url, "the database name may not contain '/'");
        }
        var hosts = new ArrayList<Host>();
        for (String part : authority.split(",", -1)) {
            hosts.add(parseHost(url, part.trim()));
        }
        var options = new Properties();
        if (info != null) {
            info.forEach((k, v) -> options.setProperty(String.valueOf(k), String.valueOf(v)));
        }
        if (!query.isEmpty()) {
            for (String pair : query.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String key = decode(url, eq >= 0 ? pair.substring(0, eq) : pair);
                String value = eq >= 0 ? decode(url, pair.substring(eq + 1)) : "";
                options.setProperty(key, value);
            }
        }
        var parsed = new JdbcUrl(url, List.copyOf(hosts), database, options);
        // Fail on a bad number now, not at the first socket call.
        parsed.connectTimeoutMs();
        parsed.socketTimeoutMs();
        parsed.maxFrameBytes();
        parsed.booleanOption("ssl", false);
        parsed.booleanOption("sslVerifyHostname", true);
        parsed.booleanOption("loadBalance", false);
        return parsed;
    }

    private static Host parseHost(String url, String part) throws SQLException {
        if (part.isEmpty()) {
            throw bad(url, "a host is missing");
        }
        String name;
        String port = null;
        if (part.startsWith("[")) { // IPv6 literal: [::1]:5307
            int close = part.indexOf(']');
            if (close < 0) {
                throw bad(url, "unclosed '[' in host " + part);
            }
            name = part.substring(1, close);
            String after = part.substring(close + 1);
            if (!after.isEmpty()) {
                if (!after.startsWith(":")) {
                    throw bad(url, "unexpected text after ']' in host " + part);
                }
                port = after.substring(1);
            }
        } else {
            int colon = part.lastIndexOf(':');
            name = colon >= 0 ? part.substring(0, colon) : part;
            port = colon >= 0 ? part.substring(colon + 1) : null;
        }
        if (name.isEmpty()) {
            throw bad(url, "a host name is missing in " + part);
        }
        if (port == null) {
            return new Host(name, DEFAULT_PORT);
        }
        try {
            int p = Integer.parseInt(port);
            if (p < 1 || p > 65535) {
                throw bad(url, "port " + port + " is outside 1..65535");
            }
            return new Host(name, p);
        } catch (NumberFormatException e) {
            throw bad(url, "port '" + port + "' is not a number");
        }
    }

    String user() {
        return options.getProperty("user", "");
    }

    String password() {
        return options.getProperty("password", "");
    }

    int connectTimeoutMs() throws SQLException {
        return intOption("connectTimeout", DEFAULT_CONNECT_TIMEOUT_MS);
    }

    /** 0 = wait forever for an answer, the JDBC default. */
    int socketTimeoutMs() throws SQLException {
        return intOption("socketTimeout", 0);
    }

    /** The largest frame this client accepts from the router; bigger frames end the connection. */
    int maxFrameBytes() throws SQLException {
        int max = intOption("maxFrameBytes", Frames.DEFAULT_MAX_FRAME_BYTES);
        if (max < 1024) {
            throw bad(url, "maxFrameBytes must be at least 1024");
        }
        return max;
    }

    boolean booleanOption(String key, boolean defaultValue) throws SQLException {
        String v = options.getProperty(key);
        if (v == null || v.isBlank()) return defaultValue;
        return switch (v.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true", "1", "yes" -> true;
            case "false", "0", "no" -> false;
            default -> throw bad(url, key + " must be true or false: '" + v + "'");
        };
    }

    private int intOption(String key, int defaultValue) throws SQLException {
        String v = options.getProperty(key);
        if (v == null || v.isBlank()) {
            return defaultValue;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n < 0) {
                throw bad(url, key + " must not be negative: " + v);
            }
            return n;
        } catch (NumberFormatException e) {
            throw bad(url, key + " must be a whole number of milliseconds: '" + v + "'");
        }
    }

    private static String decode(String url, String s) throws SQLException {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw bad(url, "bad %-escape in '" + s + "'");
        }
    }

    private static SQLException bad(String url, String why) {
        return Errors.of("invalid Lutra URL " + redact(url) + ": " + why
                + " (expected jdbc:lutra://host[:port][,host2[:port2]]/database?user=..&password=..)", Errors.UNABLE_TO_CONNECT);
    }

    /** URLs end up in logs; keep the password out of the message. */
    static String redact(String url) {
        return url == null ? "null" : url.replaceAll("(?i)(password=)[^&]*", "$1***"); // sslTrustStorePassword= too
    }

    @Override
    public String toString() {
        return redact(url);
    }
}
