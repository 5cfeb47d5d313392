package org.lutra.server;

import org.lutra.backend.Backends;

import java.sql.SQLException;
import java.util.HashSet;

/**
 * What the shards are, read once at start and told to every client at login (HelloOk): the
 * driver's DatabaseMetaData reports the backends' product and version, because that is how tools
 * pick their SQL dialect, and the SQL the router runs is that dialect.
 *
 * @param version              {@code VERSION()} of the oldest backend ("11.4.5-MariaDB"): a
 *                             tool that plans for the oldest one is right on all of them
 * @param lowerCaseTableNames  {@code @@lower_case_table_names}, the largest seen (0 = names are
 *                             case-sensitive on every backend)
 */
record BackendIdentity(String version, int lowerCaseTableNames) {

    static BackendIdentity read(Backends backends) throws SQLException {
        String oldest = null;
        int lowerCase = 0;
        var seen = new HashSet<String>();
        for (var placement : backends.placements()) {
            if (!seen.add(placement.backend())) continue;
            try (var c = placement.borrow(); var st = c.createStatement();
                 var rs = st.executeQuery("SELECT VERSION(), @@lower_case_table_names")) {
                rs.next();
                String version = rs.getString(1);
                if (oldest == null || compare(version, oldest) < 0) oldest = version;
                lowerCase = Math.max(lowerCase, rs.getInt(2));
            } catch (SQLException e) {
                throw Backends.located(placement, e);
            }
        }
        return new BackendIdentity(oldest == null ? "" : oldest, lowerCase);
    }

    /** Orders "10.11.6-MariaDB" before "11.4.5-MariaDB" by their leading numbers. */
    static int compare(String a, String b) {
        int[] x = numbers(a), y = numbers(b);
        for (int i = 0; i < 3; i++) {
            if (x[i] != y[i]) return Integer.compare(x[i], y[i]);
        }
        return 0;
    }

    private static int[] numbers(String version) {
        var parts = version.split("[^0-9]", -1);
        int[] n = new int[3];
        for (int i = 0, j = 0; i < parts.length && j < 3; i++) {
            if (parts[i].isEmpty()) {
                if (j > 0) break; // "8.0.36-log": stop at the first non-number after the digits began
                continue;
            }
            n[j++] = Integer.parseInt(parts[i].length() > 9 ? parts[i].substring(0, 9) : parts[i]);
        }
        return n;
    }
}
