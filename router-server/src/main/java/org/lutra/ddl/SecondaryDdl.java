package org.lutra.ddl;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.KeyType;
import org.lutra.catalog.LiveCatalog;
import org.lutra.catalog.SchemaException;
import org.lutra.catalog.SchemaParser;
import org.lutra.catalog.SecondaryLookup;
import org.lutra.catalog.TableDef;
import org.lutra.config.RouterConfig;
import org.lutra.backend.Backends;
import org.lutra.placement.SecondaryEntries;
import org.lutra.exec.SessionCommand;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * CREATE and DROP SECONDARY LOOKUP, under the DDL lock ({@link DdlRunner}).
 *
 * <p>CREATE, in this order:
 * <ol>
 *   <li>checks (the table, each column: an integer or a string the router compares exactly, not the routing
 *       column; an index led by the columns on the table, UNIQUE of exactly them for a unique lookup: the protocol's
 *       checks read rows by it);
 *   <li>creates {@code lutra_sec_<name>} on every partition of the table, its value columns typed as the columns are;
 *   <li>records it in the stored catalog as BUILDING and waits one lease: from then on every router writes entries
 *       for the rows it writes (and none routes reads by it yet);
 *   <li>backfills: per partition, in one transaction, reads the column's distinct values with a locking read
 *       (it waits for transactions still writing rows there, and keeps new rows out until it ends), writes their
 *       entries at their homes (committed before the lock is released), then ends;
 *   <li>records it as built: routers route {@code col = v} reads by it from their next catalog renewal.
 * </ol>
 * A failure after step 3 (a duplicate value for UNIQUE, a partition down) takes it out of the catalog again and
 * drops its tables. A statement that began routing before step 3's wait and writes a row after the backfill read
 * its partition would leave that row without an entry: only a statement running longer than the lease.
 *
 * <p>DROP: out of the catalog, one lease's wait (no router reads the entries any more), then its tables dropped.
 */
final class SecondaryDdl {
    private static final Logger log = LoggerFactory.getLogger(SecondaryDdl.class);
    private static final int BATCH = 500;

    private final RouterConfig config;
    private final LiveCatalog live;
    private final CatalogLease lease;
    private final Backends backends;

    SecondaryDdl(RouterConfig config, LiveCatalog live, CatalogLease lease, Backends backends) {
        this.config = config;
        this.live = live;
        this.lease = lease;
        this.backends = backends;
    }

    long create(Connection store, SessionCommand.CreateSecondary c) throws SQLException {
        Catalog catalog = live.current();
        TableDef t = catalog.table(c.table());
        if (t == null) throw new SQLException("Table '" + config.database() + "." + c.table() + "' doesn't exist", "42S02", 1146);
        if (catalog.secondary(c.name()) != null) throw new SQLException("Duplicate key name '" + c.name() + "' (a secondary lookup of that name exists)", "42000", 1061);
        var building = new SecondaryLookup(c.name().toLowerCase(Locale.ROOT), t.name(), c.columns(), c.unique(), true);
        Catalog next;
        try {
            next = SchemaParser.withTable(catalog, building.createText());
        } catch (SchemaException e) {
            throw new SQLException(e.getMessage().replaceFirst("^CREATE TABLE: ", "CREATE SECONDARY LOOKUP: "), "42000", 1064, e);
        }
        building = next.secondary(building.name()); // the columns as the catalog spells them
        org.lutra.maintain.Collations.learn(next, backends); // a string column's equality, before any of its values is indexed
        int[] partitions = t.partitioning().partitions();
        refuseReplicatedKeys(t, building);
        requireIndex(partitions[0], t, building);
        var types = new ArrayList<String>();
        for (String column : building.columns()) types.add(columnType(partitions[0], t, column));
        for (int p : partitions) {
            apply(p, "DROP TABLE IF EXISTS " + DdlRunner.quote(building.indexTable()));
            apply(p, SecondaryEntries.createSql(building, types));
        }
        long version = CatalogStore.record(store, router(), List.of(new CatalogStore.Change(building.catalogKey(), building.createText())));
        lease.install(next, version);
        DdlRunner.sleep(lease.waitMillis()); // every router now writes entries for its writes of the table
        long entries = 0;
        try {
            // again now that every router refuses to replicate keys of the group, under the move fence: a batch that replicates
            // keys either committed before (and is seen here) or checks the catalog after, and sees the lookup (maintain.Mover)
            if (t.partitioning() instanceof org.lutra.catalog.Partitioning.LookedUp l) {
                try (var fenced = new org.lutra.placement.MoveFence(backends).sharedForCheck(l.owner())) {
                    refuseReplicatedKeys(t, building);
                }
            }
            for (int p : partitions) entries += backfill(t, building, p);
        } catch (SQLException | RuntimeException e) {
            takeOut(store, building);
            throw e;
        }
        SecondaryLookup built = building.built();
        version = CatalogStore.record(store, router(), List.of(new CatalogStore.Change(built.catalogKey(), built.createText())));
        lease.install(live.current().withSecondary(built), version);
        log.info("CREATE SECONDARY LOOKUP {} ON {}({}){}: {} entries from existing rows, catalog version {}", built.name(), t.name(), String.join(", ", built.columns()),
                built.unique() ? " UNIQUE" : "", entries, version);
        return 0;
    }

