package org.lutra.shards;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Starting one shard's server process, waiting until it answers, and stopping it. */
final class ShardProcess {
    static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    private static final Path SETSID = Path.of("/usr/bin/setsid");

    private ShardProcess() {}

    /**
     * Launches the server of {@code shard}. A detached server gets its own session (setsid) so
     * that neither the end of this JVM nor a Ctrl-C in the terminal that started it stops it.
     *
     * @param tls the server's TLS, or null ({@link ServerBinaries#serverCommand})
     */
    static Process launch(ServerBinaries binaries, ShardLayout shard, boolean detached, ServerTls tls) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (detached && Files.isExecutable(SETSID)) cmd.add(SETSID.toString());
        cmd.addAll(binaries.serverCommand(shard, tls));
        var pb = new ProcessBuilder(cmd)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(shard.logFile().toFile()))
                .redirectErrorStream(true);
        pb.environment().putAll(binaries.environment());
        return pb.start();
    }

    /** Blocks until the server accepts a JDBC connection; fails early if the process dies. */
    static void awaitReady(Process process, ShardLayout shard, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("shard " + shard.index() + " (port " + shard.port() + ") exited with status "
                        + process.exitValue() + " while starting; last lines of " + shard.logFile() + ":\n" + tail(shard.logFile(), 15));
            }
            if (portAnswers(shard.port())) {
                try (var c = DriverManager.getConnection(shard.url() + "?connectTimeout=2000&socketTimeout=5000", "root", "")) {
                    return;
                } catch (SQLException e) {
                    last = e;
                }
            }
            sleep(50);
        }
        throw new IOException("shard " + shard.index() + " did not accept connections on port " + shard.port() + " within "
                + timeout.toSeconds() + " s (last error: " + (last == null ? "connection refused" : last.getMessage())
                + "); see " + shard.logFile(), last);
    }

    /** SIGTERM, wait up to {@code timeout}, then SIGKILL. Returns true if it had to kill. */
    static boolean stop(ProcessHandle process, Duration timeout) {
        if (!process.isAlive()) return false;
        process.destroy();
        try {
            process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return false;
        } catch (TimeoutException e) {
            process.destroyForcibly();
            try {
                process.onExit().get(10, TimeUnit.SECONDS);
            } catch (InterruptedException | ExecutionException | TimeoutException ignored) {
                // the kernel will reap it; nothing more we can do
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            return true;
        } catch (ExecutionException e) {
            return false;
        }
    }

    /** The live process with {@code pid} if it is the server of {@code shard} (not a recycled pid). */
    static Optional<ProcessHandle> liveServer(long pid, ShardLayout shard) {
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(h -> {
            var cmdline = h.info().commandLine();
            var args = h.info().arguments();
            String text = cmdline.orElse("") + " " + String.join(" ", args.orElse(new String[0]));
            // without /proc access we cannot tell; trust the pid then
            return text.isBlank() || text.contains("--pid-file=" + shard.pidFile());
        });
    }

    static boolean portAnswers(int port) {
        try (var s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 300);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static boolean portFree(int port) {
        try (var s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static int freePort() {
        try (var s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free TCP port on 127.0.0.1", e);
        }
    }

    static String tail(Path file, int lines) {
        try {
            List<String> all = new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.UTF_8).lines().toList();
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static void sleep(long ms) throws IOException {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for a shard to start", e);
        }
    }
}
