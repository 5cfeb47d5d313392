package org.lutra.shards;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The files of one shard under its own directory: {@code data/} (copied from the installed
 * template on first start), {@code tmp/}, the socket, the pid file the server writes, and its log.
 */
public record ShardLayout(int index, int port, Path dir) {

    public Path dataDir() { return dir.resolve("data"); }
    public Path tmpDir() { return dir.resolve("tmp"); }
    public Path socket() { return dir.resolve("mysqld.sock"); }
    public Path pidFile() { return dir.resolve("mariadbd.pid"); }
    public Path logFile() { return dir.resolve("server.log"); }
    public String url() { return "jdbc:mysql://127.0.0.1:" + port + "/"; }

    /** Creates the directories; the data dir is a copy of {@code template} unless it exists already. */
    void prepare(Path template) throws IOException {
        Files.createDirectories(tmpDir());
        if (!Files.isDirectory(dataDir().resolve("mysql"))) {
            FileTree.delete(dataDir());
            FileTree.copy(template, dataDir());
        }
        Files.deleteIfExists(pidFile());
    }
}