    long drop(Connection store, SessionCommand.DropSecondary d) throws SQLException {
        SecondaryLookup s = live.current().secondary(d.name());
        if (s == null) {
            if (d.ifExists()) return 0;
            throw new SQLException("Can't DROP SECONDARY LOOKUP '" + d.name() + "'; check that it exists", "42000", 1091);
        }
        takeOut(store, s);
        log.info("DROP SECONDARY LOOKUP {}", s.name());
        return 0;
    }

    /** Out of the catalog, one lease for every router to stop reading and writing it, then its tables dropped. */
    private void takeOut(Connection store, SecondaryLookup s) throws SQLException {
        long version = CatalogStore.record(store, router(), List.of(new CatalogStore.Change(s.catalogKey(), null)));
        lease.install(live.current().withoutSecondary(s.name()), version);
        DdlRunner.sleep(lease.waitMillis());
        TableDef t = live.current().table(s.table());
        if (t == null) return;
        for (int p : t.partitioning().partitions()) apply(p, "DROP TABLE IF EXISTS " + DdlRunner.quote(s.indexTable()));
    }

    /**
     * The entries of partition {@code p}'s rows: its distinct values read with a locking read (REPEATABLE READ:
     * next-key locks keep new rows out until the entries are written and this transaction ends).
     */
    private long backfill(TableDef t, SecondaryLookup s, int p) throws SQLException {
        var columns = new ArrayList<String>();
        var notNull = new ArrayList<String>();
        for (String column : s.columns()) {
            columns.add(DdlRunner.quote(column));
            notNull.add(DdlRunner.quote(column) + " IS NOT NULL");
        }
        try (Connection scan = backends.placement(p).borrow(); Statement st = scan.createStatement()) {
            scan.setAutoCommit(false); // borrow() gives REPEATABLE READ and the pool's innodb_lock_wait_timeout
            try {
                var raw = new ArrayList<Object[]>();
                try (ResultSet rs = st.executeQuery("SELECT DISTINCT " + String.join(", ", columns) + " FROM " + DdlRunner.quote(t.name()) + " WHERE "
                        + String.join(" AND ", notNull) + " LOCK IN SHARE MODE")) {
                    while (rs.next()) {
                        var value = new Object[columns.size()];
                        for (int i = 0; i < value.length; i++) {
                            value[i] = t.column(s.columns().get(i)).keyType() == KeyType.LONG ? (Object) rs.getLong(i + 1) : org.lutra.backend.BackendDriver.text(rs, i + 1);
                        }
                        raw.add(value);
                    }
                }
                var values = new ArrayList<Object>();
                Object[] keys = s.keys(t, raw.toArray(new Object[0][])); // a collation the backend weighs: one round trip per column and batch
                for (int i = 0; i < keys.length; i++) {
                    if (keys[i] == null) throw new SQLException("secondary lookup " + s.name() + ": cannot index the value " + java.util.Arrays.toString(raw.get(i)), "HY000", 0);
                    values.add(keys[i]);
                }
                // tuples equal under the columns' collations are one value (SELECT DISTINCT compares as the columns do, but to be sure)
                values = new ArrayList<>(new java.util.LinkedHashSet<>(values));
                var byHome = new java.util.TreeMap<Integer, List<Object>>();
                for (Object v : values) byHome.computeIfAbsent(s.home(t, v), h -> new ArrayList<>()).add(v);
                for (var home : byHome.entrySet()) write(t, s, home.getKey(), home.getValue(), p);
                scan.commit();
                return values.size();
            } finally {
                try {
                    scan.rollback();
                    scan.setAutoCommit(true);
                } catch (SQLException ignored) {
                    // the pool replaces a broken connection
                }
            }
        }
    }

