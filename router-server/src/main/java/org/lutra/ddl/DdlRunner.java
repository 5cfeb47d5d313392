package org.lutra.ddl;

import net.sf.jsqlparser.statement.create.table.CreateTable;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.DefaultPlacement;
import org.lutra.catalog.LiveCatalog;
import org.lutra.catalog.Partition;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.SchemaException;
import org.lutra.catalog.SchemaParser;
import org.lutra.catalog.TableDef;
import org.lutra.config.RouterConfig;
import org.lutra.backend.BackendSetup;
import org.lutra.backend.Backends;
import org.lutra.backend.Warnings;
import org.lutra.maintain.Collations;
import org.lutra.exec.SessionCommand;
import org.lutra.protocol.Refusal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Runs DDL through the router: on every partition that holds the table, one partition after the
 * other, and records the change in the stored catalog ({@link CatalogStore}), all under the DDL lock
 * so that routers' DDL statements run one at a time. The order of each statement makes a failure
 * half-way leave the catalog consistent with what routers may route (docs/ddl.md):
 *
 * <ul>
 *   <li>CREATE TABLE: checked (placement, partitions, SAME AS) against the catalog, created on its
 *       partitions, then recorded. One partition refusing: the table is dropped again where this
 *       statement created it, nothing is recorded. With IF NOT EXISTS a table already on a partition is
 *       taken as it is, so running it again finishes an interrupted one.
 *   <li>DROP TABLE: recorded first (no router routes to the table once {@link CatalogLease#waitMillis()}
 *       has passed), then dropped on its partitions; what a partition refused is named, and
 *       DROP TABLE IF EXISTS of a table the catalog no longer has drops it wherever it is left.
 *   <li>ALTER TABLE, CREATE/DROP INDEX: applied on each partition, stopping at the first refusal (the
 *       error names where it applied); once all applied, the new definition (SHOW CREATE TABLE of a
 *       partition with the placement clause) is recorded and the statement waits one lease, so every
 *       router has it when the statement returns.
 *   <li>TRUNCATE: on each partition; not recorded (the definition does not change).
 * </ul>
 */
public final class DdlRunner {
    private static final Logger log = LoggerFactory.getLogger(DdlRunner.class);

    private final RouterConfig config;
    private final LiveCatalog live;
    private final CatalogLease lease;
    private final Backends backends;
    private final DefaultPlacement defaultPlacement;

    public DdlRunner(RouterConfig config, LiveCatalog live, CatalogLease lease, Backends backends) {
        this.config = config;
        this.live = live;
        this.lease = lease;
        this.backends = backends;
        this.defaultPlacement = DefaultPlacement.of(config.catalog().defaultPlacement());
        this.secondaries = new SecondaryDdl(config, live, lease, backends);
        this.sequences = new SequenceDdl(config, live, lease, backends);
        this.partitions = new DdlPartitions(config, backends);
        this.alters = new AlterDdl(config, live, lease, backends, partitions);
    }

    private final DdlPartitions partitions;
    private final AlterDdl alters;

    private final SequenceDdl sequences;

    /** The session's foreign_key_checks for the statement running (DDL statements run one at a time, under the catalog lock). */

    private final SecondaryDdl secondaries;

    /**
     * The session's foreign_key_checks: off, a table may be dropped or emptied while others reference it, and created before
     * the tables it references.
     */
    public enum KeyChecks { ON, OFF }

    /** Runs {@code ddl} as a session with foreign_key_checks on would; returns MySQL's update count for DDL (0). */
    public long run(SessionCommand.Ddl ddl) throws SQLException {
        return run(ddl, new Warnings(), KeyChecks.ON);
    }

    /**
     * Runs {@code ddl}, its notes (the placement a CREATE TABLE without a clause got) added to {@code warnings}, with the
     * session's foreign_key_checks {@code checks}; returns 0.
     */
    public long run(SessionCommand.Ddl ddl, Warnings warnings, KeyChecks checks) throws SQLException {
        boolean foreignKeyChecks = checks == KeyChecks.ON; // the session's: a field shared by every session's DDL would mix them
        for (String table : tables(ddl)) {
            if (table.toLowerCase(Locale.ROOT).startsWith("lutra_")) {
                throw Refusal.of("table names beginning with lutra_ are the router's own (" + table + ")");
            }
        }
        try (Connection store = BackendSetup.connect(config, 0, 0)) {
            int wait = config.transactions().lockWaitSeconds();
            if (!CatalogStore.lock(store, wait)) {
                throw new SQLException("Lock wait timeout exceeded: another router's DDL held the catalog lock for " + wait + " s", "HY000", 1205);
            }
            try {
                lease.syncWith(store);
                return switch (ddl) {
                    case SessionCommand.CreateTable c -> create(store, c, warnings, foreignKeyChecks);
                    case SessionCommand.DropTables d -> drop(store, d, foreignKeyChecks);
                    case SessionCommand.Truncate t -> truncate(t, foreignKeyChecks);
                    case SessionCommand.AlterTable a -> alters.alter(store, a, requireTable(a.table()), foreignKeyChecks);
                    case SessionCommand.CreateSecondary c -> secondaries.create(store, c);
                    case SessionCommand.DropSecondary d -> secondaries.drop(store, d);
                    case SessionCommand.CreateSequence c -> sequences.create(store, c);
                    case SessionCommand.AlterSequence a -> sequences.alter(store, a);
                    case SessionCommand.DropSequences d -> sequences.drop(store, d);
                };
            } finally {
                CatalogStore.unlock(store);
            }
        }
    }

    private static List<String> tables(SessionCommand.Ddl ddl) {
        return switch (ddl) {
            case SessionCommand.CreateTable c -> List.of(c.table());
            case SessionCommand.DropTables d -> d.tables();
            case SessionCommand.Truncate t -> List.of(t.table());
            case SessionCommand.AlterTable a -> List.of(a.table());
            case SessionCommand.CreateSecondary c -> List.of(c.table());
            case SessionCommand.DropSecondary d -> List.of();
            case SessionCommand.CreateSequence c -> List.of(c.name());
            case SessionCommand.AlterSequence a -> List.of(a.name());
            case SessionCommand.DropSequences d -> d.names();
        };
    }

    private long create(Connection store, SessionCommand.CreateTable c, Warnings warnings, boolean foreignKeyChecks) throws SQLException {
        Catalog catalog = live.current();
        if (catalog.table(c.table()) != null) {
            if (c.ifNotExists()) return 0;
            throw new SQLException("Table '" + c.table() + "' already exists", "42S01", 1050);
        }
        String full;
        Catalog next;
        DefaultPlacement.Choice chosen = null;
        try {
            var partitions = catalog.partitions().stream().map(Partition::name).toList();
            if (SchemaParser.hasPlacementClause(c.create())) {
                full = SchemaParser.withPartitionList(c.create(), partitions);
            } else {
                chosen = defaultPlacement.choose(c.create(), catalog);
                full = c.create() + "\n  " + chosen.clause();
            }
            next = SchemaParser.withTable(catalog, full);
        } catch (SchemaException e) {
            throw new SQLException(e.getMessage(), "42000", 1064, e);
        }
        TableDef t = next.table(c.table());
        ForeignKeyDdl.checkCreate(next, t, foreignKeyChecks, config.database());
        String sql = c.ifNotExists() ? BackendSetup.ifNotExists(t.ddl()) : t.ddl();
        var done = new ArrayList<Integer>();
        for (int p : t.partitioning().partitions()) {
            try {
                apply(p, sql, foreignKeyChecks && !org.lutra.catalog.ForeignKeys.parentMissingOn(next, t, p));
                done.add(p);
            } catch (SQLException e) {
                String undone = c.ifNotExists() ? "left on " + names(done) + " (IF NOT EXISTS: they may have been there before)" : undo(done, t.name());
                throw located(p, e, "CREATE TABLE " + t.name() + " failed; nothing recorded in the catalog; " + undone
                        + "; run it again (with IF NOT EXISTS to keep tables left on partitions)");
            }
        }
        try {
            Collations.learn(next, backends); // the routing column's collation as the partitions have it (declared or the table's default)
        } catch (SQLException e) {
            String undone = c.ifNotExists() ? "left on " + names(done) + " (IF NOT EXISTS: they may have been there before)" : undo(done, t.name());
            throw new SQLException(e.getMessage() + "; CREATE TABLE " + t.name() + " refused, nothing recorded in the catalog; " + undone,
                    e.getSQLState(), e.getErrorCode(), e);
        }
        long version = CatalogStore.record(store, router(), List.of(new CatalogStore.Change(t.name(), t.createText())));
        lease.install(next, version);
        log.info("CREATE TABLE {} on {} ({}), catalog version {}", t.name(), names(done), t.placement(), version);
        if (chosen != null) warnings.note(t.name() + " has no placement clause: placed " + chosen.clause() + " (" + chosen.reason() + ")");
        return 0;
    }

    /** Drops the table again where this CREATE made it; says what it did. */
    private String undo(List<Integer> done, String table) {
        if (done.isEmpty()) return "created on no partition";
        var failed = new ArrayList<String>();
        for (int p : done) {
            try {
                apply(p, "DROP TABLE IF EXISTS " + quote(table));
            } catch (SQLException e) {
                failed.add(backends.placement(p).name() + " (" + e.getMessage() + ")");
            }
        }
        return failed.isEmpty() ? "dropped again on " + names(done) + " where it had been created"
                : "could not drop it again on " + String.join(", ", failed) + " (DROP TABLE IF EXISTS " + table + " removes it)";
    }

    private long drop(Connection store, SessionCommand.DropTables d, boolean foreignKeyChecks) throws SQLException {
        Catalog catalog = live.current();
        var known = new LinkedHashMap<String, TableDef>();
        var unknown = new ArrayList<String>();
        for (String name : d.tables()) {
            TableDef t = catalog.table(name);
            if (t != null) known.put(t.name().toLowerCase(Locale.ROOT), t);
            else unknown.add(name);
        }
        if (!unknown.isEmpty() && !d.ifExists()) {
            throw new SQLException("Unknown table '" + unknown.stream().map(n -> config.database() + "." + n).collect(Collectors.joining(","))
                    + "'", "42S02", 1051);
        }
        for (TableDef t : known.values()) {
            if (t.partitioning() instanceof Partitioning.LookedUp l && l.owner().equalsIgnoreCase(t.name())) {
                var dependents = catalog.tables().stream().filter(o -> o != t && o.partitioning() instanceof Partitioning.LookedUp ol
                        && ol.owner().equalsIgnoreCase(t.name()) && !known.containsKey(o.name().toLowerCase(Locale.ROOT))).map(TableDef::name).toList();
                if (!dependents.isEmpty()) {
                    throw new SQLException("cannot drop " + t.name() + ": " + String.join(", ", dependents) + " SAME AS " + t.name()
                            + " (they share its lookup table); drop them first, or in the same statement", "HY000", 3730);
                }
            }
        }
        if (foreignKeyChecks) ForeignKeyDdl.checkDrop(catalog, known.keySet());
        if (!known.isEmpty()) {
            Catalog next = catalog;
            var changes = new ArrayList<CatalogStore.Change>();
            for (TableDef t : known.values()) {
                for (var s : next.secondariesOf(t.name())) changes.add(new CatalogStore.Change(s.catalogKey(), null));
                next = next.without(t.name());
                changes.add(new CatalogStore.Change(t.name(), null));
            }
            long version = CatalogStore.record(store, router(), changes);
            lease.install(next, version);
            sleep(lease.waitMillis()); // every router has dropped it from its catalog, or stopped routing
            log.info("DROP TABLE {}: out of the catalog (version {})", known.keySet(), version);
        }
        var failures = new ArrayList<String>();
        var dropped = new ArrayList<String>();
        for (String name : d.tables()) {
            TableDef t = catalog.table(name);
            int[] partitions = t != null ? t.partitioning().partitions() : catalog.partitions().stream().mapToInt(Partition::id).toArray();
            String sql = "DROP TABLE IF EXISTS " + quote(t != null ? t.name() : name);
            for (var s : catalog.secondariesOf(name)) sql += ", " + quote(s.indexTable());
            for (int p : partitions) {
                try {
                    apply(p, sql, false); // the router checked what references the tables (a shard sees its own partition only)
                    dropped.add(name + "@" + backends.placement(p).name());
                } catch (SQLException e) {
                    failures.add(name + " on " + backends.placement(p).name() + "@" + backends.placement(p).backend() + " (" + e.getMessage() + ")");
                }
            }
        }
        if (!failures.isEmpty()) {
            throw new SQLException("DROP TABLE: " + String.join(", ", known.keySet()) + " is out of the catalog (no router routes to it any more),"
                    + " but not dropped on " + String.join("; ", failures) + "; dropped on " + String.join(", ", dropped)
                    + "; run DROP TABLE IF EXISTS again to finish", "HY000", 0);
        }
        return 0;
    }

    private long truncate(SessionCommand.Truncate tr, boolean foreignKeyChecks) throws SQLException {
        TableDef t = requireTable(tr.table());
        refuseSequence(t, "TRUNCATE");
        if (foreignKeyChecks) ForeignKeyDdl.checkTruncate(live.current(), t, config.database());
        var done = new ArrayList<Integer>();
        for (int p : t.partitioning().partitions()) {
            try {
                apply(p, "TRUNCATE TABLE " + quote(t.name()), false);
                done.add(p);
            } catch (SQLException e) {
                throw located(p, e, "TRUNCATE " + t.name() + " emptied " + (done.isEmpty() ? "no partition" : names(done))
                        + " and stopped here; run it again to empty the rest");
            }
        }
        return 0;
    }

    /** Table DDL other than DROP TABLE on a sequence: ALTER SEQUENCE changes it (its SHOW CREATE is not a table's). */
    static void refuseSequence(TableDef t, String what) throws SQLException {
        if (org.lutra.catalog.Sequences.is(t)) {
            throw Refusal.of(what + " of sequence " + t.name() + " through the router: use ALTER SEQUENCE (docs/ids-and-sequences.md)");
        }
    }

    private TableDef requireTable(String name) throws SQLException {
        TableDef t = live.current().table(name);
        if (t == null) throw new SQLException("Table '" + config.database() + "." + name + "' doesn't exist", "42S02", 1146);
        return t;
    }

    private void apply(int p, String sql) throws SQLException {
        partitions.apply(p, sql, true);
    }

    private void apply(int p, String sql, boolean foreignKeyChecks) throws SQLException {
        partitions.apply(p, sql, foreignKeyChecks);
    }

    private SQLException located(int p, SQLException e, String what) {
        return partitions.located(p, e, what);
    }

    private String names(List<Integer> done) {
        return partitions.names(done);
    }

    private String router() {
        return config.transactions().routerName();
    }

    static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }

    /** Waits {@code millis} (the other routers' catalog leases to run out). */
    static void sleep(long millis) throws SQLException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for the other routers' catalog leases", "HY000", 0, e);
        }
    }
}
