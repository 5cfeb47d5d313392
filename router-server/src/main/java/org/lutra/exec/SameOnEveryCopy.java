package org.lutra.exec;

import org.lutra.placement.ReplicaScans;
import org.lutra.backend.ShardQuery;
import org.lutra.catalog.TableDef;
import org.lutra.protocol.Refusal;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A write of a replicated key ({@link ReplicaWrites}) or of a {@code REPLICATED} table runs the same
 * statement on every copy, on different servers a few milliseconds apart: the copies stay identical only if the statement
 * computes the same values there. Functions of the clock do so once each server is given one
 * time for the statement — MariaDB's {@code SET STATEMENT timestamp = t FOR ...}, what its own
 * statement-based replication does with {@code timestamp}: {@code NOW()}, {@code CURRENT_TIMESTAMP},
 * {@code CURDATE()}, {@code UNIX_TIMESTAMP()}, a column's {@code DEFAULT CURRENT_TIMESTAMP} and its
 * {@code ON UPDATE CURRENT_TIMESTAMP} all read it. What no variable fixes is refused: random values,
 * unique ids, the real clock ({@code SYSDATE()}), sequences, and what differs from one backend or
 * partition to the next (the connection, the database, the backend user, the server's version):
 * {@code UPDATE users SET karma = FLOOR(RAND() * 1000000) WHERE id = 3} would leave a replicated key's
 * copies with different values.
 */
final class SameOnEveryCopy {
    private SameOnEveryCopy() {}

    /** Called with parentheses; the ones that stand alone as well are in {@link #BARE}. */
    private static final Set<String> DIFFERENT_EVERYWHERE = Set.of("rand", "uuid", "uuid_short", "sys_guid", "random_bytes", "sysdate",
            "nextval", "lastval", "setval", "connection_id", "row_count", "found_rows", "database", "schema", "user",
            "current_user", "session_user", "system_user", "current_role", "version", "get_lock", "release_lock", "is_free_lock",
            "is_used_lock", "release_all_locks", "load_file", "master_pos_wait", "master_gtid_wait");
    private static final Set<String> BARE = Set.of("current_user", "current_role");
    /** The clock's functions, which {@code timestamp} fixes (MariaDB); a MySQL backend has no per-statement timestamp: refused there. */
    private static final Set<String> CLOCK = Set.of("now", "current_timestamp", "current_date", "current_time", "curdate", "curtime", "localtime",
            "localtimestamp", "unix_timestamp", "utc_date", "utc_time", "utc_timestamp");
    private static final Set<String> CLOCK_BARE = Set.of("current_timestamp", "current_date", "current_time", "localtime", "localtimestamp",
            "utc_date", "utc_time", "utc_timestamp");
    /** Words after which a name followed by "(" is a table (INSERT INTO user (...)), not a call. */
    private static final Set<String> TABLE_BEFORE = Set.of(".", "into", "update", "from", "join", "table");
    private static final Pattern CLOCK_IN_DDL = Pattern.compile("(?i)\\b(CURRENT_TIMESTAMP|NOW|LOCALTIME|LOCALTIMESTAMP)\\b");

    /**
     * Refuses {@code sql} where the copies of {@code table}'s replicated rows could come out different; on a
     * MariaDB backend the clock is fixed instead ({@link #atOneTime}).
     */
    static void check(String sql, TableDef table, boolean mariaDb) throws SQLException {
        var words = ReplicaScans.words(sql);
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i).toLowerCase(Locale.ROOT);
            boolean call = i + 1 < words.size() && words.get(i + 1).equals("(") && !(i > 0 && TABLE_BEFORE.contains(words.get(i - 1).toLowerCase(Locale.ROOT)));
            boolean sequence = (w.equals("next") || w.equals("previous")) && i + 2 < words.size()
                    && words.get(i + 1).equalsIgnoreCase("value") && words.get(i + 2).equalsIgnoreCase("for");
            if (call && DIFFERENT_EVERYWHERE.contains(w) || BARE.contains(w) || sequence) {
                throw refusal(table, (sequence ? w.toUpperCase(Locale.ROOT) + " VALUE FOR" : w.toUpperCase(Locale.ROOT) + (call ? "()" : ""))
                        + " gives each copy its own value");
            }
            if (!mariaDb && (call && CLOCK.contains(w) || CLOCK_BARE.contains(w))) {
                throw refusal(table, w.toUpperCase(Locale.ROOT) + " reads each server's clock (only MariaDB backends take one time for the statement)");
            }
        }
        if (!mariaDb && CLOCK_IN_DDL.matcher(table.ddl()).find()) {
            throw refusal(table, "a column that defaults to, or is updated with, the time would get each server's clock (only MariaDB backends take"
                    + " one time for the statement)");
        }
    }

    /**
     * Whether {@code sql} on {@code table} reads the clock: a clock function in the text, or a column of the table that
     * defaults to or is updated with the time. Only then does each copy's statement get the one time ({@link #atOneTime}):
     * the time makes every statement's text new, which the backends' prepared-statement caches cannot keep.
     */
    static boolean readsClock(String sql, TableDef table) {
        if (CLOCK_IN_DDL.matcher(table.ddl()).find()) return true;
        var words = ReplicaScans.words(sql);
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i).toLowerCase(Locale.ROOT);
            boolean call = i + 1 < words.size() && words.get(i + 1).equals("(") && !(i > 0 && TABLE_BEFORE.contains(words.get(i - 1).toLowerCase(Locale.ROOT)));
            if (call && CLOCK.contains(w) || CLOCK_BARE.contains(w)) return true;
        }
        return false;
    }

    /** {@code queries} each run with the clock at {@code epochMicros} (MariaDB's {@code SET STATEMENT timestamp = ... FOR}). */
    static List<ShardQuery> atOneTime(List<ShardQuery> queries, long epochMicros) {
        String prefix = String.format(Locale.ROOT, "SET STATEMENT timestamp = %d.%06d FOR ", epochMicros / 1_000_000, epochMicros % 1_000_000);
        var out = new ArrayList<ShardQuery>(queries.size());
        for (var q : queries) out.add(new ShardQuery(q.partition(), prefix + q.sql(), q.params()));
        return out;
    }

    /** Now, in microseconds since the epoch, as one time for every copy of a statement. */
    static long nowMicros() {
        var now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }

    private static SQLException refusal(TableDef table, String why) {
        String copies = table.partitioning() instanceof org.lutra.catalog.Partitioning.Replicated ? "a REPLICATED table, whose every partition"
                : "rows whose key is replicated (SET PARTITION = (p1, p2)), whose every copy";
        return new SQLException("Lutra does not support this write of " + table.name() + ", " + copies + " runs it: " + why
                + ", and the copies must stay identical; compute the value in the application and send it", Refusal.SQL_STATE, Refusal.VENDOR_CODE);
    }
}
