package org.lutra.config;

import com.mysql.cj.conf.ConnectionUrl;
import com.mysql.cj.conf.PropertyDefinitions.SslMode;
import com.mysql.cj.conf.PropertyKey;
import com.mysql.cj.conf.PropertySet;
import com.mysql.cj.exceptions.CJException;
import com.mysql.cj.jdbc.JdbcPropertySetImpl;

import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A backend URL's TLS options (Connector/J's, which the router's unpooled connections use) as MariaDB
 * Connector/J's, for the pools ({@code backend.BackendDriver}). The URL is read by Connector/J's own parser and
 * property set, so its rules hold as they are: option names case-sensitive, values URL-decoded, the legacy
 * useSSL / requireSSL / verifyServerCertificate folded into an sslMode. Whatever cannot be carried over
 * exactly is refused: the pools must never be less protected than the URL asks (docs/security.md, "Backend TLS").
 */
public final class BackendTls {
    private BackendTls() {}

    /**
     * The pools' URL without any TLS option, and the MariaDB Connector/J options that replace them, given to
     * the driver as connection properties: it does not URL-decode its URL, so a value there could not hold
     * an {@code &}.
     *
     * @param connectorMode the sslMode Connector/J reads from the URL (PREFERRED when none is given)
     */
    public record Pooled(String url, Properties options, SslMode connectorMode) {}

    /** What a backend's server offered the router's Connector/J connection at start ({@link #encrypted}). */
    public enum ServerOffer {
        /** The server offers TLS: a URL in Connector/J's mode PREFERRED gives pools that use it. */
        TLS,
        /** The server offers no TLS (or was not asked): a URL in mode PREFERRED gives plain-text pools. */
        NO_TLS
    }

    /** Connector/J's TLS options, exactly as it names them (its names are case-sensitive). */
    private static final Set<String> CONNECTOR_TLS = Stream.of(PropertyKey.sslMode, PropertyKey.useSSL, PropertyKey.requireSSL,
                    PropertyKey.verifyServerCertificate, PropertyKey.trustCertificateKeyStoreUrl, PropertyKey.trustCertificateKeyStorePassword,
                    PropertyKey.trustCertificateKeyStoreType, PropertyKey.clientCertificateKeyStoreUrl, PropertyKey.clientCertificateKeyStorePassword,
                    PropertyKey.clientCertificateKeyStoreType, PropertyKey.fallbackToSystemTrustStore, PropertyKey.fallbackToSystemKeyStore,
                    PropertyKey.tlsVersions, PropertyKey.tlsCiphersuites, PropertyKey.fipsCompliantJsse, PropertyKey.keyStoreProvider,
                    PropertyKey.sslContextProvider, PropertyKey.keyManagerFactoryProvider, PropertyKey.trustManagerFactoryProvider)
            .flatMap(k -> Stream.of(k.getKeyName(), k.getCcAlias())).filter(n -> n != null).collect(Collectors.toUnmodifiableSet());

    /** Connector/J's TLS options with no MariaDB Connector/J counterpart. */
    private static final List<PropertyKey> UNTRANSLATABLE = List.of(PropertyKey.keyStoreProvider, PropertyKey.sslContextProvider,
            PropertyKey.keyManagerFactoryProvider, PropertyKey.trustManagerFactoryProvider);

    /**
     * The options MariaDB Connector/J 3.5 reads as TLS settings, lower-cased: it matches option names
     * without regard to case (its own, its aliases of Connector/J's store options, its legacy useSsl ones).
     */
    private static final Set<String> MARIADB_TLS = Set.of("sslmode", "serversslcert", "keystore", "truststore", "keystorepassword",
            "truststorepassword", "keypassword", "keystoretype", "truststoretype", "enabledsslciphersuites", "enabledsslprotocolsuites",
            "fallbacktosystemkeystore", "fallbacktosystemtruststore", "tlssockettype", "usessl", "trustservercertificate",
            "disablesslhostnameverification", "clientcertificatekeystoreurl", "clientcertificatekeystorepassword",
            "clientcertificatekeystoretype", "trustcertificatekeystoreurl", "trustcertificatekeystorepassword", "trustcertificatekeystoretype");

