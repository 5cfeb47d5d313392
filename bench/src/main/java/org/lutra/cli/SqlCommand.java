package org.lutra.cli;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.lutra.cli.sql.Args;
import org.lutra.cli.sql.SqlRunner;
import org.lutra.cli.sql.StatementSplitter;

/**
 * `./lutra sql`: runs SQL through plain java.sql, so any driver on the classpath works —
 * {@code jdbc:lutra://} for the router, {@code jdbc:mysql://} for a shard.
 */
public final class SqlCommand implements Command {

    private static final String USAGE = """
            usage: ./lutra sql --url JDBC_URL [--user U] [--password P] [-e "SQL; SQL..."]

              -e SQL   runs the statements (separated by ';') and exits; stops at the first error
                       (exit status 1).
              without -e, reads statements ending in ';' from stdin: an interactive shell on a
              terminal (prompt 'lutra> ', 'quit' or 'exit' to leave), or a script when piped;
              errors are printed and the next statement runs (exit status 1 if any failed).

              examples: ./lutra sql --url jdbc:mysql://127.0.0.1:13306/ -e 'SHOW DATABASES'
                        ./lutra sql --url 'jdbc:lutra://127.0.0.1:4000/app?user=app' < script.sql""";

    private final InputStream in;
    private final PrintStream out;
    private final PrintStream err;

    public SqlCommand() {
        this(System.in, System.out, System.err);
    }

    SqlCommand(InputStream in, PrintStream out, PrintStream err) {
        this.in = in;
        this.out = out;
        this.err = err;
    }

    @Override
    public String name() {
        return "sql";
    }

    @Override
    public String summary() {
        return "run SQL (-e or an interactive shell) through any JDBC URL: the router or a shard";
    }

    @Override
    public int run(List<String> argv) throws Exception {
        Args args;
        try {
            args = Args.parse(argv, Set.of("--url", "--user", "--password", "-e", "--execute"), Set.of("--help", "-h"));
            if (args.has("--help") || args.has("-h")) {
                out.println(USAGE);
                return 0;
            }
            if (!args.has("--url")) throw new Args.UsageException("--url is required");
            if (!args.positional.isEmpty()) throw new Args.UsageException("unexpected argument '" + args.positional.getFirst() + "'");
        } catch (Args.UsageException e) {
            err.println("lutra sql: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        var props = new Properties();
        if (args.has("--user")) props.setProperty("user", args.get("--user", null));
        if (args.has("--password")) props.setProperty("password", args.get("--password", null));
        String url = args.get("--url", null);
        try (Connection connection = DriverManager.getConnection(url, props)) {
            var runner = new SqlRunner(connection, out, err);
            String script = args.has("-e") ? args.get("-e", "") : args.get("--execute", null);
            return script != null ? runScript(runner, script) : shell(runner);
        } catch (SQLException e) {
            err.println(SqlRunner.describe(e));
            if (e.getMessage() != null && e.getMessage().startsWith("No suitable driver")) {
                err.println("(no JDBC driver on the classpath accepts " + url + ")");
            }
            return 1;
        }
    }

    private int runScript(SqlRunner runner, String script) {
        for (String statement : StatementSplitter.split(script)) {
            if (!runner.run(statement)) return 1;
        }
        return 0;
    }

    /** Reads statements from stdin; a failing statement is reported and the shell goes on. */
    private int shell(SqlRunner runner) throws Exception {
        boolean interactive = isTerminal();
        var reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        var splitter = new StatementSplitter();
        boolean failed = false;
        while (true) {
            if (interactive) {
                out.print(splitter.inStatement() ? "    -> " : "lutra> ");
                out.flush();
            }
            String line = reader.readLine();
            if (line == null) break;
            if (!splitter.inStatement() && isQuit(line)) return status(failed, interactive);
            for (String statement : splitter.feed(line + "\n")) {
                if (isQuit(statement)) return status(failed, interactive);
                failed |= !runner.run(statement);
            }
        }
        String rest = splitter.pending();
        if (!rest.isEmpty() && !isQuit(rest)) failed |= !runner.run(rest); // a last statement without ';'
        if (interactive) out.println();
        return status(failed, interactive);
    }

    /** A script that had errors fails; a person at a terminal has seen them already. */
    private static int status(boolean failed, boolean interactive) {
        return failed && !interactive ? 1 : 0;
    }

    private static boolean isQuit(String s) {
        String t = s.trim().toLowerCase(java.util.Locale.ROOT);
        if (t.endsWith(";")) t = t.substring(0, t.length() - 1).trim();
        return t.equals("quit") || t.equals("exit") || t.equals("\\q");
    }

    /** ./lutra passes -Dlutra.tty=true|false (it knows whether stdin is a terminal); otherwise ask the JDK. */
    private boolean isTerminal() {
        if (in != System.in) return false;
        String tty = System.getProperty("lutra.tty");
        if (tty != null) return Boolean.parseBoolean(tty);
        return System.console() != null;
    }
}
