package org.lutra.placement;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The channel through which routers hear each other's placement changes: a table
 * {@code lutra_placement_log} on every partition, one row per change of a key's home row, written
 * in the same transaction as that change, at the key's home partition (so no change adds a branch
 * to a move's transaction).
 *
 * <p>Ordering. A writer inserts the log row after it has written (or locked) the key's home row,
 * whose lock it holds until it commits; the next change of the same key waits for that lock. So
 * the entries of one key come in one partition's log, in {@code seq} order of their commits: an
 * entry read late (its transaction committed after a later {@code seq} of another key was read)
 * is never older than an entry of the same key already applied.
 *
 * <p>Routers tail every partition's log ({@code maintain.PlacementTailer}); nothing depends on
 * it for correctness: the home rows are the truth, and a missed or late entry costs one
 * validation miss (the statement reads the home rows and learns).
 */
public final class PlacementLog {
    public static final String TABLE = "lutra_placement_log";

    private PlacementLog() {}

    /** Creates the log on the partition {@code st} uses (IF NOT EXISTS: routers start side by side). */
    public static void install(Statement st) throws SQLException {
        st.execute("CREATE TABLE IF NOT EXISTS `" + TABLE + "` (seq BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, owner VARCHAR(64) NOT NULL,"
                + " k VARCHAR(3072) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, partitions VARCHAR(1024) NOT NULL,"
                + " written TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), KEY (written)) ENGINE=InnoDB");
    }

    /** An INSERT of {@code n} entries; {@link #params} gives its parameters. */
    public static String insertSql(int n) {
        return "INSERT INTO `" + TABLE + "` (owner, k, partitions) VALUES " + "(?, ?, ?), ".repeat(n - 1) + "(?, ?, ?)";
    }

    /** The parameters of {@link #insertSql}: every key of {@code owner}'s group now lives on {@code partitionName}. */
    public static List<Object> params(String owner, List<Object> keys, String partitionName) {
        var out = new ArrayList<Object>(keys.size() * 3);
        for (Object k : keys) {
            out.add(owner.toLowerCase(java.util.Locale.ROOT));
            out.add(keyText(k));
            out.add(partitionName);
        }
        return out;
    }

    /** A normalized key as the log stores it; the owner table's {@code key(text)} reads it back. */
    public static String keyText(Object key) {
        return key instanceof String s ? s : String.valueOf(key);
    }
}
