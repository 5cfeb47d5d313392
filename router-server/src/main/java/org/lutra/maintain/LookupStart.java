package org.lutra.maintain;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.config.RouterConfig;
import org.lutra.backend.Backends;
import org.lutra.lookup.AdaptiveLookupTable;
import org.lutra.lookup.EntryVisitor;
import org.lutra.lookup.LookupTable;
import org.lutra.lookup.PartialLookupTable;
import org.lutra.lookup.PartitionSet;
import org.lutra.lookup.SnapshotAccess;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where a starting router takes its lookup tables from, in this order:
 * <ol>
 *   <li>a running peer ({@code placement.peers}): {@code SHOW LOOKUP LOG POSITION}, then
 *       {@code SHOW LOOKUP SNAPSHOT}, over the router's own protocol; the tables copied after the
 *       position reflect at least it;
 *   <li>its own snapshot file ({@code placement.snapshot_file}), written on close and
 *       periodically, with the position it reflects;
 *   <li>a scan of the backends ({@link RouterLoader}).
 * </ol>
 * The change log is then tailed from the position, which brings the copy up to date. A copy is
 * used only when every partition's log still holds every entry after its position (none trimmed)
 * and, for a file, it is younger than the log's keep time; else the next source. Config map files
 * ({@code lookups:} with a file) are applied by the scan only, so with them the router scans.
 *
 * <p>Snapshot file: {@code "LUTRAPLC"} u32 version=1, i64 written (epoch ms), u32 n, n × i64 positions,
 * u32 tables, per table: UTF owner name, u8 partial, then the lookup library's snapshot payload.
 */
public final class LookupStart {
    private static final Logger log = LoggerFactory.getLogger(LookupStart.class);
    private static final byte[] MAGIC = "LUTRAPLC".getBytes(StandardCharsets.US_ASCII);
    private static final int VERSION = 1;

    /** What the start loaded: {@code source} (peer host:port, snapshot file, backend scan), how long, from which log position. */
    public record Started(String source, long millis, long[] positions, List<RouterLoader.Loaded> loaded) {}

    private LookupStart() {}

    public static Started load(Catalog catalog, Backends backends, RouterConfig config) throws SQLException, IOException {
        long start = System.nanoTime();
        long[] heads = PlacementTailer.heads(backends, catalog.partitions().size()); // before anything is read: the scan reflects it
        var placement = config.placement();
        boolean maps = config.lookups().stream().anyMatch(l -> l.file() != null);
        if (maps && (!placement.peers().isEmpty() || placement.snapshotFile() != null)) {
            log.info("lookup tables: the config has map files, which a backend scan applies: not copying from a peer or the snapshot file");
        }
        if (!maps) {
            for (String peer : placement.peers()) {
                try {
                    long[] positions = fromPeer(catalog, backends, config, peer);
                    if (positions != null) return started("peer " + peer, start, positions, catalog);
                } catch (SQLException | IOException | RuntimeException e) {
                    log.warn("lookup tables: peer {} did not give its tables ({}); trying the next source", peer, e.getMessage());
                }
            }
            Path file = placement.snapshotFile();
            if (file != null && Files.exists(file)) {
                try {
                    long[] positions = fromFile(catalog, backends, config, file);
                    if (positions != null) return started("snapshot file " + file, start, positions, catalog);
                } catch (IOException | SQLException | RuntimeException e) {
                    log.warn("lookup tables: snapshot file {} not used ({}); scanning the backends", file, e.getMessage());
                }
            }
        }
        var loaded = RouterLoader.load(catalog, backends, config);
        long millis = (System.nanoTime() - start) / 1_000_000;
        log.info("lookup tables loaded from a backend scan in {} ms", millis);
        return new Started("backend scan", millis, heads, loaded);
    }

