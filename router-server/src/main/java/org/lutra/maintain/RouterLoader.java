package org.lutra.maintain;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.KeyType;
import org.lutra.catalog.KeyValues;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.config.RouterConfig;
import org.lutra.backend.Backends;
import org.lutra.lookup.AdaptiveLookupTable;
import org.lutra.lookup.KeyProfile;
import org.lutra.lookup.LookupTable;
import org.lutra.lookup.LookupTables;
import org.lutra.lookup.PartitionSet;
import org.lutra.lookup.io.MapLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Fills lookup tables when the router starts, one owner table (and the SAME AS tables sharing
 * its lookup table) at a time:
 *
 * <ol>
 *   <li>profile the keys: per partition {@code COUNT}, {@code MIN}, {@code MAX} of the key column,
 *       and every map file of the config read whole (csv, metis or schism, through the lookup
 *       library's {@link MapLoader}) — a bad line stops the router here, naming file and line;
 *   <li>choose the representation from the profile ({@link LookupTables#choose}: key type,
 *       density, size) and log the reason;
 *   <li>fill a table of that kind from the rows (each partition's key column says where its rows
 *       are), then apply the map files over it, and only then install it in the catalog's
 *       {@link AdaptiveLookupTable}: the router never serves a half-loaded table.
 * </ol>
 *
 * A map file's partitions are partition names ({@code p2}) or catalog ids ({@code 2}); its keys
 * are normalized as the key column compares them ({@code 007} is 7 in an integer column).
 */
public final class RouterLoader {
    private static final Logger log = LoggerFactory.getLogger(RouterLoader.class);

    /**
     * What one lookup table received.
     *
     * @param representation the table class now serving lookups
     * @param reason         why the chooser picked it
     */
    public record Loaded(String table, long keys, long millis, String representation, String reason) {}

    /** Rows of one owner table as (key, partition): the scan of its partitions, or rows written by a test. */
    @FunctionalInterface
    interface Rows {
        /** Hands every row's normalized key and partition to the sink; returns the number of rows. */
        long scan(KeySink sink) throws SQLException;
    }

    @FunctionalInterface
    interface KeySink {
        void accept(Object key, int partition);

        /**
         * A map line's partitions (sorted, each one of the table's). One partition a key, but for LOAD LOOKUP TABLE (MapPlan),
         * which replicates a key named with several: the config's map files reserve placements for keys without rows at start,
         * and a replicated placement is written with the keys' rows, by a move.
         */
        default void accept(Object key, int[] partitions, Catalog catalog) {
            if (partitions.length != 1) {
                throw new IllegalArgumentException("key " + key + " is placed on " + names(catalog, partitions) + ": the config's map files place"
                        + " a key on one partition; replicate it with LOAD LOOKUP TABLE ... FROM this file, or ALTER TABLE ... SET PARTITION = ("
                        + names(catalog, partitions) + ") WHERE ...");
            }
            accept(key, partitions[0]);
        }
    }

    /** "p1, p3". */
    static String names(Catalog catalog, int[] ids) {
        var sb = new StringBuilder();
        for (int id : ids) sb.append(sb.isEmpty() ? "" : ", ").append(id < catalog.partitions().size() ? catalog.partition(id).name() : "" + id);
        return sb.toString();
    }

    private RouterLoader() {}

    public static List<Loaded> load(Catalog catalog, Backends backends, RouterConfig config) throws SQLException, IOException {
        Map<String, List<RouterConfig.LookupSource>> maps = mapsByOwner(catalog, config.lookups());
        var out = new ArrayList<Loaded>();
        for (TableDef t : catalog.tables()) {
            if (t.partitioning() instanceof Partitioning.LookedUp lookup && lookup.owner().equalsIgnoreCase(t.name())) {
                long capacity = partialCapacity(catalog, config, t);
                if (capacity > 0) {
                    if (maps.containsKey(t.name().toLowerCase(Locale.ROOT))) {
                        throw new IOException("lookup table " + t.name() + " is partial (lookups: mode partial): map files fill full tables;"
                                + " load them with LOAD LOOKUP TABLE through a router, or drop mode partial");
                    }
                    out.add(installPartial(t, lookup, capacity));
                    continue;
                }
                KeyProfile scanned = profile(t, lookup, backends);
                var awayRows = new ArrayList<PlacementSync.Entry>();
                var reservations = new ArrayList<PlacementSync.Entry>();
                Loaded loaded = fill(catalog, t, lookup, scanned, sink -> scan(t, lookup, backends, (key, p) -> {
                    sink.accept(key, p);
                    if (p != lookup.placeNew(key)) awayRows.add(new PlacementSync.Entry(key, p));
                }), maps.getOrDefault(t.name().toLowerCase(Locale.ROOT), List.of()), (key, p) -> reservations.add(new PlacementSync.Entry(key, p)));
                long disagreeing = PlacementSync.sync(catalog, t, lookup, backends, awayRows, reservations);
                if (disagreeing > 0) {
                    log.warn("lookup table {}: {} map entries differ from where the backends place their keys; the backends' placement is kept",
                            t.name(), disagreeing);
                }
                out.add(loaded);
            }
        }
        return out;
    }

    /**
     * The capacity of a partial (cache) table the config asks for owner {@code owner} (an entry naming the owner or
     * one of its SAME AS tables with {@code mode: partial}), or 0: the full table.
     */
    public static long partialCapacity(Catalog catalog, RouterConfig config, TableDef owner) {
        for (var source : config.lookups()) {
            if (!source.partial() || source.table() == null) continue;
            TableDef named = catalog.table(source.table());
            if (named != null && named.partitioning() instanceof Partitioning.LookedUp l && l.owner().equalsIgnoreCase(owner.name())) {
                return source.capacity();
            }
        }
        return 0;
    }

    /**
     * Installs an empty cache of {@code capacity} keys for {@code owner}: nothing is scanned. A miss goes to the
     * key's home, and the home rows correct it (docs/placement.md, "Partial lookup tables").
     */
    public static Loaded installPartial(TableDef owner, Partitioning.LookedUp lookup, long capacity) {
        String reason = "partial: a cache of at most " + capacity + " keys (config lookups: mode partial); misses go home and the home rows correct them";
        var cache = org.lutra.lookup.PartialLookupTable.ofEntries(capacity);
        if (lookup.table() instanceof AdaptiveLookupTable installed) installed.replace(cache, reason);
        log.info("lookup table {}: {}", owner.name(), reason);
        return new Loaded(owner.name(), 0, 0, cache.getClass().getSimpleName(), reason);
    }

    /**
     * Fills the lookup table of owner {@code t} from its rows alone (no map files): a table another
     * router created through DDL, now in this router's catalog.
     */
    public static Loaded loadTable(Catalog catalog, TableDef t, Backends backends) throws SQLException, IOException {
        var lookup = (Partitioning.LookedUp) t.partitioning();
        return fill(catalog, t, lookup, profile(t, lookup, backends), sink -> scan(t, lookup, backends, sink), List.of());
    }

    /**
     * Profiles the map files, chooses, fills a table from the rows and the maps, and installs it.
     *
     * @param scanned the profile of the rows {@code rows} will deliver
     */
    static Loaded fill(Catalog catalog, TableDef t, Partitioning.LookedUp lookup, KeyProfile scanned, Rows rows,
                       List<RouterConfig.LookupSource> maps) throws SQLException, IOException {
        return fill(catalog, t, lookup, scanned, rows, maps, (key, p) -> {});
    }

    /**
     * @param applied receives each map entry taken into the table: one for a key the rows do not
     *                hold (rows stay where they are: a map entry does not move them, a move does)
     */
    static Loaded fill(Catalog catalog, TableDef t, Partitioning.LookedUp lookup, KeyProfile scanned, Rows rows,
                       List<RouterConfig.LookupSource> maps, KeySink applied) throws SQLException, IOException {
        long start = System.nanoTime();
        var loader = new MapLoader(LookupMapFiles.progress(t), LookupMapFiles.partitionNames(catalog));
        var profiles = new ArrayList<KeyProfile>();
        profiles.add(scanned);
        long mapEntries = 0;
        for (var source : maps) { // pass 1: check each file whole and profile it, before anything is built
            var profiler = new KeyProfile.Profiler();
            var stats = loader.scan(LookupMapFiles.mapSource(source), new LookupMapFiles.Entries(catalog, t, lookup, (key, p) -> {
                if (key instanceof Long l) {
                    profiler.visit(l, PartitionSet.of(p));
                } else {
                    profiler.visit(org.lutra.lookup.Keys.text(key), PartitionSet.of(p));
                }
            }));
            profiles.add(profiler.profile());
            mapEntries += stats.entries();
        }
        KeyProfile profile = combine(profiles, t.keyType(), lookup);
        var choice = LookupTables.choose(profile);
        String reason = choice.reason() + " (" + scanned.keyCount() + " keys in the rows of " + lookup.partitions().length
                + " partitions, " + mapEntries + " entries in " + maps.size() + " map file" + (maps.size() == 1 ? "" : "s") + ")";
        // A catalog built with a fixed table (tests, tools) is filled as it is; the router's own adapts.
        boolean adaptive = lookup.table() instanceof AdaptiveLookupTable;
        LookupTable target = adaptive ? new AdaptiveLookupTable(LookupTables.create(choice, profile), reason) : lookup.table();

        long rowKeys = rows.scan(target::put);
        long skipped = 0;
        for (var source : maps) { // pass 2: place the keys the rows do not hold yet (the first entry for a key wins)
            long[] notApplied = {0};
            loader.scan(LookupMapFiles.mapSource(source), new LookupMapFiles.Entries(catalog, t, lookup, (key, p) -> {
                if (target.get(key) != LookupTable.MISSING) {
                    if (target.get(key) != p) notApplied[0]++;
                    return;
                }
                target.put(key, p);
                applied.accept(key, p);
            }));
            skipped += notApplied[0];
        }
        if (skipped > 0) {
            log.warn("lookup table {}: {} map entries name another partition than the key's rows (or an earlier entry): not applied;"
                    + " ALTER TABLE {} SET PARTITION moves rows", t.name(), skipped, t.name());
        }
        String representation;
        if (target instanceof AdaptiveLookupTable filled && lookup.table() instanceof AdaptiveLookupTable installed) {
            installed.replace(filled.current(), filled.reason());
            representation = filled.current().getClass().getSimpleName();
            reason = filled.reason();
        } else {
            representation = target.getClass().getSimpleName();
            reason = "fixed by the catalog";
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        log.info("lookup table {}: {} keys ({} rows scanned, {} map entries) in {} ms; {}: {}", t.name(), target.size(), rowKeys,
                mapEntries, millis, representation, reason);
        return new Loaded(t.name(), target.size(), millis, representation, reason);
    }

    /** Map files grouped by the owner of the lookup table they fill (a SAME AS table's map fills its owner's). */
    private static Map<String, List<RouterConfig.LookupSource>> mapsByOwner(Catalog catalog, List<RouterConfig.LookupSource> sources)
            throws IOException {
        var out = new LinkedHashMap<String, List<RouterConfig.LookupSource>>();
        for (var source : sources) {
            if (source.file() == null) continue; // only a mode (partial) for the table
            TableDef t = source.table() == null ? null : catalog.table(source.table());
            if (t == null || !(t.partitioning() instanceof Partitioning.LookedUp lookup)) {
                throw new IOException("lookup map " + source.file() + ": table '" + source.table() + "' is not partitioned by lookup");
            }
            LookupMapFiles.mapSource(source); // an unknown format fails before any scan
            out.computeIfAbsent(lookup.owner().toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(source);
        }
        return out;
    }

    /**
     * The profile the chooser sees: the rows' and the map files' key ranges joined. Map files
     * mostly place keys the rows also hold (that is what a partitioner's output is for), so the
     * key count is the largest of the counts, a lower bound of the distinct keys (the sum is the
     * upper one). Partitions: every partition of the ON list, since any may be written later.
     */
    static KeyProfile combine(List<KeyProfile> profiles, KeyType type, Partitioning.LookedUp lookup) {
        int partitionCount = Arrays.stream(lookup.partitions()).max().orElse(0) + 1;
        long keys = 0;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        long[] histogram = new long[partitionCount];
        for (KeyProfile p : profiles) {
            keys = Math.max(keys, p.keyCount());
            if (p.integerKeys() > 0) {
                min = Math.min(min, p.minKey());
                max = Math.max(max, p.maxKey());
            }
            for (int i = 0; i < Math.min(partitionCount, p.histogram().length); i++) {
                histogram[i] = Math.max(histogram[i], p.histogram()[i]);
            }
        }
        boolean integers = type == KeyType.LONG && keys > 0;
        return new KeyProfile(keys, integers ? 0 : keys, integers ? min : 0, integers ? max : -1, partitionCount, 0, histogram, 0);
    }

    /** COUNT, MIN and MAX of the key column on every partition: the rows' profile without reading them. */
    private static KeyProfile profile(TableDef t, Partitioning.LookedUp lookup, Backends backends) throws SQLException {
        String column = "`" + lookup.column() + "`";
        boolean integers = t.keyType() == KeyType.LONG;
        String sql = "SELECT " + (lookup.unique() ? "COUNT(" + column + ")" : "COUNT(DISTINCT " + column + ")")
                + (integers ? ", MIN(" + column + "), MAX(" + column + ")" : "") + " FROM `" + t.name() + "`";
        int partitionCount = Arrays.stream(lookup.partitions()).max().orElse(0) + 1;
        long[] histogram = new long[partitionCount];
        long keys = 0;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int p : lookup.partitions()) {
            try (var c = backends.placement(p).borrow(); var st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
                rs.next();
                long n = rs.getLong(1);
                if (n == 0) {
                    continue;
                }
                keys += n;
                histogram[p] += n;
                if (integers) {
                    Object lo = KeyValues.normalize(rs.getObject(2), KeyType.LONG);
                    Object hi = KeyValues.normalize(rs.getObject(3), KeyType.LONG);
                    // A bound beyond a long (BIGINT UNSIGNED): such keys cannot be routed by value; no span to commit to.
                    min = lo == null ? Long.MIN_VALUE : Math.min(min, (Long) lo);
                    max = hi == null ? Long.MAX_VALUE : Math.max(max, (Long) hi);
                }
            }
        }
        boolean ints = integers && keys > 0;
        return new KeyProfile(keys, integers ? 0 : keys, ints ? min : 0, ints ? max : -1, partitionCount, 0, histogram, 0);
    }

    /** Keys read from rows per call of {@link TableDef#keys}. */
    private static final int KEY_BATCH = 1000;

    private static long scan(TableDef t, Partitioning.LookedUp lookup, Backends backends, KeySink sink) throws SQLException {
        String sql = "SELECT `" + lookup.column() + "` FROM `" + t.name() + "`";
        long n = 0;
        for (int partition : lookup.partitions()) {
            try (var c = backends.placement(partition).borrow();
                 var st = c.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
                org.lutra.backend.BackendDriver.streamRows(st);
                try (var rs = st.executeQuery(sql)) {
                    // in batches: a collation the backend weighs gets one round trip per batch, not per row
                    var batch = new ArrayList<Object>(KEY_BATCH);
                    boolean more = true;
                    while (more) {
                        more = rs.next();
                        if (more) batch.add(org.lutra.backend.BackendDriver.object(rs, 1));
                        if (batch.size() == KEY_BATCH || !more && !batch.isEmpty()) {
                            for (Object key : t.keys(batch.toArray())) {
                                if (key != null) {
                                    sink.accept(key, partition);
                                    n++;
                                }
                            }
                            batch.clear();
                        }
                    }
                }
            }
        }
        return n;
    }
}
