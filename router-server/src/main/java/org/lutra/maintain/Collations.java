package org.lutra.maintain;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.ColumnDef;
import org.lutra.catalog.CollationWeights;
import org.lutra.catalog.KeyCollation;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.SecondaryLookup;
import org.lutra.catalog.TableDef;
import org.lutra.backend.Backends;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Learns, from a backend, the equality of every string column the router routes by (routing columns
 * and secondary lookup columns) whose collation is not declared binary ({@link KeyCollation}): the
 * column's collation as the backend has it (declared, or the table's default), then
 * <ul>
 *   <li>a binary PAD SPACE one: keys are the strings without trailing spaces;
 *   <li>utf8mb4_general_ci and its kind: the weight of every BMP character (MariaDB's sequence table
 *       gives the code points) and of one character above U+FFFF; used if every character has one weight
 *       (the representative way, computed in the router);
 *   <li>any other: the backend weighs the values ({@link CollationWeights}), after a check that its
 *       weights give its equality exactly: NO PAD, or PAD SPACE on one comparison level. A PAD SPACE
 *       collation comparing on several levels (MariaDB's {@code utf8mb4_uca1400_as_cs}) is refused.
 * </ul>
 * Runs before any key of a table is routed or loaded: at start, for a new catalog, after CREATE TABLE.
 */
public final class Collations {
    private Collations() {}

    /** One weighing cache per collation per router (its backends). */
    private static final Map<Backends, Map<String, CollationWeights>> WEIGHTS = java.util.Collections.synchronizedMap(new WeakHashMap<>());

    public static void learn(Catalog catalog, Backends backends) throws SQLException {
        for (TableDef t : catalog.tables()) {
            String routing = t.partitioning().column();
            var columns = new ArrayList<String>();
            if (routing != null) columns.add(routing);
            for (SecondaryLookup s : catalog.secondariesOf(t.name())) columns.addAll(s.columns());
            for (String column : columns) {
                ColumnDef c = t.column(column);
                if (c == null || c.collation() == null || c.collation().ready()) continue;
                learn(t, c, backends);
            }
        }
        for (TableDef t : catalog.tables()) {
            if (t.partitioning() instanceof Partitioning.LookedUp l && !l.owner().equalsIgnoreCase(t.name())) sameAs(catalog, t, l);
        }
    }

    /** A SAME AS table's column and its owner's compare alike, or the two tables' keys would not meet. */
    private static void sameAs(Catalog catalog, TableDef t, Partitioning.LookedUp l) throws SQLException {
        TableDef owner = catalog.table(l.owner());
        if (owner == null) return;
        String mine = collationOf(t.column(l.column()));
        String theirs = collationOf(owner.column(l.ownerColumn()));
        if (!mine.equalsIgnoreCase(theirs)) {
            throw new SQLException("table " + t.name() + " is SAME AS " + owner.name() + ", but " + t.name() + "." + l.column() + " compares by " + mine
                    + " and " + owner.name() + "." + l.ownerColumn() + " by " + theirs + ": one value would be two keys; give both columns one collation",
                    "42000", 1235);
        }
    }

    private static String collationOf(ColumnDef c) {
        if (c == null || c.collation() == null) return c != null && c.keyType() == org.lutra.catalog.KeyType.LONG ? "integer" : "binary";
        return c.collation().binary() ? "binary" : String.valueOf(c.collation().name());
    }

    private static void learn(TableDef t, ColumnDef c, Backends backends) throws SQLException {
        Backends.Placement placement = backends.placement(t.partitioning().partitions()[0]);
        KeyCollation collation = c.collation();
        String name;
        String charset;
        try (Connection conn = placement.borrow(); PreparedStatement ps = conn.prepareStatement("SELECT COLLATION_NAME, CHARACTER_SET_NAME FROM information_schema.COLUMNS"
                + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND LOWER(COLUMN_NAME) = LOWER(?)")) {
            ps.setString(1, t.name());
            ps.setString(2, c.name());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("cannot read the collation of " + t.name() + "." + c.name() + " on " + placement.name() + ": no such column there",
                            "42S22", 1054);
                }
                name = rs.getString(1);
                charset = rs.getString(2);
            }
        } catch (SQLException e) {
            throw new SQLException("reading the collation of " + t.name() + "." + c.name() + " from " + placement.name() + ": " + e.getMessage(),
                    e.getSQLState(), e.getErrorCode(), e);
        }
        if (name == null || charset == null || charset.equalsIgnoreCase("binary")) {
            collation.learnBinary("binary");
            return;
        }
        name = name.toLowerCase(Locale.ROOT);
        charset = charset.toLowerCase(Locale.ROOT);
        if (name.endsWith("_bin") && !name.contains("nopad")) {
            collation.learnBinary(name);
            return;
        }
        if (name.matches("(utf8mb4|utf8mb3|utf8)_\\w+_ci") && !name.contains("nopad") && !name.contains("0900") && !name.contains("uca")
                && representatives(collation, name, charset, placement)) {
            return;
        }
        var weights = WEIGHTS.computeIfAbsent(backends, b -> new ConcurrentHashMap<>()).get(name);
        if (weights == null) {
            weights = weighing(t, c, name, charset, backends);
            WEIGHTS.get(backends).put(name, weights);
        }
        collation.learnWeights(weights);
    }

    /** The representative way, if every character of the collation has one weight; false if not. */
    private static boolean representatives(KeyCollation collation, String name, String charset, Backends.Placement placement) throws SQLException {
        String weight = "HEX(WEIGHT_STRING(CONVERT(CHAR(%s USING utf32) USING " + charset + ") COLLATE " + name + "))";
        var weights = new String[0x10000];
        String supplementary;
        try (var c = placement.borrow(); var st = c.createStatement()) {
            try (var rs = st.executeQuery("SELECT seq, " + weight.formatted("seq") + " FROM seq_0_to_65535")) {
                while (rs.next()) {
                    int cp = rs.getInt(1);
                    String w = rs.getString(2);
                    weights[cp] = cp >= 0xD800 && cp <= 0xDFFF ? null : w;
                }
            }
            try (var rs = st.executeQuery("SELECT " + weight.formatted("128512") + ", " + weight.formatted("66560") + ", " + weight.formatted("1114109"))) {
                rs.next();
                String a = rs.getString(1);
                supplementary = a != null && a.equals(rs.getString(2)) && a.equals(rs.getString(3)) ? a : null;
            }
        } catch (SQLException e) {
            throw new SQLException("reading the weights of collation " + name + " from " + placement.name() + ": " + e.getMessage(),
                    e.getSQLState(), e.getErrorCode(), e);
        }
        try {
            collation.learn(name, weights, supplementary);
            return true;
        } catch (IllegalStateException e) {
            return false; // expansions, contractions or supplementary characters weighed apart: the backend weighs the keys instead
        }
    }

    /** The weighed way, after checking that the collation's weights give its equality exactly. */
    private static CollationWeights weighing(TableDef t, ColumnDef c, String name, String charset, Backends backends) throws SQLException {
        // the value travels as UTF-8 bytes, so no session character set can change what the backend reads
        String text = "CONVERT(CONVERT(? USING utf8mb4) USING " + charset + ")";
        String weigh = "WEIGHT_STRING(" + text + " COLLATE " + name + ")";
        boolean padSpace;
        byte[] space;
        Backends.Placement placement = backends.placement(t.partitioning().partitions()[0]);
        // the probes are constants of the router's own, written as literals
        java.util.function.Function<String, String> lit = v -> "CONVERT(_utf8mb4'" + v + "' USING " + charset + ")";
        java.util.function.Function<String, String> w = v -> "WEIGHT_STRING(" + lit.apply(v) + " COLLATE " + name + ")";
        try (Connection conn = placement.borrow(); PreparedStatement ps = conn.prepareStatement("SELECT " + lit.apply("a") + " COLLATE " + name + " = "
                + lit.apply("a ") + ", " + w.apply(" ") + ", " + w.apply("a") + ", " + w.apply("a ") + ", " + w.apply("b") + ", " + w.apply("b a"))) {
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                padSpace = rs.getBoolean(1);
                space = rs.getBytes(2);
                byte[] a = rs.getBytes(3);
                byte[] aSpace = rs.getBytes(4);
                byte[] b = rs.getBytes(5);
                byte[] bSpaceA = rs.getBytes(6);
                // one level: the weight of a string is its characters' weights one after another
                boolean oneLevel = Arrays.equals(aSpace, concat(a, space)) && Arrays.equals(bSpaceA, concat(b, space, a));
                if (padSpace && (!oneLevel || space.length == 0)) {
                    throw new SQLException("Lutra cannot route by " + t.name() + "." + c.name() + ": its collation " + name + " ignores trailing spaces (PAD SPACE)"
                            + " and compares on several levels, so its equality cannot be taken from the backend's weights exactly; give the column a NO PAD"
                            + " variant, a one-level collation (e.g. utf8mb4_uca1400_ai_ci) or a binary one", "42000", 1235);
                }
            }
        } catch (SQLException e) {
            if ("42000".equals(e.getSQLState()) && e.getErrorCode() == 1235) throw e;
            throw new SQLException("reading collation " + name + " from " + placement.name() + ": " + e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
        }
        boolean unicode = charset.equals("utf8mb4");
        return new CollationWeights(name, padSpace ? CollationWeights.Pad.PAD_SPACE : CollationWeights.Pad.NO_PAD, space, values -> weigh(backends, t.partitioning().partitions(), weigh, text, unicode, values),
                CollationWeights.DEFAULT_CAPACITY_BYTES);
    }

    /**
     * The weights of {@code values}, asked of the first of {@code partitions} that answers; null for a value the
     * character set cannot hold (converted to it and back, it is another string). On the scratch pool: a statement
     * that holds connections of the main pool never waits for one of its own pool's to weigh a key.
     */
    private static List<byte[]> weigh(Backends backends, int[] partitions, String weigh, String text, boolean unicode, List<String> values)
            throws SQLException {
        var sql = new StringBuilder("SELECT ");
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) sql.append(", ");
            sql.append(weigh);
            if (!unicode) sql.append(", CAST(CONVERT(").append(text).append(" USING utf8mb4) AS BINARY) = ?");
        }
        SQLException failed = null;
        for (int p : partitions) {
            Backends.Placement placement = backends.placement(p);
            try (Connection conn = placement.scratch().getConnection(); PreparedStatement ps = conn.prepareStatement(sql.toString())) {
                int i = 1;
                for (String v : values) {
                    byte[] bytes = v.getBytes(StandardCharsets.UTF_8);
                    ps.setBytes(i++, bytes);
                    if (!unicode) {
                        ps.setBytes(i++, bytes);
                        ps.setBytes(i++, bytes);
                    }
                }
                var out = new ArrayList<byte[]>(values.size());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    int col = 1;
                    for (int v = 0; v < values.size(); v++) {
                        byte[] w = rs.getBytes(col++);
                        boolean exact = unicode || rs.getBoolean(col++);
                        out.add(exact ? w : null);
                    }
                }
                return out;
            } catch (SQLException e) {
                if (failed == null) failed = Backends.located(placement, e);
                else failed.addSuppressed(e);
            }
        }
        throw failed;
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) n += p.length;
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