    /** Connector/J's protocols: those it knows, and of them the ones it accepts (ExportControlled). */
    private static final List<String> KNOWN_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2", "TLSv1.1", "TLSv1");
    private static final List<String> APPROVED_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    /**
     * {@link #translate(String, String, ServerOffer)} for a server that offers no TLS: the configuration check before any
     * connection (whatever a server offers, the same options are refused), and tests.
     */
    public static Pooled translate(String backend, String mysqlUrl) {
        return translate(backend, mysqlUrl, ServerOffer.NO_TLS);
    }

    /**
     * {@code mysqlUrl}, backend {@code backend}'s, for the pools.
     *
     * @param offer what the server offered the router's Connector/J connection at start ({@link #encrypted}): read only in
     *              Connector/J's mode PREFERRED, which uses TLS where offered
     * @throws IllegalArgumentException ("config: backend '…': …") for a TLS option the pools could not honour as Connector/J does
     */
    public static Pooled translate(String backend, String mysqlUrl, ServerOffer offer) {
        int query = mysqlUrl.indexOf('?');
        String base = query < 0 ? mysqlUrl : mysqlUrl.substring(0, query);
        if (base.indexOf('(') >= 0) {
            // both drivers take options per host there, each with its own syntax
            throw refused(backend, "options in the URL's host part ('(…)') are not supported; give them after '?'");
        }
        PropertySet connector = connectorView(backend, mysqlUrl);
        var kept = new ArrayList<String>();
        if (query >= 0) {
            for (String option : mysqlUrl.substring(query + 1).split("&")) {
                if (!isConnectorTls(backend, option)) kept.add(option);
            }
        }
        String url = kept.isEmpty() ? base : base + "?" + String.join("&", kept);
        SslMode mode = connector.<SslMode>getEnumProperty(PropertyKey.sslMode).getValue();
        return new Pooled(url, mariaDbOptions(backend, connector, mode, offer), mode);
    }