    private static Started started(String source, long start, long[] positions, Catalog catalog) {
        long millis = (System.nanoTime() - start) / 1_000_000;
        var loaded = new ArrayList<RouterLoader.Loaded>();
        for (TableDef t : owners(catalog)) {
            var table = ((Partitioning.LookedUp) t.partitioning()).table();
            String representation = table instanceof AdaptiveLookupTable a ? a.current().getClass().getSimpleName() : table.getClass().getSimpleName();
            loaded.add(new RouterLoader.Loaded(t.name(), table.size(), millis, representation, "from " + source));
        }
        log.info("lookup tables loaded from {} in {} ms ({} keys), tailing the change log from {}", source, millis,
                loaded.stream().mapToLong(RouterLoader.Loaded::keys).sum(), Arrays.toString(positions));
        return new Started(source, millis, positions, loaded);
    }

    /** The tables of a running router; null when its position cannot be used (it does not tail, or the log was trimmed since). */
    private static long[] fromPeer(Catalog catalog, Backends backends, RouterConfig config, String peer) throws SQLException, IOException {
        try (Connection c = connectToPeer(config, peer); Statement st = c.createStatement()) {
            long[] positions = new long[catalog.partitions().size()];
            int seen = 0;
            try (ResultSet rs = st.executeQuery("SHOW LOOKUP LOG POSITION")) {
                while (rs.next()) {
                    // the snapshot names partitions by catalog id: the peer's ids must be this router's
                    if (seen >= positions.length || !catalog.partition(seen).name().equalsIgnoreCase(rs.getString(1))) {
                        log.info("lookup tables: peer {} numbers its partitions otherwise; not copied", peer);
                        return null;
                    }
                    positions[seen++] = rs.getLong(2);
                }
            }
            if (seen != positions.length) {
                log.info("lookup tables: peer {} does not tail the change log; not copied", peer);
                return null;
            }
            if (!PlacementTailer.continuous(backends, positions)) {
                log.info("lookup tables: the change log was trimmed past peer {}'s position; not copied", peer);
                return null;
            }
            var encoded = new HashMap<String, java.io.ByteArrayOutputStream>();
            var partial = new HashMap<String, Boolean>();
            try (ResultSet rs = st.executeQuery("SHOW LOOKUP SNAPSHOT")) {
                while (rs.next()) {
                    String name = rs.getString(1).toLowerCase(Locale.ROOT);
                    partial.put(name, rs.getLong(3) != 0);
                    encoded.computeIfAbsent(name, x -> new java.io.ByteArrayOutputStream()).writeBytes(rs.getBytes(4));
                }
            }
            var tables = new HashMap<String, LookupTable>();
            for (TableDef t : owners(catalog)) {
                String name = t.name().toLowerCase(Locale.ROOT);
                if (!encoded.containsKey(name) || (partial.get(name) && RouterLoader.partialCapacity(catalog, config, t) == 0)) {
                    log.info("lookup tables: peer {} has no full table of {}; not copied", peer, t.name());
                    return null;
                }
                try (var in = new DataInputStream(new java.io.ByteArrayInputStream(encoded.get(name).toByteArray()))) {
                    tables.put(name, SnapshotAccess.read(in));
                }
            }
            for (TableDef t : owners(catalog)) install(catalog, config, t, tables.get(t.name().toLowerCase(Locale.ROOT)), "copied from peer " + peer);
            return positions;
        }
    }

    /**
     * The login at {@code peer}: with this router's {@code tls:}, over TLS trusting its own certificate chain (a router with
     * TLS accepts nothing else, and the peer password must not cross in clear); without, plaintext.
     */
    private static Connection connectToPeer(RouterConfig config, String peer) throws SQLException, IOException {
        var placement = config.placement();
        String url = "jdbc:lutra://" + peer + "/" + config.database();
        if (config.tls() == null) return DriverManager.getConnection(url, placement.peerUser(), placement.peerPassword());
        try (var tls = PeerTls.of(config.tls(), placement.peerVerifyHostname())) { // the trust file is read at connect: deleted after
            return DriverManager.getConnection(url, tls.options(placement.peerUser(), placement.peerPassword()));
        }
    }

