package org.lutra.ddl;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.LiveCatalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.SchemaException;
import org.lutra.catalog.SchemaParser;
import org.lutra.catalog.TableDef;
import org.lutra.config.RouterConfig;
import org.lutra.backend.BackendSetup;
import org.lutra.backend.Backends;
import org.lutra.maintain.Collations;
import org.lutra.maintain.RouterLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * How every router sees a catalog change before it routes a statement on that table again.
 *
 * <p><b>The lease.</b> A router routes only while its lease is fresh: it read the stored catalog's
 * version (and, if it changed, loaded the new catalog) less than {@code lease_ms} ago, counted on its
 * own monotonic clock from the moment it <em>sent</em> that read. A thread renews it every quarter
 * lease; every statement checks it when it takes a backend connection ({@link Backends.Placement#borrow(int)})
 * and, if it is stale, tries one renewal itself and otherwise is refused (HY000, naming the partition
 * the catalog lives on). A statement naming a table the router does not know renews first (the table
 * may be new on another router) and is refused only if the table is still unknown.
 *
 * <p><b>The DDL side.</b> A DDL statement ({@link DdlRunner}) records its change and increments the
 * version in one backend transaction. When the change removes or changes a table routers may hold
 * (DROP TABLE, ALTER, CREATE/DROP INDEX), the DDL router then waits {@link #waitMillis()} — one lease
 * plus a margin for the two routers' clocks running at slightly different rates — before it drops the
 * table on the backends or answers the client (an ALTER that changed plain indexes only answers at once:
 * the old definition routes alike, {@link PlainIndexChange}).
 *
 * <p><b>Why that suffices.</b> Say router B read version v at B-time r (sent at r, answered before the
 * DDL's commit c, since it saw v and not v+1), so r precedes c in real time. B routes with v until r + lease.
 * A waits from after c until c + lease + margin > r + lease. So once A's wait is over, B has either read
 * v+1 (and installed the new catalog, which comes before extending the lease) or stopped routing.
 * A statement that took its connections before that moment may still run (a long SELECT over a dropped
 * table then fails with MySQL's 1146 on the partition, never reads another table's rows).
 * No clock is compared between machines: only durations on each router's own clock.
 *
 * <p>CREATE TABLE needs no wait: no router can route a table it has never seen, and one that does not
 * know the table renews before refusing it.
 */
public final class CatalogLease implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CatalogLease.class);

    private final RouterConfig config;
    private final LiveCatalog live;
    private final Backends backends;
    private final long leaseNanos;
    private final long leaseMillis;
    private final Thread renewer;
    private Connection connection; // guarded by this
    /** System.nanoTime() until which this router may route with {@link LiveCatalog#current()}. */
    private volatile long validUntil = System.nanoTime();
    private volatile String lastFailure = "not renewed yet";
    private volatile boolean closed;

    public CatalogLease(RouterConfig config, LiveCatalog live, Backends backends) {
        this.config = config;
        this.live = live;
        this.backends = backends;
        this.leaseMillis = config.catalog().leaseMillis();
        this.leaseNanos = leaseMillis * 1_000_000L;
        this.renewer = Thread.ofPlatform().daemon().name("lutra-catalog-lease").unstarted(this::renewLoop);
    }

    /** Renews once (so the router starts with a fresh lease) and starts the renewing thread. */
    public void start() throws SQLException {
        renew();
        renewer.start();
    }

    /** How long a DDL that changes or removes a table waits after recording it: a lease and the margin. */
    public long waitMillis() {
        return leaseMillis + Math.max(100, leaseMillis / 4);
    }

    /**
     * Throws unless the router may route now; renews first when the lease ran out, a second time on a new connection where
     * the first read fails (a connection the backend dropped, a read that timed out on a busy partition). Cheap when fresh.
     */
    public void requireFresh() throws SQLException {
        if (System.nanoTime() - validUntil < 0) return;
        try {
            renew();
        } catch (SQLException | RuntimeException first) {
            renewAgain(first);
        }
    }

    private void renewAgain(Exception first) throws SQLException {
        if (System.nanoTime() - validUntil < 0) return; // the renewing thread did it meanwhile
        try {
            renew();
        } catch (SQLException | RuntimeException e) {
            e.addSuppressed(first);
            throw new SQLException("the router cannot renew its catalog lease (it reads the catalog version on partition "
                    + config.partitions().getFirst().name() + " every " + leaseMillis / 4 + " ms): " + lastFailure
                    + "; statements are refused until it can, since another router may have changed a table", "HY000", 0, e);
        }
    }

    /** Renews now; true if the catalog changed (a table the router did not know may exist now). */
    public boolean refresh() throws SQLException {
        long before = live.version();
        renew();
        return live.version() != before;
    }

    private void renewLoop() {
        long period = Math.max(20, leaseMillis / 4);
        while (!closed) {
            try {
                Thread.sleep(period);
                renew();
            } catch (InterruptedException e) {
                return;
            } catch (SQLException | RuntimeException e) {
                if (!closed) log.warn("catalog lease: cannot renew: {}", e.getMessage());
            }
        }
    }

    private synchronized void renew() throws SQLException {
        long sent = System.nanoTime();
        try {
            Connection c = connection();
            long version = CatalogStore.readVersion(c);
            if (version != live.version()) install(CatalogStore.read(c));
            validUntil = sent + leaseNanos;
        } catch (SQLException | RuntimeException e) {
            lastFailure = e.getMessage();
            closeConnection();
            throw e;
        }
    }

    /**
     * Brings the live catalog to the stored one, with the DDL lock held (so nothing changes meanwhile):
     * what a DDL statement validates against.
     */
    synchronized void syncWith(Connection store) throws SQLException {
        if (CatalogStore.readVersion(store) != live.version()) install(CatalogStore.read(store));
    }

    /** Makes {@code stored} the live catalog: new lookup tables are filled and collations learned first. */
    synchronized void install(CatalogStore.Snapshot stored) throws SQLException {
        Catalog next;
        try {
            next = SchemaParser.rebuild(stored.liveCreateTexts(), live.current().partitions().stream().map(p -> p.name()).toList(), live.current());
        } catch (SchemaException e) {
            throw new SQLException("cannot read the stored catalog (version " + stored.version() + "): " + e.getMessage(), "HY000", 0, e);
        }
        install(next, stored.version());
    }

    /** Makes {@code next} (the stored catalog at {@code version}) live, after filling its new lookup tables. */
    synchronized void install(Catalog next, long version) throws SQLException {
        Collations.learn(next, backends);
        Set<Object> known = Collections.newSetFromMap(new IdentityHashMap<>());
        for (TableDef t : live.current().tables()) {
            if (t.partitioning() instanceof Partitioning.LookedUp l) known.add(l.table());
        }
        List<String> loaded = new ArrayList<>();
        for (TableDef t : next.tables()) {
            if (t.partitioning() instanceof Partitioning.LookedUp l && l.owner().equalsIgnoreCase(t.name()) && !known.contains(l.table())) {
                try {
                    RouterLoader.loadTable(next, t, backends);
                } catch (IOException e) {
                    throw new SQLException("loading the lookup table of " + t.name() + ": " + e.getMessage(), "HY000", 0, e);
                }
                loaded.add(t.name());
            }
        }
        live.install(next, version);
        log.info("catalog version {} installed ({} tables{})", version, next.tables().size(), loaded.isEmpty() ? "" : "; lookup tables filled: " + loaded);
    }

    private Connection connection() throws SQLException {
        if (connection == null) {
            // every read bounded: a renewal that hangs (a locked table, a frozen server) must fail, not hold the lease's monitor
            connection = BackendSetup.connect(config, 0, (int) Math.max(1_000, leaseMillis));
        }
        return connection;
    }

    private void closeConnection() {
        if (connection == null) return;
        try {
            connection.close();
        } catch (SQLException ignored) {
            // it is being replaced anyway
        }
        connection = null;
    }

    @Override
    public void close() {
        closed = true;
        renewer.interrupt();
        synchronized (this) {
            closeConnection();
        }
    }
}
