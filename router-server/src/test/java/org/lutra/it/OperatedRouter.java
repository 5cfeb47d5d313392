package org.lutra.it;

import org.lutra.config.RouterConfig;
import org.lutra.ops.Operations;
import org.lutra.shards.Shards;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * A router started as {@code ./lutra router} starts it (org.lutra.ops.Operations: with its HTTP
 * listener, metrics and slow log as the config asks), over partitions p0..p3 of the shared shards in
 * databases of its own; {@code backendUrl} may put a partition's backend behind a proxy.
 */
final class OperatedRouter implements AutoCloseable {
    final Operations operations;
    final Shards shards;
    final String database;
    final RouterConfig config;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    OperatedRouter(Shards shards, String prefix, String schema, RouterConfig.Transactions transactions, UnaryOperator<String> backendUrl,
                   UnaryOperator<RouterConfig> adjust) throws IOException, SQLException {
        this.shards = shards;
        this.database = (prefix + "_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36)).toLowerCase();
        Path schemaFile = Files.createTempFile("lutra-schema", ".sql");
        Files.writeString(schemaFile, schema);
        var backends = new ArrayList<RouterConfig.Backend>();
        var partitions = new ArrayList<RouterConfig.PartitionPlacement>();
        for (int i = 0; i < shards.size(); i++) {
            backends.add(new RouterConfig.Backend("shard" + i, backendUrl.apply(shards.url(i)), shards.user(), shards.password(), 8, 0));
            partitions.add(new RouterConfig.PartitionPlacement("p" + i, "shard" + i, null));
        }
        var config = new RouterConfig("127.0.0.1:0", database, schemaFile, List.of(new RouterConfig.User(TestRouter.USER, TestRouter.PASSWORD, null)),
                backends, partitions, List.of(), 1 << 20, 1000, transactions, null, null, null);
        this.config = adjust.apply(config);
        this.config.validate();
        this.operations = Operations.start(this.config);
    }

    String url() {
        return "jdbc:lutra://127.0.0.1:" + operations.router().port() + "/" + database;
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), TestRouter.USER, TestRouter.PASSWORD);
    }

    String base() {
        return "http://127.0.0.1:" + operations.httpPort();
    }

    /** GET {@code path} with these headers (name, value, ...). */
    HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
        var request = HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofSeconds(30));
        for (int i = 0; i < headers.length; i += 2) request.header(headers[i], headers[i + 1]);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The value of the sample {@code name{labels}} in a Prometheus text scrape, 0 if it is not there. */
    static double sample(String scrape, String name, String labels) {
        var m = Pattern.compile("(?m)^" + Pattern.quote(name) + (labels.isEmpty() ? "" : Pattern.quote("{" + labels + "}")) + " (\\S+)$").matcher(scrape);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    @Override
    public void close() throws SQLException {
        operations.close();
        for (int i = 0; i < shards.size(); i++) {
            try (var c = shards.connect(i); var st = c.createStatement()) {
                st.execute("SET SESSION lock_wait_timeout = 60");
                st.execute("DROP DATABASE IF EXISTS `" + database + "_p" + i + "`");
            }
        }
    }
}
