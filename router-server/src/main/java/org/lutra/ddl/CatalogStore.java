package org.lutra.ddl;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The stored catalog: two tables in the first partition's database (p0), the one every router reads.
 *
 * <pre>
 * lutra_catalog         (table_name PK, create_sql, position, dropped, changed_version, changed_by)
 * lutra_catalog_version (id = 1, version)
 * </pre>
 *
 * One row per table ever defined: the full CREATE TABLE with its placement clause, its creation order
 * ({@code position}: an owner before its SAME AS tables), and a tombstone ({@code dropped = 1}) once
 * dropped, so that a schema-file table dropped through DDL is not created again at the next start.
 * Every change is one backend transaction that also increments the version: a router that reads
 * the version reads whether anything changed ({@link CatalogLease}).
 *
 * <p>DDL is serialized over all routers by a named lock ({@link #lock}) held on the connection that
 * records the change, for the whole statement.
 */
public final class CatalogStore {
    static final String TABLE = "lutra_catalog";
    static final String VERSION = "lutra_catalog_version";

    /** One stored table; {@code createSql} is empty for a tombstone. */
    public record Entry(String name, String createSql, long position, boolean dropped) {}

    /** The stored catalog at {@code version}, entries in creation order. */
    public record Snapshot(long version, List<Entry> entries) {
        public List<String> liveCreateTexts() {
            return entries.stream().filter(e -> !e.dropped()).map(Entry::createSql).toList();
        }

        public Entry entry(String table) {
            return entries.stream().filter(e -> e.name().equalsIgnoreCase(table)).findFirst().orElse(null);
        }
    }

    /** A change to record: a table's new definition ({@code createSql}), or its drop ({@code createSql} null). */
    public record Change(String table, String createSql) {}

    private CatalogStore() {}

    static void ensureTables(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (table_name VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY,"
                    + " create_sql MEDIUMTEXT NOT NULL, position BIGINT NOT NULL, dropped TINYINT NOT NULL DEFAULT 0,"
                    + " changed_version BIGINT NOT NULL, changed_by VARCHAR(64) NOT NULL) ENGINE=InnoDB");
            st.execute("CREATE TABLE IF NOT EXISTS " + VERSION + " (id TINYINT PRIMARY KEY, version BIGINT NOT NULL) ENGINE=InnoDB");
            st.execute("INSERT IGNORE INTO " + VERSION + " (id, version) VALUES (1, 0)");
        }
    }

    /** The version alone: what a lease renewal reads. */
    static long readVersion(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT version FROM " + VERSION + " WHERE id = 1")) {
            if (!rs.next()) throw new SQLException("the stored catalog has no version row (" + VERSION + ")", "HY000", 0);
            return rs.getLong(1);
        }
    }

    /** The version and the entries, read in one consistent snapshot. */
    static Snapshot read(Connection c) throws SQLException {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            st.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
            long version;
            try (ResultSet rs = st.executeQuery("SELECT version FROM " + VERSION + " WHERE id = 1")) {
                rs.next();
                version = rs.getLong(1);
            }
            var entries = new ArrayList<Entry>();
            try (ResultSet rs = st.executeQuery("SELECT table_name, create_sql, position, dropped FROM " + TABLE + " ORDER BY position")) {
                while (rs.next()) entries.add(new Entry(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getBoolean(4)));
            }
            c.commit();
            return new Snapshot(version, List.copyOf(entries));
        } finally {
            c.setAutoCommit(auto);
        }
    }

    /** Records {@code changes} and increments the version, in one transaction; returns the new version. */
    static long record(Connection c, String router, List<Change> changes) throws SQLException {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            long version;
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT version FROM " + VERSION + " WHERE id = 1 FOR UPDATE")) {
                rs.next();
                version = rs.getLong(1) + 1;
            }
            long position;
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT COALESCE(MAX(position), 0) FROM " + TABLE)) {
                rs.next();
                position = rs.getLong(1);
            }
            for (Change change : changes) {
                String key = change.table().toLowerCase(java.util.Locale.ROOT);
                if (change.createSql() == null) {
                    try (PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE + " SET dropped = 1, create_sql = '', changed_version = ?,"
                            + " changed_by = ? WHERE table_name = ?")) {
                        ps.setLong(1, version);
                        ps.setString(2, router);
                        ps.setString(3, key);
                        ps.executeUpdate();
                    }
                } else {
                    // a table created (again) goes to the end of the creation order; an altered one keeps its place
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (table_name, create_sql, position, dropped,"
                            + " changed_version, changed_by) VALUES (?, ?, ?, 0, ?, ?) ON DUPLICATE KEY UPDATE create_sql = VALUES(create_sql),"
                            + " position = IF(dropped = 1, VALUES(position), position), dropped = 0, changed_version = VALUES(changed_version),"
                            + " changed_by = VALUES(changed_by)")) {
                        ps.setString(1, key);
                        ps.setString(2, change.createSql());
                        ps.setLong(3, ++position);
                        ps.setLong(4, version);
                        ps.setString(5, router);
                        ps.executeUpdate();
                    }
                }
            }
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + VERSION + " SET version = ? WHERE id = 1")) {
                ps.setLong(1, version);
                ps.executeUpdate();
            }
            c.commit();
            return version;
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException ignored) {
                // the connection is lost; the server rolls back
            }
            throw e;
        } finally {
            c.setAutoCommit(auto);
        }
    }

    /** The DDL lock's name: server-wide, so it names the stored catalog's database. */
    static String lockName(Connection c) throws SQLException {
        String name = "lutra_ddl:" + c.getCatalog();
        return name.length() <= 64 ? name : "lutra_ddl:" + Integer.toHexString(c.getCatalog().hashCode());
    }

    /** Takes the DDL lock on {@code c}, waiting up to {@code seconds}; false if another router's DDL held it that long. */
    static boolean lock(Connection c, int seconds) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT GET_LOCK(?, ?)")) {
            ps.setString(1, lockName(c));
            ps.setInt(2, seconds);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getInt(1) == 1;
            }
        }
    }

    static void unlock(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT RELEASE_LOCK(?)")) {
            ps.setString(1, lockName(c));
            ps.executeQuery().close();
        }
    }
}
