package org.lutra.paper;

import org.lutra.workload.TableData;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

/** Loads a workload's rows through a connection: prepared single-row INSERTs in JDBC batches, auto-commit. */
final class Loader {
    private static final int BATCH = 500;

    private Loader() {}

    static long load(Connection c, List<TableData> tables, Terminal terminal, String label) throws SQLException {
        long total = 0;
        long all = tables.stream().mapToLong(t -> t.rows().size()).sum();
        long start = System.nanoTime();
        for (TableData t : tables) {
            try (var ps = c.prepareStatement(t.insertSql())) {
                int inBatch = 0;
                for (Object[] row : t.rows()) {
                    for (int i = 0; i < row.length; i++) {
                        if (row[i] == null) ps.setNull(i + 1, java.sql.Types.VARCHAR);
                        else ps.setObject(i + 1, row[i]);
                    }
                    ps.addBatch();
                    if (++inBatch == BATCH) {
                        ps.executeBatch();
                        total += inBatch;
                        inBatch = 0;
                        terminal.progress(String.format(Locale.ROOT, "  %s: loading %s, %,d of %,d rows", label, t.table(), total, all));
                    }
                }
                if (inBatch > 0) {
                    ps.executeBatch();
                    total += inBatch;
                }
            }
        }
        terminal.done(String.format(Locale.ROOT, "  %s: loaded %,d rows in %.1f s", label, total, (System.nanoTime() - start) / 1e9));
        return total;
    }
}
