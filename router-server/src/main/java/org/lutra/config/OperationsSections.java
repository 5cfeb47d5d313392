package org.lutra.config;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The configuration's sections for operators: {@code http:} (metrics, health, the placement console), {@code slow_log:},
 * {@code mysql:} (the MySQL-protocol listener) and {@code trace:} (recording live traffic). {@link RouterConfig}
 * implements this interface only so that the records are named {@code RouterConfig.Http} and so on, as everywhere else;
 * nothing else implements it.
 */
public interface OperationsSections {
    /**
     * The HTTP listener for operators (docs/operations.md): {@code /metrics} (Prometheus), {@code /health/live},
     * {@code /health/ready} and the read-only placement console at {@code /}. Metrics are kept only when it is on.
     *
     * @param listen         host:port (port 0: a free one)
     * @param tls            HTTPS instead of HTTP, with a certificate as the client port's {@code tls:} takes
     * @param bearerToken    requests must carry {@code Authorization: Bearer <token>} (or the basic login below)
     * @param user           with {@code password}: HTTP basic authentication
     * @param healthAuth     whether the health endpoints need the credentials too (default false: probes rarely carry them)
     * @param hotKeys        the hottest keys kept per lookup table (default 10; 0: none counted)
     * @param readyTimeoutMillis how long /health/ready waits for every partition's backend to answer (default 1,000)
     */
    public record Http(String listen, RouterConfig.Tls tls, @JsonProperty("bearer_token") String bearerToken, String user, String password,
                       @JsonProperty("health_auth") boolean healthAuth, @JsonProperty("hot_keys") Integer hotKeys,
                       @JsonProperty("ready_timeout_ms") Integer readyTimeoutMillis) {
        public Http {
            Objects.requireNonNull(listen, "config: http.listen (HOST:PORT) is required");
            if (listen.lastIndexOf(':') < 0) throw new IllegalArgumentException("config: http.listen must be HOST:PORT, not " + listen);
            if ((user == null) != (password == null)) throw new IllegalArgumentException("config: http.user and http.password go together");
            if (bearerToken != null && bearerToken.isBlank()) throw new IllegalArgumentException("config: http.bearer_token is empty");
            hotKeys = hotKeys == null ? 10 : hotKeys;
            if (hotKeys < 0 || hotKeys > 1000) throw new IllegalArgumentException("config: http.hot_keys must be in 0..1000, not " + hotKeys);
            readyTimeoutMillis = readyTimeoutMillis == null ? 1000 : readyTimeoutMillis;
            if (readyTimeoutMillis < 1) throw new IllegalArgumentException("config: http.ready_timeout_ms must be positive");
        }

        /** Plain HTTP on {@code listen}, no credentials, defaults otherwise. */
        public Http(String listen) {
            this(listen, null, null, null, null, false, null, null);
        }

        public String host() {
            return listen.substring(0, listen.lastIndexOf(':'));
        }

        public int port() {
            return Integer.parseInt(listen.substring(listen.lastIndexOf(':') + 1));
        }

        /** Whether requests must carry credentials. */
        public boolean authenticates() {
            return bearerToken != null || user != null;
        }

        Http resolve(Path dir) {
            return new Http(listen, tls == null ? null : tls.resolve(dir), bearerToken, user, password, healthAuth, hotKeys, readyTimeoutMillis);
        }

        @Override
        public String toString() {
            return "Http[" + listen + (tls != null ? ", tls" : "") + (authenticates() ? ", authenticated" : "") + "]"; // no secrets
        }
    }

    /**
     * One structured log line (logger {@code lutra.slow}) per client statement slower than {@code thresholdMillis}:
     * its kind, plan summary, partitions, router and backend times, outcome and text; parameter values only with
     * {@code parameters: true}.
     */
    public record SlowLog(@JsonProperty("threshold_ms") long thresholdMillis, boolean parameters) {
        public SlowLog {
            if (thresholdMillis < 0) throw new IllegalArgumentException("config: slow_log.threshold_ms must be 0 or more");
        }
    }

    /**
     * The MySQL-protocol listener: any MySQL client (mysql, Connector/J, Python, Go, sysbench) reaches the same
     * sessions as the Lutra driver (docs/mysql-protocol.md).
     *
     * @param listen host:port it listens on (port 0: a free one)
     */
    public record Mysql(String listen) {
        public Mysql {
            Objects.requireNonNull(listen, "config: mysql.listen (HOST:PORT) is required");
            if (listen.lastIndexOf(':') < 0) throw new IllegalArgumentException("config: mysql.listen must be HOST:PORT, not " + listen);
        }
    }

    /**
     * The recording of live traffic (docs/traces.md, "Recording live traffic in the router").
     *
     * @param file            the trace file (relative to the config file); it must not exist yet
     * @param sample          the share of transactions recorded, drawn at each one's start: 0 < sample <= 1 (default 1)
     * @param maxTransactions the file is closed after this many lines (default 1,000,000)
     */
    public record Trace(Path file, double sample, @JsonProperty("max_transactions") long maxTransactions) {
        public Trace {
            Objects.requireNonNull(file, "config: trace.file is required");
            sample = sample == 0 ? 1 : sample;
            if (!(sample > 0 && sample <= 1)) throw new IllegalArgumentException("config: trace.sample must be in (0, 1], not " + sample);
            maxTransactions = maxTransactions == 0 ? 1_000_000 : maxTransactions;
            if (maxTransactions < 1) throw new IllegalArgumentException("config: trace.max_transactions must be at least 1");
        }

        Trace resolve(Path dir) {
            return new Trace(dir.resolve(file), sample, maxTransactions);
        }
    }
}
