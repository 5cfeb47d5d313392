package org.lutra.maintain;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.KeyValues;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.config.RouterConfig;
import org.lutra.exec.Backends;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Fills lookup tables when the router starts: scans the key column of every lookup-partitioned
 * table on each of its partitions (the rows say where they are), then applies map files from the
 * config. A map file is checked whole before any entry is applied, so a bad line leaves the table
 * as the scan left it.
 */
public final class RouterLoader {
    private static final Logger log = LoggerFactory.getLogger(RouterLoader.class);

    /** What one lookup table received. */
    public record Loaded(String table, long keys, long millis) {}

    private RouterLoader() {}

    public static List<Loaded> load(Catalog catalog, Backends backends, RouterConfig config) throws SQLException, IOException {
        var out = new ArrayList<Loaded>();
        for (TableDef t : catalog.tables()) {
            if (t.partitioning() instanceof Partitioning.LookedUp lookup && lookup.owner().equalsIgnoreCase(t.name())) {
                long start = System.nanoTime();
                long keys = 0;
                for (int p : lookup.partitions()) {
                    keys += scan(t, lookup, p, backends);
                }
                out.add(new Loaded(t.name(), keys, (System.nanoTime() - start) / 1_000_000));
                log.info("lookup table {}: {} keys scanned from {} partitions", t.name(), keys, lookup.partitions().length);
            }
        }
        for (var source : config.lookups()) {
            out.add(loadCsv(catalog, source));
        }
        return out;
    }

    private static long scan(TableDef t, Partitioning.LookedUp lookup, int partition, Backends backends) throws SQLException {
        String sql = "SELECT `" + lookup.column() + "` FROM `" + t.name() + "`";
        long n = 0;
        try (var c = backends.placement(partition).pool().getConnection();
             var st = c.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
            st.setFetchSize(Integer.MIN_VALUE);
            try (var rs = st.executeQuery(sql)) {
                while (rs.next()) {
                    Object key = KeyValues.normalize(rs.getObject(1), t.keyType());
                    if (key != null) {
                        lookup.table().put(key, partition);
                        n++;
                    }
                }
            }
        }
        return n;
    }

    /** Loads {@code key,partition} lines (partition by name, e.g. p2, or by number). */
    static Loaded loadCsv(Catalog catalog, RouterConfig.LookupSource source) throws IOException {
        if (source.format() != null && !source.format().equalsIgnoreCase("csv")) {
            throw new IOException("lookup map " + source.file() + ": format '" + source.format() + "' is not supported yet (csv is)");
        }
        TableDef t = catalog.table(source.table());
        if (t == null || !(t.partitioning() instanceof Partitioning.LookedUp lookup)) {
            throw new IOException("lookup map " + source.file() + ": table '" + source.table() + "' is not partitioned by lookup");
        }
        long start = System.nanoTime();
        var keys = new ArrayList<Object>();
        var partitions = new ArrayList<Integer>();
        try (BufferedReader in = Files.newBufferedReader(source.file(), StandardCharsets.UTF_8)) {
            String line;
            int number = 0;
            while ((line = in.readLine()) != null) {
                number++;
                if (line.isBlank() || line.startsWith("#")) continue;
                int comma = line.indexOf(',');
                Object key = comma < 0 ? null : KeyValues.normalize(line.substring(0, comma).strip(), t.keyType());
                int partition = comma < 0 ? -1 : partitionOf(catalog, line.substring(comma + 1).strip(), lookup);
                if (key == null || partition < 0) {
                    throw new IOException(source.file() + " line " + number + ": expected 'key,partition' with a "
                            + t.keyType().name().toLowerCase(Locale.ROOT) + " key and one of the table's partitions, found: " + line);
                }
                keys.add(key);
                partitions.add(partition);
            }
        }
        for (int i = 0; i < keys.size(); i++) {
            lookup.table().put(keys.get(i), partitions.get(i));
        }
        log.info("lookup table {}: {} entries from {}", t.name(), keys.size(), source.file());
        return new Loaded(t.name(), keys.size(), (System.nanoTime() - start) / 1_000_000);
    }

    private static int partitionOf(Catalog catalog, String text, Partitioning.LookedUp lookup) {
        for (int p : lookup.partitions()) {
            if (catalog.partition(p).name().equalsIgnoreCase(text) || String.valueOf(p).equals(text)) return p;
        }
        return -1;
    }
}
