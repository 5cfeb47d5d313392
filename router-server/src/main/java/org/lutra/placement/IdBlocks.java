package org.lutra.placement;

import org.lutra.backend.Backends;
import org.lutra.catalog.TableDef;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hands out AUTO_INCREMENT ids that are unique across all partitions and all routers on the same
 * backends. The counter of each table lives in {@value #TABLE} in the first partition's database;
 * a router takes a block of ids from it in one atomic statement on a connection of its own
 * (outside any client transaction: a rolled-back insert leaves a gap, as in MySQL) and hands them
 * out from memory.
 *
 * <p>Protocol, per table:
 * <ol>
 *   <li>First use by this router: {@code MAX(col)} on every partition of the table, then
 *       {@code INSERT .. ON DUPLICATE KEY UPDATE next_value = GREATEST(next_value, max + 1)}, so the
 *       counter starts above every row there is, including rows written before the router ran.</li>
 *   <li>A block: {@code UPDATE .. SET next_value = LAST_INSERT_ID(next_value + n)}, then
 *       {@code SELECT LAST_INSERT_ID()} on the same connection gives the new end; the block is
 *       [end - n, end). InnoDB's row lock makes two routers' blocks disjoint.</li>
 *   <li>An explicit id at or past this router's next id (MySQL moves its counter past explicit ids):
 *       inside the block, the router skips to the id after it; past the block, it takes a new block
 *       that starts after it ({@code GREATEST(next_value, id + 1) + n}), so a load of explicit
 *       ascending ids costs one round trip per block, not per row.</li>
 * </ol>
 * Blocks start at {@value #MIN_BLOCK} ids and double, up to {@value #MAX_BLOCK}, while a table
 * needs a new one within a second of the last; the unused rest of a block is lost when the router
 * stops (gaps, never reuse).
 */
public final class IdBlocks {
    static final String TABLE = "lutra_sequences";
    private static final String DDL = "CREATE TABLE IF NOT EXISTS " + TABLE + " ("
            + "table_name VARCHAR(192) NOT NULL PRIMARY KEY, next_value BIGINT NOT NULL) ENGINE=InnoDB";
    static final int MIN_BLOCK = 100;
    static final int MAX_BLOCK = 10_000;

    private final Backends backends;
    private final Map<String, Sequence> sequences = new ConcurrentHashMap<>();
    private volatile boolean installed;

    public IdBlocks(Backends backends) {
        this.backends = backends;
    }

    /** {@code n} new ids for {@code table}'s AUTO_INCREMENT {@code column}, ascending. */
    public long[] next(TableDef table, String column, int n) throws SQLException {
        return sequence(table).next(table, column, n);
    }

    /** An explicit {@code id} was written to the column: ids handed out later are greater. */
    public void written(TableDef table, String column, long id) throws SQLException {
        sequence(table).written(table, column, id);
    }

    private Sequence sequence(TableDef table) {
        return sequences.computeIfAbsent(table.name().toLowerCase(Locale.ROOT), k -> new Sequence());
    }

    /** One table's ids in this router: the block [next, end). */
    private final class Sequence {
        private long next;
        private long end;
        private boolean seeded;
        private int blockSize = MIN_BLOCK;
        private long lastReserved;

        synchronized long[] next(TableDef table, String column, int n) throws SQLException {
            long[] ids = new long[n];
            for (int i = 0; i < n; i++) {
                if (next >= end) reserve(table, column, n - i, 0);
                ids[i] = next++;
            }
            return ids;
        }

        synchronized void written(TableDef table, String column, long id) throws SQLException {
            if (id < next) return;
            if (id < end) {
                next = id + 1;
            } else {
                reserve(table, column, 1, id + 1);
            }
        }

        /** A new block of at least {@code wanted} ids, starting at {@code from} or later. */
        private void reserve(TableDef table, String column, int wanted, long from) throws SQLException {
            long now = System.nanoTime();
            if (lastReserved != 0 && now - lastReserved < 1_000_000_000L) blockSize = Math.min(MAX_BLOCK, blockSize * 2);
            else if (lastReserved != 0) blockSize = MIN_BLOCK;
            lastReserved = now;
            int size = Math.max(wanted, blockSize);
            var placement = backends.placement(backends.catalog().partitions().getFirst().id());
            try {
                long highest = seeded ? 0 : highest(table, column); // before holding a connection: it takes one per partition
                try (var aside = Aside.of(placement)) {
                    Connection c = aside.connection();
                    install(c);
                    if (!seeded) {
                        seed(c, table, highest);
                        seeded = true;
                    }
                    take(c, table, from, size);
                }
            } catch (SQLException e) {
                throw Backends.located(placement, new SQLException("reserving AUTO_INCREMENT ids for " + table.name() + ": " + e.getMessage(),
                        e.getSQLState(), e.getErrorCode(), e));
            }
        }

        /** The block [end - size, end) of the stored counter, moved to {@code from} first if it is below. */
        private void take(Connection c, TableDef table, long from, int size) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE + " SET next_value = LAST_INSERT_ID(GREATEST(next_value, ?) + ?) WHERE table_name = ?")) {
                ps.setLong(1, from);
                ps.setLong(2, size);
                ps.setString(3, key(table));
                if (ps.executeUpdate() != 1) throw new SQLException("the id counter of " + table.name() + " vanished from " + TABLE, "HY000", 0);
            }
            long newEnd;
            try (Statement st = c.createStatement(); var rs = st.executeQuery("SELECT LAST_INSERT_ID()")) {
                rs.next();
                newEnd = rs.getLong(1);
            }
            next = newEnd - size;
            end = newEnd;
        }

        /** The largest value of {@code column} on any partition of the table (0 if none). */
        private long highest(TableDef table, String column) throws SQLException {
            long max = 0;
            for (int p : table.partitioning().partitions()) {
                try (var aside = Aside.of(backends.placement(p)); Statement st = aside.connection().createStatement();
                     var rs = st.executeQuery("SELECT MAX(`" + column.replace("`", "``") + "`) FROM `" + table.name().replace("`", "``") + "`")) {
                    if (rs.next()) max = Math.max(max, rs.getLong(1));
                }
            }
            return max;
        }

        /** Moves the stored counter above {@code max}, the largest id the table has. */
        private void seed(Connection c, TableDef table, long max) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (table_name, next_value) VALUES (?, ?)"
                    + " ON DUPLICATE KEY UPDATE next_value = GREATEST(next_value, VALUES(next_value))")) {
                ps.setString(1, key(table));
                ps.setLong(2, max + 1);
                ps.executeUpdate();
            }
        }
    }

    /**
     * A connection of the partition's scratch pool, watched for a frozen server like the statement
     * pool's ({@link org.lutra.backend.BackendWatch}): not the statement pool, whose connections the sessions waiting
     * for an id may all hold in their transactions.
     */
    private record Aside(Backends.Placement placement, Connection connection) implements AutoCloseable {
        static Aside of(Backends.Placement placement) throws SQLException {
            Connection c = placement.scratch().getConnection();
            placement.waiting().add(c);
            return new Aside(placement, c);
        }

        @Override
        public void close() throws SQLException {
            placement.waiting().remove(connection);
            connection.close();
        }
    }

    private void install(Connection c) throws SQLException {
        if (installed) return;
        try (Statement st = c.createStatement()) {
            st.execute(DDL);
        }
        installed = true;
    }

    private static String key(TableDef table) {
        return table.name().toLowerCase(Locale.ROOT);
    }
}
