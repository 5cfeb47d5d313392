package org.lutra.maintain;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.ColumnDef;
import org.lutra.catalog.KeyCollation;
import org.lutra.catalog.TableDef;
import org.lutra.exec.Backends;

import java.sql.SQLException;

/**
 * Reads, once at start, the weights of the collations that case-insensitive routing columns use,
 * from the partition holding the table: the weight of every BMP character (MariaDB's sequence
 * table gives the code points) and of one character above U+FFFF. The router's equality for
 * such columns is then the server's own ({@link KeyCollation}).
 */
public final class Collations {
    private Collations() {}

    public static void learn(Catalog catalog, Backends backends) throws SQLException {
        for (TableDef t : catalog.tables()) {
            String column = t.partitioning().column();
            ColumnDef c = column == null ? null : t.column(column);
            if (c == null || c.collation() == null || c.collation().ready()) continue;
            learn(c.collation(), backends.placement(t.partitioning().partitions()[0]));
        }
    }

    private static void learn(KeyCollation collation, Backends.Placement placement) throws SQLException {
        String weight = "HEX(WEIGHT_STRING(CONVERT(CHAR(%s USING utf32) USING " + collation.charset() + ") COLLATE " + collation.name() + "))";
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
            throw new SQLException("reading the weights of collation " + collation.name() + " from " + placement.name() + ": " + e.getMessage(),
                    e.getSQLState(), e.getErrorCode(), e);
        }
        try {
            collation.learn(weights, supplementary);
        } catch (IllegalStateException e) {
            throw new SQLException(e.getMessage(), "HY000", 0, e);
        }
    }
}