    /** Binds a value's parts (one per column) from parameter {@code at} on; the next parameter's index. */
    private static int bind(PreparedStatement ps, int at, Object value) throws SQLException {
        for (Object part : SecondaryLookup.parts(value)) ps.setObject(at++, org.lutra.catalog.KeyValues.bindable(part));
        return at;
    }

    /** Entries (v, p) at {@code home}; for UNIQUE, a value whose entry names another partition that holds it is a duplicate. */
    private void write(TableDef t, SecondaryLookup s, int home, List<Object> values, int p) throws SQLException {
        String index = DdlRunner.quote(s.indexTable());
        String one = "(" + "?, ".repeat(s.columns().size()) + "?)";
        try (Connection c = backends.placement(home).borrow()) {
            for (int from = 0; from < values.size(); from += BATCH) {
                var chunk = values.subList(from, Math.min(values.size(), from + BATCH));
                try (PreparedStatement ps = c.prepareStatement("INSERT IGNORE INTO " + index + " (" + s.valueList() + ", p) VALUES "
                        + String.join(", ", java.util.Collections.nCopies(chunk.size(), one)))) {
                    int i = 1;
                    for (Object v : chunk) {
                        i = bind(ps, i, v);
                        ps.setInt(i++, p);
                    }
                    ps.executeUpdate();
                }
            }
            if (!s.unique()) return;
            for (Object v : values) {
                int named;
                try (PreparedStatement ps = c.prepareStatement("SELECT p FROM " + index + " WHERE " + s.entriesMatch(1))) {
                    bind(ps, 1, v);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        named = rs.getInt(1);
                    }
                }
                if (named == p) continue;
                if (holds(t, s, named, v)) {
                    throw new SQLException("Duplicate entry '" + v + "' for key '" + s.name() + "': " + t.name() + " has rows with " + s.columnList() + " = '" + v
                            + "' on " + backends.placement(p).name() + " and " + backends.placement(named).name()
                            + "; CREATE SECONDARY LOOKUP ... UNIQUE failed, nothing kept", "23000", 1062);
                }
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + index + " SET p = ? WHERE " + s.entriesMatch(1) + " AND p = ?")) {
                    ps.setInt(1, p);
                    int i = bind(ps, 2, v);
                    ps.setInt(i, named);
                    ps.executeUpdate();
                }
            }
        }
    }

    private boolean holds(TableDef t, SecondaryLookup s, int p, Object v) throws SQLException {
        try (Connection c = backends.placement(p).borrow();
             PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + DdlRunner.quote(t.name()) + " WHERE " + s.rowsMatch() + " LIMIT 1")) {
            bind(ps, 1, v);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /**
     * Refused without an index led by the columns (in any order; UNIQUE: a unique index of exactly them): every check of the
     * protocol reads rows by them.
     */
    private void requireIndex(int p, TableDef t, SecondaryLookup s) throws SQLException {
        int n = s.columns().size();
        String in = String.join(", ", java.util.Collections.nCopies(n, "LOWER(?)"));
        String sql = s.unique()
                ? "SELECT 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND NON_UNIQUE = 0"
                  + " GROUP BY INDEX_NAME HAVING COUNT(*) = " + n + " AND SUM(LOWER(COLUMN_NAME) IN (" + in + ")) = " + n
                : "SELECT 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND SEQ_IN_INDEX <= " + n
                  + " AND LOWER(COLUMN_NAME) IN (" + in + ") GROUP BY INDEX_NAME HAVING COUNT(*) = " + n;
        try (Connection c = backends.placement(p).borrow(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, t.name());
            for (int i = 0; i < n; i++) ps.setString(i + 2, s.columns().get(i));
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) return;
            }
        }
        String columns = String.join(", ", s.columns());
        throw new SQLException("CREATE SECONDARY LOOKUP " + s.name() + ": " + t.name() + " needs " + (s.unique() ? "a UNIQUE index on (" + columns + ")" : "an index beginning with "
                + (n == 1 ? columns : "(" + columns + ")")) + " first (CREATE " + (s.unique() ? "UNIQUE " : "") + "INDEX ... ON " + t.name() + " (" + columns
                + ")): the lookup's checks read rows by " + (n == 1 ? "it" : "them"), "HY000", 1082);
    }

    /** The column's type as the partition has it, with its character set and collation: the entries compare as the table does. */
    private String columnType(int p, TableDef t, String column) throws SQLException {
        try (Connection c = backends.placement(p).borrow(); PreparedStatement ps = c.prepareStatement(
                "SELECT COLUMN_TYPE, CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?"
                        + " AND LOWER(COLUMN_NAME) = LOWER(?)")) {
            ps.setString(1, t.name());
            ps.setString(2, column);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new SQLException("Unknown column '" + column + "' in '" + t.name() + "'", "42S22", 1054);
                String type = rs.getString(1);
                return rs.getString(2) == null ? type : type + " CHARACTER SET " + rs.getString(2) + " COLLATE " + rs.getString(3);
            }
        }
    }

    /**
     * Refused where the table's lookup group has a replicated key (a placement row naming several partitions, on any
     * partition): a secondary lookup's entries name one partition a row, and replicating a key of a group with one is
     * refused too, so that a group with a secondary lookup has no replicated keys (its scans skip the question).
     */
    private void refuseReplicatedKeys(TableDef t, SecondaryLookup s) throws SQLException {
        if (!(t.partitioning() instanceof org.lutra.catalog.Partitioning.LookedUp lookup)) return;
        String sql = "SELECT k FROM " + DdlRunner.quote(org.lutra.placement.PlacementRows.table(lookup.owner())) + " WHERE partitions LIKE '%,%' LIMIT 1";
        for (int p : lookup.partitions()) {
            try (Connection c = backends.placement(p).borrow(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
                if (rs.next()) {
                    throw new SQLException("Lutra does not support secondary lookups in a lookup group with replicated keys: " + t.name() + "'s group ('"
                            + lookup.owner() + "') has keys on several partitions (key " + rs.getString(1) + ", among others maybe); CREATE SECONDARY LOOKUP "
                            + s.name() + " refused, nothing created (place each key on one partition with SET PARTITION = p first)",
                            org.lutra.protocol.Refusal.SQL_STATE, org.lutra.protocol.Refusal.VENDOR_CODE);
                }
            }
        }
    }

    private void apply(int p, String sql) throws SQLException {
        try (Connection c = backends.placement(p).borrow(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private String router() {
        return config.transactions().routerName();
    }
}
