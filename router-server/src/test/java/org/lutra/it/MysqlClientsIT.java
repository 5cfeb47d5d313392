package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real MySQL clients at the router's MySQL listener, each running the same script
 * (src/test/resources/mysql-clients/script.sql) through Lutra and against one plain MariaDB with the
 * same rows, their printed results compared line by line: the mariadb/mysql command-line client
 * (Debian's mariadb-client; found on the PATH, the test does not install it), PyMySQL and mysqlclient
 * (pip, installed by the test into a directory of its own where pip can reach PyPI), and
 * go-sql-driver/mysql (fetched by the go tool from the Go module proxy). A client that cannot be had
 * is skipped with a message saying what to install.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MysqlClientsIT {
    Differential differential;
    Shards shards;
    String referenceDatabase;
    Path work;

    @BeforeAll
    void start(Shards shards) throws Exception {
        this.shards = shards;
        differential = new Differential(shards, "mysqlclients", ValuesIT.SCHEMA
                + "CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20)) PARTITION BY hash(id) ON (p0, p1, p2, p3);\n"
                + "CREATE TABLE aborts (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0, p1, p2, p3);\n");
        for (String row : ValuesIT.ROWS) differential.both("INSERT INTO v VALUES " + row);
        try (var rs = differential.reference.createStatement().executeQuery("SELECT DATABASE()")) {
            rs.next();
            referenceDatabase = rs.getString(1);
        }
        work = Files.createTempDirectory("lutra-mysql-clients");
        for (String f : List.of("script.sql", "pymysql_client.py", "go_client.go.txt")) {
            try (var in = getClass().getResourceAsStream("/mysql-clients/" + f)) {
                Files.write(work.resolve(f.replace(".go.txt", ".go")), in.readAllBytes());
            }
        }
    }

    @AfterAll
    void stop() throws Exception {
        differential.close();
    }

    private String[] shardHostPort() {
        var m = java.util.regex.Pattern.compile("//([^:/]+):(\\d+)/").matcher(shards.url(0));
        if (!m.find()) throw new IllegalStateException(shards.url(0));
        return new String[] {m.group(1), m.group(2)};
    }

    @Test
    void commandLineClient() throws Exception {
        String cli = which("mariadb") != null ? "mariadb" : which("mysql");
        Assumptions.assumeTrue(cli != null, "no mariadb/mysql client on the PATH (Debian: apt-get install mariadb-client); skipped");
        String script = Files.readString(work.resolve("script.sql")).replace("\n", ";\n");
        var hp = shardHostPort();
        var lutra = run(List.of(cli, "-h127.0.0.1", "-P" + differential.router.server.mysqlPort(), "-u" + TestRouter.USER, "-p" + TestRouter.PASSWORD,
                "--skip-ssl", "-B", "--force", "--column-type-info", differential.router.database), script);
        var reference = run(List.of(cli, "-h" + hp[0], "-P" + hp[1], "-u" + shards.user(), "--skip-ssl", "-B", "--force", "--column-type-info",
                referenceDatabase), script);
        assertEquals(normalize(reference), normalize(lutra));
    }

    /**
     * An error the router raises without a MySQL number (the Lutra driver reports 0) reaches libmariadb's client whole, as
     * 1105 with its SQLState and message: numbered 0, the client printed "ERROR 5026 (HY000): Server returned an error packet
     * without further information". Here: a statement in a transaction that a write over several partitions rolled back.
     */
    @Test
    void anErrorWithoutAMysqlNumberKeepsItsSqlStateAndMessage() throws Exception {
        String cli = which("mariadb") != null ? "mariadb" : which("mysql");
        Assumptions.assumeTrue(cli != null, "no mariadb/mysql client on the PATH (Debian: apt-get install mariadb-client); skipped");
        String script = "INSERT INTO aborts VALUES (1);\nBEGIN;\nINSERT INTO aborts VALUES (2), (3), (4), (5), (6), (1);\nSELECT 1;\nROLLBACK;\n";
        var lutra = run(List.of(cli, "-h127.0.0.1", "-P" + differential.router.server.mysqlPort(), "-u" + TestRouter.USER, "-p" + TestRouter.PASSWORD,
                "--skip-ssl", "--force", differential.router.database), script);
        assertTrue(lutra.output().contains("ERROR 1062 (23000) at line 3"), lutra.output());
        assertTrue(lutra.output().contains("ERROR 1105 (25000) at line 4: Transaction was rolled back after an error"), lutra.output());
    }

    @Test
    void pyMySql() throws Exception {
        python("pymysql", "pymysql");
    }

    @Test
    void mysqlclient() throws Exception {
        python("mysqlclient", "MySQLdb");
    }

    private void python(String pkg, String module) throws Exception {
        Assumptions.assumeTrue(which("python3") != null, "no python3 on the PATH; skipped");
        if (run(List.of("python3", "-c", "import " + module), "").exitCode() != 0) {
            // install into a directory of the test's own; mysqlclient builds against libmariadb-dev (Debian)
            run(List.of("python3", "-m", "pip", "install", "-q", "--target", work.resolve("py").toString(), pkg), "");
        }
        var env = List.of("PYTHONPATH=" + work.resolve("py"));
        Assumptions.assumeTrue(run(List.of("python3", "-c", "import " + module), "", env).exitCode() == 0,
                pkg + " is not installed and pip could not install it (mysqlclient needs libmariadb-dev and pkg-config); skipped");
        var hp = shardHostPort();
        String script = work.resolve("script.sql").toString(), client = work.resolve("pymysql_client.py").toString();
        String driver = module.equals("pymysql") ? "pymysql" : "mysqldb";
        var lutra = run(List.of("python3", client, driver, "127.0.0.1", "" + differential.router.server.mysqlPort(), TestRouter.USER, TestRouter.PASSWORD,
                differential.router.database, script), "", env);
        var reference = run(List.of("python3", client, driver, hp[0], hp[1], shards.user(), shards.password(), referenceDatabase, script), "", env);
        assertEquals(0, lutra.exitCode(), lutra.output());
        assertEquals(reference.output(), lutra.output());
    }

    @Test
    void goSqlDriver() throws Exception {
        Assumptions.assumeTrue(which("go") != null, "no go tool on the PATH; skipped");
        Path module = work.resolve("go");
        Files.createDirectories(module);
        Files.move(work.resolve("go_client.go"), module.resolve("main.go"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(module.resolve("go.mod"), "module lutraclient\n\ngo 1.21\n\nrequire github.com/go-sql-driver/mysql v1.8.1\n");
        var env = List.of("GOFLAGS=-mod=mod", "GOTOOLCHAIN=local");
        var built = run(List.of("go", "build", "-o", "client", "."), "", env, module);
        Assumptions.assumeTrue(built.exitCode() == 0, "go-sql-driver/mysql could not be fetched and built (the Go module proxy?); skipped: "
                + built.output());
        var hp = shardHostPort();
        String script = work.resolve("script.sql").toString();
        var lutra = run(List.of(module.resolve("client").toString(), TestRouter.USER + ":" + TestRouter.PASSWORD + "@tcp(127.0.0.1:"
                + differential.router.server.mysqlPort() + ")/" + differential.router.database, script), "", env, module);
        var reference = run(List.of(module.resolve("client").toString(), shards.user() + ":" + shards.password() + "@tcp(" + hp[0] + ":" + hp[1] + ")/"
                + referenceDatabase, script), "", env, module);
        assertEquals(0, lutra.exitCode(), lutra.output());
        assertEquals(reference.output(), lutra.output());
    }

    /**
     * sysbench (Debian's package; found on the PATH) creates its tables through the listener and runs oltp_point_select,
     * oltp_read_only and oltp_read_write with server-side prepared statements: libmysqlclient decides at prepare time whether a statement returns
     * rows (before the prepare answer listed a SELECT's columns, every execution failed with 2014 "Commands out of sync").
     */
    @Test
    void sysbench() throws Exception {
        Assumptions.assumeTrue(which("sysbench") != null, "no sysbench on the PATH (Debian: apt-get install sysbench); skipped");
        var target = List.of("--mysql-host=127.0.0.1", "--mysql-port=" + differential.router.server.mysqlPort(), "--mysql-user=" + TestRouter.USER,
                "--mysql-password=" + TestRouter.PASSWORD, "--mysql-db=" + differential.router.database, "--mysql-ssl=off", "--tables=2", "--table-size=500");
        var prepare = new ArrayList<>(List.of("sysbench", "oltp_common"));
        prepare.addAll(target);
        prepare.add("prepare");
        var prepared = run(prepare, "");
        assertEquals(0, prepared.exitCode(), prepared.output());
        for (String workload : List.of("oltp_point_select", "oltp_read_only", "oltp_read_write")) {
            var command = new ArrayList<>(List.of("sysbench", workload, "--threads=2", "--time=2", "--report-interval=0"));
            command.addAll(target);
            command.add("run");
            var ran = run(command, "");
            // deadlocks (1213) are the workload's own aborts: sysbench counts them as ignored errors and runs the event again
            assertEquals(0, ran.exitCode(), ran.output());
            assertTrue(java.util.regex.Pattern.compile("transactions: +[1-9]").matcher(ran.output()).find(), ran.output());
        }
    }

    /** The client's output with the two databases' names made one (MariaDB names its database in column info and errors). */
    private String normalize(Ran r) {
        return r.output().replace(referenceDatabase, "DB").replace(differential.router.database, "DB");
    }

    record Ran(int exitCode, String output) {}

    private Ran run(List<String> command, String input) throws IOException, InterruptedException {
        return run(command, input, List.of(), work);
    }

    private Ran run(List<String> command, String input, List<String> env) throws IOException, InterruptedException {
        return run(command, input, env, work);
    }

    private static Ran run(List<String> command, String input, List<String> env, Path dir) throws IOException, InterruptedException {
        var pb = new ProcessBuilder(new ArrayList<>(command)).directory(dir.toFile()).redirectErrorStream(true);
        for (String e : env) pb.environment().put(e.substring(0, e.indexOf('=')), e.substring(e.indexOf('=') + 1));
        var p = pb.start();
        try (var in = p.getOutputStream()) {
            in.write(input.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS)) p.destroyForcibly();
        return new Ran(p.exitValue(), out);
    }

    private static String which(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, program))) return Path.of(dir, program).toString();
        }
        return null;
    }
}
