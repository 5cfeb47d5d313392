package org.lutra.ddl;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.LiveCatalog;
import org.lutra.catalog.Partition;
import org.lutra.catalog.SchemaException;
import org.lutra.catalog.SchemaParser;
import org.lutra.catalog.Sequences;
import org.lutra.catalog.TableDef;
import org.lutra.config.RouterConfig;
import org.lutra.backend.BackendSetup;
import org.lutra.backend.Backends;
import org.lutra.exec.SessionCommand;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * CREATE / ALTER / DROP SEQUENCE through the router (docs/ids-and-sequences.md). A sequence lives on one
 * partition: the one its {@code ON p} names, else the catalog's first (where the stored catalog and the
 * AUTO_INCREMENT counters live too). Like a table it is recorded in the stored catalog, so every router
 * routes its NEXTVAL to that partition; the order of each statement is DdlRunner's for tables:
 * CREATE runs on the partition, then is recorded; DROP is recorded, waits one lease (no router calls
 * NEXTVAL on it any more), then runs; ALTER runs, then records the partition's SHOW CREATE SEQUENCE.
 */
final class SequenceDdl {
    private static final Logger log = LoggerFactory.getLogger(SequenceDdl.class);

    private final RouterConfig config;
    private final LiveCatalog live;
    private final CatalogLease lease;
    private final Backends backends;

    SequenceDdl(RouterConfig config, LiveCatalog live, CatalogLease lease, Backends backends) {
        this.config = config;
        this.live = live;
        this.lease = lease;
        this.backends = backends;
    }

    long create(Connection store, SessionCommand.CreateSequence c) throws SQLException {
        Catalog catalog = live.current();
        if (catalog.table(c.name()) != null) {
            if (c.ifNotExists()) return 0;
            throw new SQLException("Table '" + c.name() + "' already exists", "42S01", 1050);
        }
        Partition partition;
        try {
            partition = c.partition() == null ? catalog.partition(0) : catalog.partitionNamed(c.partition());
        } catch (IllegalArgumentException e) {
            throw new SQLException("CREATE SEQUENCE " + c.name() + " ON " + c.partition() + ": no such partition", "42000", 1064);
        }
        String create = "CREATE SEQUENCE " + DdlRunner.quote(c.name()) + (c.options().isEmpty() ? "" : " " + c.options());
        String text = Sequences.storedText(create, partition.name(), Sequences.newId());
        Catalog next;
        try {
            next = SchemaParser.withTable(catalog, text);
        } catch (SchemaException e) {
            throw new SQLException(e.getMessage(), "42000", 1064, e);
        }
        try {
            apply(partition.id(), c.ifNotExists() ? BackendSetup.ifNotExists(create) : create);
        } catch (SQLException e) {
            throw located(partition.id(), e, "CREATE SEQUENCE " + c.name() + " failed; nothing recorded in the catalog");
        }
        long version = CatalogStore.record(store, router(), List.of(new CatalogStore.Change(c.name(), text)));
        lease.install(next, version);
        log.info("CREATE SEQUENCE {} on {}, catalog version {}", c.name(), partition.name(), version);
        return 0;
    }

    long alter(Connection store, SessionCommand.AlterSequence a) throws SQLException {
        TableDef t = live.current().table(a.name());
        if (!Sequences.is(t)) {
            if (t == null && a.ifExists()) return 0;
            throw notSequence(a.name(), t);
        }
        int p = Sequences.partition(t);
        try {
            apply(p, "ALTER SEQUENCE " + DdlRunner.quote(t.name()) + " " + a.options());
        } catch (SQLException e) {
            throw located(p, e, "ALTER SEQUENCE " + t.name() + " failed; the catalog keeps the old definition");
        }
        String shown;
        try (Connection c = backends.placement(p).borrow(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SHOW CREATE SEQUENCE " + DdlRunner.quote(t.name()))) {
            rs.next();
            shown = rs.getString(2);
        }
        String text = Sequences.storedText(shown, live.current().partition(p).name(), Sequences.id(t));
        Catalog next;
        try {
            next = SchemaParser.withTable(live.current().without(t.name()), text);
        } catch (SchemaException e) {
            throw new SQLException("ALTER SEQUENCE ran on " + t.name() + ", but the router cannot read its new definition (" + e.getMessage() + ")", "HY000", 0, e);
        }
        long version = CatalogStore.record(store, router(), List.of(new CatalogStore.Change(t.name(), text)));
        lease.install(next, version);
        return 0;
    }

    long drop(Connection store, SessionCommand.DropSequences d) throws SQLException {
        Catalog catalog = live.current();
        var known = new ArrayList<TableDef>();
        var unknown = new ArrayList<String>();
        for (String name : d.names()) {
            TableDef t = catalog.table(name);
            if (Sequences.is(t)) {
                if (!known.contains(t)) known.add(t);
            } else if (t != null) {
                throw notSequence(name, t);
            } else {
                unknown.add(config.database() + "." + name);
            }
        }
        if (!unknown.isEmpty() && !d.ifExists()) {
            throw new SQLException("Unknown SEQUENCE: '" + String.join(",", unknown) + "'", "42S02", 4091);
        }
        if (known.isEmpty()) return 0;
        Catalog next = catalog;
        var changes = new ArrayList<CatalogStore.Change>();
        for (TableDef t : known) {
            next = next.without(t.name());
            changes.add(new CatalogStore.Change(t.name(), null));
        }
        long version = CatalogStore.record(store, router(), changes);
        lease.install(next, version);
        DdlRunner.sleep(lease.waitMillis()); // every router has forgotten it (no NEXTVAL reaches it), or stopped routing
        var failures = new ArrayList<String>();
        for (TableDef t : known) {
            int p = Sequences.partition(t);
            try {
                apply(p, "DROP SEQUENCE IF EXISTS " + DdlRunner.quote(t.name()));
            } catch (SQLException e) {
                failures.add(t.name() + " on " + backends.placement(p).name() + " (" + e.getMessage() + ")");
            }
        }
        if (!failures.isEmpty()) {
            throw new SQLException("DROP SEQUENCE: out of the catalog, but not dropped on " + String.join("; ", failures)
                    + "; run DROP SEQUENCE IF EXISTS again to finish", "HY000", 0);
        }
        return 0;
    }

    private SQLException notSequence(String name, TableDef t) {
        return t == null ? new SQLException("Unknown SEQUENCE: '" + config.database() + "." + name + "'", "42S02", 4091)
                : new SQLException("'" + config.database() + "." + t.name() + "' is not a SEQUENCE", "42S02", 4090);
    }

    private void apply(int p, String sql) throws SQLException {
        try (Connection c = backends.placement(p).borrow(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private SQLException located(int p, SQLException e, String what) {
        var placement = backends.placement(p);
        return new SQLException("[" + placement.name() + "@" + placement.backend() + "] " + e.getMessage() + " — " + what,
                e.getSQLState(), e.getErrorCode(), e);
    }

    private String router() {
        return config.transactions().routerName();
    }
}