    /** Installs {@code table} for owner {@code t}: into a cache of the configured capacity when the config makes it partial. */
    private static void install(Catalog catalog, RouterConfig config, TableDef t, LookupTable table, String why) {
        var lookup = (Partitioning.LookedUp) t.partitioning();
        long capacity = RouterLoader.partialCapacity(catalog, config, t);
        LookupTable serving = table;
        String reason = why;
        if (capacity > 0) {
            var cache = PartialLookupTable.ofEntries(capacity);
            copy(table, cache);
            serving = cache;
            reason = "partial: a cache of at most " + capacity + " keys, " + why;
        }
        if (lookup.table() instanceof AdaptiveLookupTable installed) {
            installed.replace(serving, reason);
        } else {
            copy(serving, lookup.table());
        }
    }

    private static void copy(LookupTable from, LookupTable to) {
        from.forEach(new EntryVisitor() {
            @Override
            public void visit(long key, PartitionSet partitions) {
                to.put(key, partitions.first());
            }

            @Override
            public void visit(String key, PartitionSet partitions) {
                to.put(key, partitions.first());
            }
        });
    }

    /** Reads the snapshot file; null when it cannot bring the tables up to date (too old, trimmed log, a table missing). */
    private static long[] fromFile(Catalog catalog, Backends backends, RouterConfig config, Path file) throws IOException, SQLException {
        try (var in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 20))) {
            if (!Arrays.equals(in.readNBytes(MAGIC.length), MAGIC)) throw new IOException("not a Lutra placement snapshot (bad magic)");
            int version = in.readInt();
            if (version != VERSION) throw new IOException("snapshot version " + version + ", this build reads " + VERSION);
            long written = in.readLong();
            long age = System.currentTimeMillis() - written;
            if (age > config.placement().logKeepSeconds() * 1000L) {
                log.info("lookup tables: snapshot file {} is {} s old, older than the change log is kept; scanning", file, age / 1000);
                return null;
            }
            long[] positions = new long[in.readInt()];
            for (int i = 0; i < positions.length; i++) positions[i] = in.readLong();
            if (positions.length != catalog.partitions().size() || !PlacementTailer.continuous(backends, positions)) {
                log.info("lookup tables: snapshot file {}: the change log does not reach back to its position; scanning", file);
                return null;
            }
            var tables = new HashMap<String, LookupTable>();
            var partial = new HashMap<String, Boolean>();
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                String name = in.readUTF().toLowerCase(Locale.ROOT);
                partial.put(name, in.readBoolean());
                tables.put(name, SnapshotAccess.read(in));
            }
            for (TableDef t : owners(catalog)) {
                String name = t.name().toLowerCase(Locale.ROOT);
                boolean wantPartial = RouterLoader.partialCapacity(catalog, config, t) > 0;
                if (!tables.containsKey(name) || (partial.get(name) && !wantPartial)) {
                    log.info("lookup tables: snapshot file {} has no full table of {}; scanning", file, t.name());
                    return null;
                }
            }
            for (TableDef t : owners(catalog)) install(catalog, config, t, tables.get(t.name().toLowerCase(Locale.ROOT)), "snapshot file");
            return positions;
        }
    }

    /**
     * Writes every lookup table to {@code file} with {@code positions}, read before the tables are (so the tables
     * reflect at least them); a temporary file renamed, so a crash never leaves half a snapshot.
     */
    public static void save(Catalog catalog, long[] positions, Path file) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (var out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 20))) {
            out.write(MAGIC);
            out.writeInt(VERSION);
            out.writeLong(System.currentTimeMillis());
            out.writeInt(positions.length);
            for (long p : positions) out.writeLong(p);
            var owners = owners(catalog);
            out.writeInt(owners.size());
            for (TableDef t : owners) {
                LookupTable table = ((Partitioning.LookedUp) t.partitioning()).table();
                LookupTable serving = table instanceof AdaptiveLookupTable a ? a.current() : table;
                out.writeUTF(t.name());
                out.writeBoolean(serving instanceof PartialLookupTable);
                SnapshotAccess.write(serving, out);
            }
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static List<TableDef> owners(Catalog catalog) {
        var out = new ArrayList<TableDef>();
        for (TableDef t : catalog.tablesInSchemaOrder()) {
            if (t.partitioning() instanceof Partitioning.LookedUp l && l.owner().equalsIgnoreCase(t.name())) out.add(t);
        }
        return out;
    }
}
