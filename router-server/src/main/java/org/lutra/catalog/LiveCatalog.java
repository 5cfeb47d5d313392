package org.lutra.catalog;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The catalog the router routes by now, and the stored catalog's version it came from. Every change —
 * this router's DDL, another router's seen through the lease ({@code org.lutra.ddl.CatalogLease}), the
 * start — goes through {@link #install}, the one place where tables are added to and removed from the
 * live catalog, so {@link Listener}s hear of every table that comes and goes.
 */
public final class LiveCatalog {
    /**
     * Hears the live catalog change. {@link #tableAdded} runs before statements can see the table,
     * {@link #tableRemoved} after they no longer can; a table whose placement clause changed (dropped and
     * created again, seen as one change by a router that was not looking in between) is removed, then added.
     * A table whose columns or indexes changed (ALTER) keeps its placement: neither is called.
     */
    public interface Listener {
        default void tableAdded(TableDef table) {}

        default void tableRemoved(TableDef table) {}

        /** The new catalog is live (the planner and the executor switch to it here). */
        default void installed(Catalog catalog, long version) {}
    }

    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private volatile Catalog current;
    private volatile long version;

    public LiveCatalog(Catalog initial, long version) {
        this.current = initial;
        this.version = version;
    }

    public Catalog current() {
        return current;
    }

    /** The stored catalog's version {@link #current} reflects. */
    public long version() {
        return version;
    }

    public void listen(Listener listener) {
        listeners.add(listener);
    }

    /** Makes {@code next} (the stored catalog at {@code nextVersion}) the live catalog. Serialized: one change at a time. */
    public synchronized void install(Catalog next, long nextVersion) {
        Catalog before = current;
        Map<String, TableDef> old = new HashMap<>();
        before.tables().forEach(t -> old.put(t.name().toLowerCase(Locale.ROOT), t));
        var added = next.tablesInSchemaOrder().stream().filter(t -> {
            TableDef was = old.get(t.name().toLowerCase(Locale.ROOT));
            return was == null || !samePlacement(was, t);
        }).toList();
        var removed = before.tablesInSchemaOrder().stream().filter(t -> {
            TableDef now = next.table(t.name());
            return now == null || !samePlacement(t, now);
        }).toList();
        for (TableDef t : added) listeners.forEach(l -> l.tableAdded(t));
        current = next;
        version = nextVersion;
        listeners.forEach(l -> l.installed(next, nextVersion));
        for (TableDef t : removed) listeners.forEach(l -> l.tableRemoved(t));
    }

    private static boolean samePlacement(TableDef a, TableDef b) {
        return a.placement() != null && a.placement().equals(b.placement());
    }
}
