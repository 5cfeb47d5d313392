package org.lutra.shards;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A set of MySQL-protocol shard servers that the caller may use for the lifetime of this object.
 *
 * <pre>{@code
 * try (Shards shards = Shards.start(4)) {          // or EmbeddedShardsExtension in JUnit tests
 *     String db = shards.createDatabase("orders");  // same fresh database on every shard
 *     try (Connection c = shards.connect(0, db)) { ... }
 *     shards.url(2, db);                           // jdbc:mysql://127.0.0.1:PORT/db
 * }
 * }</pre>
 *
 * <p>{@link #start} starts embedded MariaDB servers on free ports ({@link EmbeddedShards}), unless
 * env {@code LUTRA_BACKENDS} lists JDBC URLs of servers that already run: then those are used
 * and nothing is started or stopped (credentials from {@code LUTRA_BACKENDS_USER} /
 * {@code LUTRA_BACKENDS_PASSWORD}, default root and empty).
 */
public interface Shards extends AutoCloseable {

    /** Base JDBC URL of each shard, without a database: {@code jdbc:mysql://127.0.0.1:PORT/}. */
    List<String> urls();

    String user();

    String password();

    /**
     * Whether {@link #kill} and {@link #restart} work: true for servers this object started,
     * false for external ones. Crash tests use it to skip: {@code assumeTrue(shards.canKill())}.
     */
    boolean canKill();

    /**
     * Kills shard {@code shard}'s server the hard way (SIGKILL: no shutdown, no flush) and
     * waits until it is gone, so tests can check what survives a crash. It stays down until
     * {@link #restart}.
     *
     * @throws UnsupportedOperationException for servers this object did not start
     */
    void kill(int shard);

    /**
     * Starts shard {@code shard}'s server again with the same port and data dir (shutting it
     * down first if it still runs) and returns once it accepts connections, i.e. after its crash
     * recovery. {@link #url} stays the same; earlier connections are broken.
     *
     * @throws UnsupportedOperationException for servers this object did not start
     */
    void restart(int shard) throws IOException;

    /**
     * Freezes shard {@code shard}'s server (SIGSTOP): its sockets stay open and its kernel still
     * accepts connections, but it answers nothing until {@link #thaw} — a server that hangs, as
     * opposed to one that dies. Returns once every thread of the server is stopped, so that whatever is
     * sent after it waits. Tests thaw in a finally block.
     *
     * @throws UnsupportedOperationException for servers this object did not start
     */
    void freeze(int shard);

    /** Lets a frozen server run again (SIGCONT). Thawing a running server does nothing. */
    void thaw(int shard);

    /** Stops what this object started (nothing for external backends). Idempotent. */
    @Override
    void close();

    default int size() {
        return urls().size();
    }

    default String url(int shard) {
        return urls().get(shard);
    }

    /** The shard's URL with {@code database} as the default schema. */
    default String url(int shard, String database) {
        return JdbcUrls.withDatabase(url(shard), database);
    }

    default Connection connect(int shard) throws SQLException {
        return DriverManager.getConnection(url(shard), user(), password());
    }

    default Connection connect(int shard, String database) throws SQLException {
        return DriverManager.getConnection(url(shard, database), user(), password());
    }

    /**
     * Creates a database with a new unique name starting with {@code prefix} on every shard and
     * returns the name, so that test classes sharing these shards do not see each other's tables.
     */
    default String createDatabase(String prefix) throws SQLException {
        String name = uniqueName(prefix);
        for (int i = 0; i < size(); i++) {
            try (var c = connect(i); var st = c.createStatement()) {
                st.execute("CREATE DATABASE `" + name + "`");
            }
        }
        return name;
    }

    /** Drops {@code database} on every shard where it exists. */
    default void dropDatabase(String database) throws SQLException {
        for (int i = 0; i < size(); i++) {
            try (var c = connect(i); var st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS `" + database.replace("`", "``") + "`");
            }
        }
    }

    /** Starts {@code count} shards (or takes them from LUTRA_BACKENDS), data under a temporary dir. */
    static Shards start(int count) throws IOException {
        return start(count, null);
    }

    /** Like {@link #start(int)}, with the shards' data dirs under {@code workDir} (deleted on close). */
    static Shards start(int count, Path workDir) throws IOException {
        Shards external = fromEnvironment(count);
        if (external != null) return external;
        return EmbeddedShards.start(EmbeddedShards.Options.defaults(count).withWorkDir(workDir));
    }

    /** Shards that already run elsewhere; {@link #close()} leaves them running. */
    static Shards external(List<String> urls, String user, String password) {
        return new ExternalShards(List.copyOf(urls), user, password);
    }

    /** The shards named by env LUTRA_BACKENDS (at least {@code count} of them), or null if unset. */
    static Shards fromEnvironment(int count) {
        String env = System.getenv("LUTRA_BACKENDS");
        if (env == null || env.isBlank()) return null;
        List<String> urls = Arrays.stream(env.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        if (urls.size() < count) {
            throw new IllegalStateException("LUTRA_BACKENDS lists " + urls.size() + " servers but " + count + " are needed: " + env);
        }
        String user = System.getenv().getOrDefault("LUTRA_BACKENDS_USER", "root");
        String password = System.getenv().getOrDefault("LUTRA_BACKENDS_PASSWORD", "");
        return external(urls.subList(0, count), user, password);
    }

    private static String uniqueName(String prefix) {
        String clean = prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        if (clean.length() > 40) clean = clean.substring(0, 40);
        String suffix = Long.toString(System.currentTimeMillis() % 1_000_000_000L, 36)
                + Integer.toString(Names.SEQUENCE.incrementAndGet(), 36)
                + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36), 36);
        return clean + "_" + suffix;
    }

    /** Holder for the counter behind {@link #createDatabase}: interfaces cannot have static state of their own. */
    final class Names {
        private static final AtomicInteger SEQUENCE = new AtomicInteger();
        private Names() {}
    }
}
