package org.lutra.shards;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Shard servers that outlive the JVM that started them (detached mode, {@code ./lutra shards}).
 *
 * <p>Everything lives under one directory: {@code shard-<i>/} per shard (data dir, socket, pid
 * file, {@code server.log}) and {@code shards.properties}, the state file with each shard's port,
 * pid and directory. Data dirs persist across stop/start. Commands on the same directory are
 * serialized with a file lock.
 */
public final class ShardCluster {

    public enum State { STARTED, ALREADY_RUNNING, RUNNING, STOPPED, KILLED, NOT_RUNNING }

    /** One shard as last seen by a command. */
    public record Shard(int index, int port, long pid, Path dir, State state) {
        public String url() { return "jdbc:mysql://127.0.0.1:" + port + "/"; }
        public boolean running() { return state == State.STARTED || state == State.ALREADY_RUNNING || state == State.RUNNING; }
    }

    public static final int DEFAULT_BASE_PORT = 13306;
    private static final String STATE_FILE = "shards.properties";

    private final Path dir;

    public ShardCluster(Path dir) {
        this.dir = dir.toAbsolutePath();
    }

    /** {@code $LUTRA_HOME/shards}, i.e. {@code ~/.lutra/shards} by default. */
    public static Path defaultDir() {
        return ServerBinaries.lutraHome().resolve("shards");
    }

    public Path dir() {
        return dir;
    }

    /**
     * Makes shards 0..count-1 run: starts those that do not, on ports basePort+i, and reports
     * the others as already running. Fails before starting anything if a needed port is taken by
     * a process that is not one of these shards.
     */
    public List<Shard> start(int count, int basePort, Path serverBinary) throws IOException {
        if (count < 1) throw new IllegalArgumentException("--count must be at least 1, was " + count);
        Files.createDirectories(dir);
        try (var lock = lock()) {
            var known = readState();
            var result = new TreeMap<Integer, Shard>();
            var toStart = new ArrayList<ShardLayout>();
            for (int i = 0; i < count; i++) {
                Shard old = known.get(i);
                if (old != null && isRunning(old)) {
                    result.put(i, new Shard(i, old.port(), old.pid(), old.dir(), State.ALREADY_RUNNING));
                    continue;
                }
                int port = basePort + i;
                if (port > 65535) throw new IllegalArgumentException("port " + port + " is out of range; use a lower --base-port");
                if (!ShardProcess.portFree(port)) {
                    throw new IOException("port " + port + " (for shard " + i + ") is in use by another process;"
                            + " stop it or choose another --base-port");
                }
                toStart.add(new ShardLayout(i, port, dir.resolve("shard-" + i)));
            }
            if (!toStart.isEmpty()) {
                ServerBinaries binaries = ServerBinaries.resolve(serverBinary);
                Path template = binaries.ensureInstalled();
                IOException failure = null;
                try (var pool = Executors.newFixedThreadPool(toStart.size())) {
                    var futures = new ArrayList<Future<Shard>>();
                    for (var layout : toStart) futures.add(pool.submit(() -> startDetached(binaries, template, layout)));
                    for (var f : futures) {
                        try {
                            Shard s = f.get();
                            result.put(s.index(), s);
                        } catch (ExecutionException e) {
                            IOException io = e.getCause() instanceof IOException x ? x : new IOException(e.getCause());
                            if (failure == null) failure = io; else failure.addSuppressed(io);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            failure = new IOException("interrupted", e);
                        }
                    }
                }
                // record what did start, so that `status` and `stop` find it even after a failure
                var state = new TreeMap<>(known);
                state.putAll(result);
                writeState(state);
                if (failure != null) throw failure;
            }
            return List.copyOf(result.values());
        }
    }

    private static Shard startDetached(ServerBinaries binaries, Path template, ShardLayout layout) throws IOException {
        layout.prepare(template);
        Process p = ShardProcess.launch(binaries, layout, true /* detached */, null /* no TLS */);
        try {
            ShardProcess.awaitReady(p, layout, ShardProcess.START_TIMEOUT);
        } catch (IOException e) {
            p.destroyForcibly();
            throw e;
        }
        return new Shard(layout.index(), layout.port(), p.pid(), layout.dir(), State.STARTED);
    }

    /** Every shard in the state file, RUNNING or STOPPED. */
    public List<Shard> status() throws IOException {
        var out = new ArrayList<Shard>();
        for (Shard s : readState().values()) {
            out.add(new Shard(s.index(), s.port(), s.pid(), s.dir(), isRunning(s) ? State.RUNNING : State.NOT_RUNNING));
        }
        return out;
    }

    /** Stops every running shard: SIGTERM, then SIGKILL after {@code ShardProcess.STOP_TIMEOUT}. */
    public List<Shard> stop() throws IOException {
        if (!Files.exists(dir.resolve(STATE_FILE))) return List.of();
        try (var lock = lock()) {
            var out = new ArrayList<Shard>();
            var state = readState();
            // SIGTERM to all first, so that the servers shut down in parallel
            var handles = new TreeMap<Integer, java.util.Optional<ProcessHandle>>();
            for (Shard s : state.values()) {
                var handle = ShardProcess.liveServer(s.pid(), layout(s));
                handle.ifPresent(ProcessHandle::destroy);
                handles.put(s.index(), handle);
            }
            for (Shard s : state.values()) {
                var handle = handles.get(s.index());
                State result = handle.map(h -> ShardProcess.stop(h, ShardProcess.STOP_TIMEOUT) ? State.KILLED : State.STOPPED)
                        .orElse(State.NOT_RUNNING);
                out.add(new Shard(s.index(), s.port(), s.pid(), s.dir(), result));
            }
            return out;
        }
    }

    private boolean isRunning(Shard s) {
        return ShardProcess.liveServer(s.pid(), layout(s)).isPresent() && ShardProcess.portAnswers(s.port());
    }

    private static ShardLayout layout(Shard s) {
        return new ShardLayout(s.index(), s.port(), s.dir());
    }

    private FileChannel lock() throws IOException {
        var channel = FileChannel.open(dir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        channel.lock(); // released when the channel is closed
        return channel;
    }

    private TreeMap<Integer, Shard> readState() throws IOException {
        var shards = new TreeMap<Integer, Shard>();
        Path file = dir.resolve(STATE_FILE);
        if (!Files.exists(file)) return shards;
        var p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        int count = Integer.parseInt(p.getProperty("count", "0"));
        for (int i = 0; i < count; i++) {
            String port = p.getProperty("shard." + i + ".port");
            if (port == null) continue;
            shards.put(i, new Shard(i, Integer.parseInt(port), Long.parseLong(p.getProperty("shard." + i + ".pid", "0")),
                    Path.of(p.getProperty("shard." + i + ".dir")), State.NOT_RUNNING));
        }
        return shards;
    }

    private void writeState(TreeMap<Integer, Shard> shards) throws IOException {
        var p = new Properties();
        p.setProperty("count", Integer.toString(shards.isEmpty() ? 0 : shards.lastKey() + 1));
        for (Shard s : shards.values()) {
            p.setProperty("shard." + s.index() + ".port", Integer.toString(s.port()));
            p.setProperty("shard." + s.index() + ".pid", Long.toString(s.pid()));
            p.setProperty("shard." + s.index() + ".dir", s.dir().toString());
        }
        Path tmp = dir.resolve(STATE_FILE + ".tmp");
        try (Writer w = Files.newBufferedWriter(tmp)) {
            p.store(w, "Lutra shards started by `./lutra shards start`; pid and port of each shard");
        }
        Files.move(tmp, dir.resolve(STATE_FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
