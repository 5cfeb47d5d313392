package org.lutra.it;

import org.lutra.shards.Shards;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What the shard servers themselves received, from their general logs ({@code log_output = TABLE}): the
 * statements ({@code Query} and {@code Execute} commands, each a round trip) a piece of work made the
 * router send, by server. The servers are shared by the test run, so it is for a test that runs alone
 * on them (integration test classes run one after another), and the router's own background work
 * (its change-log poll, catalog lease, recovery pass, backend pings) is left out by its text.
 */
final class GeneralLog {
    /** One statement a server received, on the connection its server numbered {@code thread}. */
    record Statement(int server, long thread, String text) {
        @Override
        public String toString() {
            return "shard" + server + ": " + text;
        }
    }

    /**
     * The router's statements that run on their own timers, not for a client's statement (IS_USED_LOCK: its name lock's check),
     * and its session settings ({@code SET x = ...}; not {@code SET STATEMENT x = ... FOR}, which is the statement after FOR).
     */
    private static final Pattern BACKGROUND = Pattern.compile(
            "lutra_placement_log|lutra_catalog|XA RECOVER|information_schema|^SELECT 1$|^SET (?!STATEMENT )|^SHOW |lutra_xa_decisions|lutra_router|mysql-connector"
                    + "|IS_USED_LOCK", Pattern.CASE_INSENSITIVE);

    private final Shards shards;

    GeneralLog(Shards shards) {
        this.shards = shards;
    }

    /** The statements every server received while {@code work} ran, in each server's order. */
    List<Statement> during(SqlWork work) throws Exception {
        for (int s = 0; s < shards.size(); s++) {
            try (Connection c = shards.connect(s); var st = c.createStatement()) {
                st.execute("SET GLOBAL general_log = OFF");
                st.execute("SET GLOBAL log_output = 'TABLE'");
                st.execute("TRUNCATE TABLE mysql.general_log");
                st.execute("SET GLOBAL general_log = ON");
            }
        }
        try {
            work.run();
        } finally {
            for (int s = 0; s < shards.size(); s++) {
                try (Connection c = shards.connect(s); var st = c.createStatement()) {
                    st.execute("SET GLOBAL general_log = OFF");
                }
            }
        }
        var out = new ArrayList<Statement>();
        for (int s = 0; s < shards.size(); s++) {
            try (Connection c = shards.connect(s); var st = c.createStatement();
                 var rs = st.executeQuery("SELECT command_type, CONVERT(argument USING utf8mb4), thread_id FROM mysql.general_log ORDER BY event_time")) {
                while (rs.next()) {
                    String type = rs.getString(1);
                    String text = rs.getString(2).strip().replaceAll("\\s+", " ");
                    if (!type.equals("Query") && !type.equals("Execute")) continue;
                    if (BACKGROUND.matcher(text).find() || text.toUpperCase(Locale.ROOT).startsWith("SET GLOBAL")) continue;
                    out.add(new Statement(s, rs.getLong(3), text));
                }
            }
        }
        return out;
    }

    interface SqlWork {
        void run() throws SQLException, InterruptedException;
    }
}