    /**
     * Whether {@code c}, a connection of the router's, runs over TLS: the server's own word for the session (its
     * cipher), so it holds whichever driver opened it and however it negotiated.
     */
    public static boolean encrypted(java.sql.Connection c) throws java.sql.SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery("SHOW SESSION STATUS LIKE 'Ssl_cipher'")) {
            return rs.next() && rs.getString(2) != null && !rs.getString(2).isEmpty();
        }
    }

    /** The URL's properties as Connector/J's connections read them. */
    private static PropertySet connectorView(String backend, String mysqlUrl) {
        try {
            var url = ConnectionUrl.getConnectionUrlInstance(mysqlUrl, new Properties());
            var set = new JdbcPropertySetImpl();
            set.initializeProperties(url.getMainHost().exposeAsProperties());
            return set;
        } catch (CJException e) {
            throw refused(backend, "Connector/J cannot read its URL: " + e.getMessage());
        }
    }

    /**
     * Whether {@code option} (name=value, as it stands in the URL) is one of Connector/J's TLS options (translated,
     * so left out of the pools' URL). One that only MariaDB Connector/J would read as a TLS option (its own names,
     * or Connector/J's in another case) is refused: the two drivers would connect differently.
     */
    private static boolean isConnectorTls(String backend, String option) {
        int eq = option.indexOf('=');
        String raw = (eq < 0 ? option : option.substring(0, eq)).trim();
        String name = URLDecoder.decode(raw, StandardCharsets.UTF_8); // Connector/J decodes names too; it has already accepted this one
        if (CONNECTOR_TLS.contains(name)) return true;
        var lookalike = CONNECTOR_TLS.stream().filter(name::equalsIgnoreCase).findFirst();
        if (lookalike.isPresent()) {
            throw refused(backend, "option '" + name + "' is not Connector/J's '" + lookalike.get() + "' (its option names are case-sensitive:"
                    + " it would ignore this one, MariaDB Connector/J would not)");
        }
        if (MARIADB_TLS.contains(raw.toLowerCase(Locale.ROOT)) || MARIADB_TLS.contains(name.toLowerCase(Locale.ROOT))) {
            throw refused(backend, "option '" + name + "' is MariaDB Connector/J's, not Connector/J's (the router's Connector/J connections"
                    + " would ignore it); give TLS settings with Connector/J's options (sslMode, trustCertificateKeyStoreUrl, …)");
        }
        return false;
    }

    private static Properties mariaDbOptions(String backend, PropertySet connector, SslMode mode, ServerOffer offer) {
        if (connector.getBooleanProperty(PropertyKey.fipsCompliantJsse).getValue()) {
            // Connector/J then verifies the server's certificate in every mode, with the FIPS provider's trust managers
            throw refused(backend, "option 'fipsCompliantJsse' has no MariaDB Connector/J counterpart");
        }
        for (PropertyKey key : UNTRANSLATABLE) {
            if (connector.getStringProperty(key).getValue() != null) {
                throw refused(backend, "option '" + key.getKeyName() + "' has no MariaDB Connector/J counterpart");
            }
        }
        var options = new Properties();
        // PREFERRED: TLS only if the server offers it, its certificate unchecked. MariaDB Connector/J has no such mode: the
        // start asked the server once (Backends.open), and the pools use TLS as REQUIRED's or none. Connector/J gives an
        // encrypted PREFERRED connection the client key store, protocols and cipher suites of REQUIRED (ExportControlled)
        boolean encrypting = mode != SslMode.DISABLED && (mode != SslMode.PREFERRED || offer == ServerOffer.TLS);
        switch (mode) {
            case DISABLED -> options.setProperty("sslMode", "disable");
            case PREFERRED -> options.setProperty("sslMode", encrypting ? "trust" : "disable");
            case REQUIRED -> options.setProperty("sslMode", "trust"); // Connector/J ignores the trust store here, as MariaDB's does
            case VERIFY_CA, VERIFY_IDENTITY -> {
                options.setProperty("sslMode", mode == SslMode.VERIFY_CA ? "verify-ca" : "verify-full");
                store(connector, options, PropertyKey.trustCertificateKeyStoreUrl, PropertyKey.trustCertificateKeyStoreType,
                        PropertyKey.trustCertificateKeyStorePassword, "trustStore");
                options.setProperty("fallbackToSystemTrustStore", connector.getBooleanProperty(PropertyKey.fallbackToSystemTrustStore).getValue().toString());
            }
        }
        if (encrypting) {
            store(connector, options, PropertyKey.clientCertificateKeyStoreUrl, PropertyKey.clientCertificateKeyStoreType,
                    PropertyKey.clientCertificateKeyStorePassword, "keyStore");
            options.setProperty("fallbackToSystemKeyStore", connector.getBooleanProperty(PropertyKey.fallbackToSystemKeyStore).getValue().toString());
            options.setProperty("enabledSslProtocolSuites", String.join(",", protocols(backend, connector)));
            options.setProperty("enabledSslCipherSuites", String.join(",", ciphers(backend, connector)));
        }
        return options;
    }

    /**
     * A trust or key store: Connector/J opens it only with both a URL and a type (the type defaults to JKS), so does
     * the translation; without one both drivers fall back to the JVM's (fallbackToSystem…Store).
     */
    private static void store(PropertySet connector, Properties options, PropertyKey url, PropertyKey type, PropertyKey password, String mariaDbName) {
        String location = connector.getStringProperty(url).getValue();
        String storeType = connector.getStringProperty(type).getValue();
        if (location == null || location.isEmpty() || storeType == null || storeType.isEmpty()) return;
        options.setProperty(mariaDbName, location);
        options.setProperty(mariaDbName + "Type", storeType);
        String secret = connector.getStringProperty(password).getValue();
        if (secret != null) options.setProperty(mariaDbName + "Password", secret);
    }

    /**
     * The protocols Connector/J enables: of those asked for (tlsVersions, alias enabledTLSProtocols; by default
     * TLSv1.3 and TLSv1.2) the ones it accepts and the JVM supports. Where Connector/J would refuse the list, so does
     * the router; MariaDB Connector/J otherwise enables whatever the JVM does.
     */
    static List<String> protocols(String backend, PropertySet connector) {
        var asked = connector.getStringProperty(PropertyKey.tlsVersions);
        List<String> wanted = APPROVED_PROTOCOLS;
        if (asked.isExplicitlySet()) {
            var named = asked.getValue() == null ? List.<String>of()
                    : Arrays.stream(asked.getValue().split("\\s*,\\s*")).filter(p -> !p.isBlank()).toList();
            wanted = APPROVED_PROTOCOLS.stream().filter(named::contains).toList();
            if (wanted.isEmpty()) {
                throw refused(backend, "option 'tlsVersions' ('" + asked.getValue() + "') names none of the protocols Connector/J accepts (TLSv1.2, TLSv1.3)"
                        + (named.stream().anyMatch(KNOWN_PROTOCOLS::contains) ? ": it no longer accepts TLSv1 and TLSv1.1" : ""));
            }
        }
        var jvm = List.of(defaultContext().getSupportedSSLParameters().getProtocols());
        var enabled = wanted.stream().filter(jvm::contains).toList();
        if (enabled.isEmpty()) throw refused(backend, "this JVM supports none of the TLS protocols " + wanted);
        return enabled;
    }

    /**
     * The cipher suites Connector/J enables: of those asked for (tlsCiphersuites, alias enabledSSLCipherSuites;
     * by default the JVM's), the ones it allows (its TlsSettings.properties) and the JVM enables.
     */
    static List<String> ciphers(String backend, PropertySet connector) {
        var jvm = List.of(defaultContext().getDefaultSSLParameters().getCipherSuites());
        String asked = connector.getStringProperty(PropertyKey.tlsCiphersuites).getValue();
        Stream<String> candidates = asked == null || asked.isEmpty() ? jvm.stream() : Arrays.stream(asked.split("\\s*,\\s*")).filter(jvm::contains);
        var enabled = candidates.filter(ConnectorCiphers.ALLOWED::contains)
                .filter(c -> ConnectorCiphers.UNACCEPTABLE.stream().noneMatch(c::contains)).toList();
        if (enabled.isEmpty()) {
            throw refused(backend, "option 'tlsCiphersuites' ('" + asked + "') leaves no cipher suite that both Connector/J allows and this JVM enables");
        }
        return enabled;
    }

    private static javax.net.ssl.SSLContext defaultContext() {
        try {
            return javax.net.ssl.SSLContext.getDefault();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no default TLS context in this JVM", e);
        }
    }

    private static IllegalArgumentException refused(String backend, String why) {
        return new IllegalArgumentException("config: backend '" + backend + "': " + why + " (the router's pools use MariaDB Connector/J,"
                + " and would not protect their connections as Connector/J does; docs/security.md, \"Backend TLS\")");
    }

    /** Connector/J's list of the cipher suites it allows, read from its jar as Connector/J reads it. */
    private static final class ConnectorCiphers {
        static final List<String> ALLOWED = new ArrayList<>();
        static final List<String> UNACCEPTABLE = new ArrayList<>();

        static {
            var settings = new Properties();
            try (InputStream in = com.mysql.cj.protocol.ExportControlled.class.getResourceAsStream("/com/mysql/cj/TlsSettings.properties")) {
                settings.load(in);
            } catch (IOException | NullPointerException e) {
                throw new ExceptionInInitializerError("Connector/J's TlsSettings.properties cannot be read: " + e);
            }
            for (String group : List.of("TLSCiphers.Mandatory", "TLSCiphers.Approved", "TLSCiphers.Deprecated")) {
                for (String c : settings.getProperty(group).split("\\s*,\\s*")) {
                    ALLOWED.add("TLS_" + c.trim()); // Oracle's JVM names
                    ALLOWED.add("SSL_" + c.trim()); // IBM's
                }
            }
            for (String mask : settings.getProperty("TLSCiphers.Unacceptable.Mask").split("\\s*,\\s*")) UNACCEPTABLE.add(mask.trim());
        }
    }
}
