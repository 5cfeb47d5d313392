package org.lutra.placement;

import org.lutra.backend.Misplaced;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * The durable half of a lookup table: where keys live when they do not live at home, kept on
 * the backends so that every router, whatever its cache holds, places new rows right.
 *
 * <p>Every key of a lookup group (an owner table and its SAME AS tables) has a <em>home</em>:
 * the partition its DEFAULT NEW rule gives it ({@link Partitioning.LookedUp#placeNew}). Each
 * partition holds a table {@code lutra_place_<owner>(k, partitions)}:
 * <ul>
 *   <li>at a key's home, a row means "the key's rows are on {@code partitions}, not here"
 *       (written by moves, map reservations and the start-up scan); no row means "at home";
 *   <li>at a partition the key has left, a row (a tombstone) names where it went; routers whose
 *       cache still points there learn from it.
 * </ul>
 *
 * <p>An AFTER INSERT trigger on every table of the group enforces the rule on each partition: a
 * new row whose key has a row here that does not name this partition is refused (SQLSTATE 45000,
 * {@link #MISPLACED}). The trigger writes the row first and then reads the placement row with a
 * shared lock; a move writes the placement rows first and then reads the key's rows with a
 * locking read. Of an insert and a move of the same key at once, one of the two therefore waits
 * for the other and sees its result: the insert is refused and redirected, or the move carries
 * the new row along (or InnoDB breaks a deadlock and the loser fails whole). The same holds for
 * two routers placing the same new key on two partitions: the second writer of the home row
 * waits for the first.
 *
 * <p>A router therefore inserts where its cache (or the DEFAULT NEW rule) says; only a refused
 * insert costs a read of the home rows ({@link #resolveSql}) and a second try.
 */
public final class PlacementRows {
    /** The trigger's message prefix; the partition names follow, comma-separated ({@link Misplaced}). */
    public static final String MISPLACED = Misplaced.MARKER;

    private PlacementRows() {}

    /** The placement table of {@code owner}'s lookup group. */
    public static String table(String owner) {
        return "lutra_place_" + owner.toLowerCase(Locale.ROOT);
    }

    /**
     * Creates, on the partition {@code partition} that {@code st} is connected to (its database in
     * use), the placement table of every lookup group placed there and the trigger of each of
     * their tables. IF NOT EXISTS: routers start side by side; none replaces what another uses.
     */
    public static void install(Statement st, Catalog catalog, int partition) throws SQLException {
        for (TableDef t : catalog.tablesInSchemaOrder()) install(st, catalog, t, partition);
    }

    /** {@link #install} for one table (a lookup or SAME AS table placed on {@code partition}; others are left alone). */
    public static void install(Statement st, Catalog catalog, TableDef t, int partition) throws SQLException {
        String partitionName = catalog.partition(partition).name();
        {
            if (!(t.partitioning() instanceof Partitioning.LookedUp lookup) || !placedOn(lookup, partition)) return;
            String placeTable = table(lookup.owner());
            String trigger = "lutra_placed_" + t.name().toLowerCase(Locale.ROOT);
            if (placeTable.length() > 64 || trigger.length() > 64) {
                throw new SQLException("table name '" + t.name() + "' is too long for its placement table or trigger (64 characters)", "42000", 1059);
            }
            if (lookup.owner().equalsIgnoreCase(t.name())) {
                st.execute("CREATE TABLE IF NOT EXISTS `" + placeTable + "` (k " + keyType(st, t.name(), lookup.column())
                        + " NOT NULL PRIMARY KEY, partitions VARCHAR(1024) NOT NULL) ENGINE=InnoDB");
            }
            st.execute("CREATE TRIGGER IF NOT EXISTS `" + trigger + "` AFTER INSERT ON `" + t.name() + "` FOR EACH ROW BEGIN\n"
                    + "  DECLARE placed VARCHAR(1024) DEFAULT NULL;\n"
                    + "  DECLARE message VARCHAR(1100);\n"
                    + "  DECLARE CONTINUE HANDLER FOR NOT FOUND SET placed = NULL;\n"
                    + "  SELECT partitions INTO placed FROM `" + placeTable + "` WHERE k = NEW.`" + lookup.column() + "` LOCK IN SHARE MODE;\n"
                    + "  IF placed IS NOT NULL AND FIND_IN_SET('" + partitionName + "', placed) = 0 THEN\n"
                    + "    SET message = CONCAT('" + MISPLACED + "', placed);\n"
                    + "    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = message;\n"
                    + "  END IF;\n"
                    + "END");
            // a key on several partitions (replicated): its rows change only in a write the router sent to every one of
            // them, in one transaction, under its home row's lock ({@link #MARK}); any other is refused
            st.execute("CREATE TABLE IF NOT EXISTS `" + MARKS + "` (conn BIGINT UNSIGNED NOT NULL PRIMARY KEY,"
                    + " marked BOOLEAN NOT NULL) ENGINE=InnoDB");
            for (String[] event : new String[][] {{"i", "AFTER INSERT", "NEW"}, {"u", "BEFORE UPDATE", "OLD"}, {"d", "BEFORE DELETE", "OLD"}}) {
                String name = "lutra_copy_" + event[0] + "_" + t.name().toLowerCase(Locale.ROOT);
                if (name.length() > 64) throw new SQLException("table name '" + t.name() + "' is too long for its placement triggers (64 characters)", "42000", 1059);
                st.execute("DROP TRIGGER IF EXISTS `lutra_copies_" + event[0] + "_" + t.name().toLowerCase(Locale.ROOT) + "`"); // an earlier version's
                // the placement row first: only a replicated key's write reads the marks, and finds its own row there
                st.execute("CREATE TRIGGER IF NOT EXISTS `" + name + "` " + event[1] + " ON `" + t.name() + "` FOR EACH ROW BEGIN\n"
                        + "  DECLARE placed VARCHAR(1024) DEFAULT NULL;\n"
                        + "  DECLARE message VARCHAR(1100);\n"
                        + "  DECLARE CONTINUE HANDLER FOR NOT FOUND SET placed = NULL;\n"
                        + "  SELECT partitions INTO placed FROM `" + placeTable + "` WHERE k = " + event[2] + ".`" + lookup.column() + "` LOCK IN SHARE MODE;\n"
                        + "  IF placed LIKE '%,%' THEN\n"
                        + "    IF NOT EXISTS (SELECT 1 FROM `" + MARKS + "` WHERE conn = CONNECTION_ID() AND marked) THEN\n"
                        + "      SET message = CONCAT('" + MISPLACED + "', placed);\n"
                        + "      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = message;\n"
                        + "    END IF;\n"
                        + "  END IF;\n"
                        + "END");
            }
        }
    }

    /**
     * A writer of a replicated key's rows on every partition of its set (holding the key's home row with a shared
     * lock, so the set cannot change before it commits) marks its transaction on each of them with {@link #MARK}, and
     * takes the mark back ({@link #UNMARK}) before it commits: the triggers let a marked transaction through. The mark
     * is a change of the connection's own row, uncommitted until the mark is taken back and undone if the transaction
     * rolls back — a connection never goes back to its pool still marked (a session variable would, after a failed
     * statement).
     *
     * <p>Why a row per connection that stays, rather than one inserted and deleted per write: the triggers' read of the
     * marks is a locking read (InnoDB locks what a statement's trigger reads in REPEATABLE READ). A read that finds no
     * row locks the gap where it would be, and an insert into that gap (another transaction's mark) waits for it to
     * commit; so did the re-insert of a deleted row. With each writer finding and changing only its own row, writers
     * lock records, not gaps, and never wait for each other here. Only writes of replicated keys read the marks at all.
     * A connection's first mark inserts its row; rows of connections that are gone are harmless (ids are not reused
     * while the server runs, and a row is committed only unmarked).
     */
    static final String MARKS = "lutra_copy_writers";
    public static final String MARK = "INSERT INTO `" + MARKS + "` (conn, marked) VALUES (CONNECTION_ID(), TRUE) ON DUPLICATE KEY UPDATE marked = TRUE";
    public static final String UNMARK = "UPDATE `" + MARKS + "` SET marked = FALSE WHERE conn = CONNECTION_ID()";

    /** Whether a placement row's partition list names several partitions (a replicated key). */
    public static boolean replicated(String partitions) {
        return partitions.indexOf(',') >= 0;
    }

    /**
     * The condition a scan's shard SQL adds on {@code partition} for the routing column {@code column}
     * of a table of {@code owner}'s group: not a copy of a replicated key whose first partition (its
     * primary) is another. Every replicated key is then counted once, at its primary. (A NULL key is no copy:
     * {@code NULL NOT IN (...)} alone would leave its rows out.)
     */
    public static String notACopy(String owner, String column, String partitionName) {
        return "(" + column + " IS NULL OR " + column + " NOT IN (SELECT k FROM `" + table(owner) + "` WHERE partitions LIKE '%,%'"
                + " AND SUBSTRING_INDEX(partitions, ',', 1) <> '" + partitionName + "'))";
    }

    /**
     * Whether {@code owner}'s placement table on partition {@code partitionName} holds a replicated key that lives there too
     * (SQL, no parameters): the partition holds its rows, as a copy or as the primary. A home row or a tombstone naming a set
     * without this partition means no rows here (an old tombstone is not updated when its key is un-replicated later; counting
     * it made every scan and unkeyed write of the group take the copies' path for good).
     */
    public static String anyReplicatedSql(String owner, String partitionName) {
        return "SELECT 1 FROM `" + table(owner) + "` WHERE partitions LIKE '%,%' AND FIND_IN_SET('" + partitionName + "', partitions) > 0 LIMIT 1";
    }

    private static boolean placedOn(Partitioning.LookedUp lookup, int partition) {
        for (int p : lookup.partitions()) if (p == partition) return true;
        return false;
    }

    /** The key column's type as the server has it (character set and collation included), so the placement table compares alike. */
    private static String keyType(Statement st, String table, String column) throws SQLException {
        try (var rs = st.executeQuery("SELECT COLUMN_TYPE, CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLUMNS"
                + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '" + table.replace("'", "''") + "' AND COLUMN_NAME = '"
                + column.replace("'", "''") + "'")) {
            if (!rs.next()) throw new SQLException("placement: column " + table + "." + column + " not found on the backend", "42S22", 1054);
            String type = rs.getString(1);
            return rs.getString(3) == null ? type : type + " CHARACTER SET " + rs.getString(2) + " COLLATE " + rs.getString(3);
        }
    }

    /** The partition names a refused insert's error names, or null if {@code e} is not the placement trigger's. */
    public static String misplaced(SQLException e) {
        return Misplaced.partitions(e);
    }

    /** Reads the home rows of {@code n} keys: {@code (k, partitions)} for those that live away from home. */
    public static String resolveSql(String owner, int n) {
        return "SELECT k, partitions FROM `" + table(owner) + "` WHERE k IN (" + "?,".repeat(n - 1) + "?)";
    }
}
