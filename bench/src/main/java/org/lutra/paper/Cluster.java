package org.lutra.paper;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.lutra.shards.EmbeddedShards;
import org.lutra.shards.Shards;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The backends of a benchmark: embedded shards with their emulated capacity (gates in front, or
 * CPU caps), or real servers listed in a router config ({@code --backends-from}), used as they are.
 * Each run uses the first n of them.
 */
final class Cluster implements AutoCloseable {
    private final Shards shards;
    private final Emulation emulation;
    private final List<ShardGate> gates = new ArrayList<>();
    private final CpuCaps caps;
    private final long[] pids;

    private Cluster(Shards shards, Emulation emulation, CpuCaps caps, long[] pids) {
        this.shards = shards;
        this.emulation = emulation;
        this.caps = caps;
        this.pids = pids;
    }

    /** Starts {@code count} embedded MariaDB shards and sets up {@code emulation} in front of or around them. */
    static Cluster embedded(int count, Emulation emulation, Path workDir) throws IOException {
        var shards = EmbeddedShards.start(EmbeddedShards.Options.defaults(count).withWorkDir(workDir));
        long[] pids = new long[count];
        for (int i = 0; i < count; i++) pids[i] = shards.pid(i);
        CpuCaps caps = null;
        try {
            if (emulation.mode() == Emulation.Mode.CGROUP) {
                caps = CpuCaps.create();
                if (caps == null) throw new IOException("cgroup CPU caps are not available on this machine (use --emulation gate)");
            }
            var cluster = new Cluster(shards, emulation, caps, pids);
            if (emulation.gated()) {
                for (int i = 0; i < count; i++) cluster.gates.add(new ShardGate("127.0.0.1", port(shards.url(i)), emulation.capacity()));
            }
            cluster.enforce(false);
            return cluster;
        } catch (IOException | RuntimeException e) {
            if (caps != null) caps.close();
            shards.close();
            throw e;
        }
    }

    /** Shards someone else started and stops (a test's), each behind a gate when {@code emulation} has one. */
    static Cluster over(Shards shards, Emulation emulation) throws IOException {
        if (emulation.mode() == Emulation.Mode.CGROUP) throw new IllegalArgumentException("CPU caps need the shards' processes: use Cluster.embedded");
        var cluster = new Cluster(new Borrowed(shards), emulation, null, null);
        if (emulation.gated()) {
            for (int i = 0; i < shards.size(); i++) cluster.gates.add(new ShardGate("127.0.0.1", port(shards.url(i)), emulation.capacity()));
        }
        cluster.enforce(false);
        return cluster;
    }

    /** Shards this cluster uses but does not stop. */
    private record Borrowed(Shards shards) implements Shards {
        @Override public java.util.List<String> urls() { return shards.urls(); }
        @Override public String user() { return shards.user(); }
        @Override public String password() { return shards.password(); }
        @Override public boolean canKill() { return false; }
        @Override public void kill(int shard) { throw new UnsupportedOperationException(); }
        @Override public void restart(int shard) { throw new UnsupportedOperationException(); }
        @Override public void freeze(int shard) { throw new UnsupportedOperationException(); }
        @Override public void thaw(int shard) { throw new UnsupportedOperationException(); }
        @Override public void close() {}
    }

    /** The servers a router config lists under {@code backends:} (url, user, password), used without emulation. */
    static Cluster external(Path routerConfig) throws IOException {
        JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(routerConfig.toFile());
        JsonNode backends = root.path("backends");
        if (!backends.isArray() || backends.isEmpty()) throw new IOException(routerConfig + ": no backends: list");
        var urls = new ArrayList<String>();
        String user = null;
        String password = null;
        for (JsonNode b : backends) {
            urls.add(b.path("url").asText());
            String u = b.path("user").asText("root");
            String p = b.path("password").asText("");
            if (user != null && (!user.equals(u) || !password.equals(p))) {
                throw new IOException(routerConfig + ": the benchmark needs one user and password for every backend");
            }
            user = u;
            password = p;
        }
        return new Cluster(Shards.external(urls, user, password), Emulation.NONE, null, null);
    }

    private static int port(String url) {
        var m = java.util.regex.Pattern.compile("//[^:/]+:(\\d+)").matcher(url);
        if (!m.find()) throw new IllegalArgumentException("no port in " + url);
        return Integer.parseInt(m.group(1));
    }

    int size() {
        return shards.size();
    }

    Emulation emulation() {
        return emulation;
    }

    String user() {
        return shards.user();
    }

    String password() {
        return shards.password();
    }

    /** The URL a router or the baseline's clients use for shard {@code i}: through its gate where there is one. */
    String backendUrl(int i) {
        return gates.isEmpty() ? shards.url(i) : "jdbc:mysql://127.0.0.1:" + gates.get(i).port() + "/";
    }

    /** Shard {@code i} itself, past any gate: loading checks, invariants and status counters. */
    Connection direct(int i, String database) throws SQLException {
        String url = database == null ? shards.url(i) : shards.url(i, database);
        return DriverManager.getConnection(url, shards.user(), shards.password());
    }

    /** Turns the emulated capacity on (measuring) or off (loading, checking). */
    void enforce(boolean on) throws IOException {
        for (ShardGate g : gates) g.bucket().enforce(on);
        if (caps != null) {
            if (on) {
                for (int i = 0; i < pids.length; i++) caps.cap(i, pids[i], emulation.cores());
            } else {
                caps.uncapAll();
            }
        }
    }

    /** What shard {@code i}'s gate admitted so far (zeros without a gate). */
    ShardGate.Counters gateCounters(int i) {
        return gates.isEmpty() ? new ShardGate.Counters(0, 0, 0, 0) : gates.get(i).bucket().counters();
    }

    boolean gatedCapacity() {
        return emulation.mode() == Emulation.Mode.GATE;
    }

    /** CPU ticks (user + system) shard {@code i}'s server used so far; -1 for a server not started here. */
    long cpuTicks(int i) {
        if (pids == null) return -1;
        return ProcFs.processTicks(pids[i]);
    }

    /** Periods shard {@code i} was throttled and for how long (µs), under CGROUP; zeros otherwise. */
    long[] throttled(int i) {
        return caps == null ? new long[2] : caps.throttled(i);
    }

    String describe() {
        String what = pids == null ? shards.size() + " servers from --backends-from" : shards.size() + " embedded MariaDB shards";
        return what + "; " + (caps != null ? caps.describe(emulation.cores()) + (emulation.gated() ? ", " + emulation.capacity().latencyMicros() + " µs latency" : "") : emulation.describe());
    }

    @Override
    public void close() throws IOException {
        for (ShardGate g : gates) g.close();
        try {
            if (caps != null) caps.close();
        } finally {
            shards.close();
        }
    }

    static void dropDatabases(Cluster cluster, int shards, List<String> databases) {
        for (int i = 0; i < shards; i++) {
            try (Connection c = cluster.direct(i, null); var st = c.createStatement()) {
                for (String db : databases) st.execute("DROP DATABASE IF EXISTS `" + db.replace("`", "``") + "`");
            } catch (SQLException e) {
                System.err.println("could not drop the run's databases on shard " + i + ": " + e.getMessage());
            }
        }
    }
}
