package org.lutra.paper;

import org.lutra.workload.TableData;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Loads a workload's rows through connections: prepared single-row INSERTs in JDBC batches, in
 * auto-commit (a batch over several partitions is one transaction), table after table, each
 * table's rows in {@value #LOADERS} slices loaded side by side. A batch the backends abort for a
 * deadlock or a lock wait is sent again.
 */
final class Loader {
    private static final int BATCH = 1000;
    private static final int LOADERS = 4;

    /** Opens a connection for one slice. */
    interface Connector {
        Connection connect() throws SQLException;
    }

    private Loader() {}

    static long load(Connector connector, List<TableData> tables, Terminal terminal, String label) throws SQLException {
        return load(connector, tables, terminal, label, LOADERS);
    }

    /**
     * With {@code loaders} connections side by side: one for rows of replicated keys, whose inserts write every copy
     * and deadlock with each other when loaded at once.
     */
    static long load(Connector connector, List<TableData> tables, Terminal terminal, String label, int loaders) throws SQLException {
        long all = tables.stream().mapToLong(t -> t.rows().size()).sum();
        var loaded = new AtomicLong();
        long start = System.nanoTime();
        try (var pool = Executors.newFixedThreadPool(loaders)) {
            for (TableData t : tables) {
                var slices = new ArrayList<Future<?>>();
                int n = t.rows().size();
                for (int s = 0; s < loaders; s++) {
                    var slice = t.rows().subList(n * s / loaders, n * (s + 1) / loaders);
                    slices.add(pool.submit(() -> {
                        try (Connection c = connector.connect()) {
                            loadSlice(c, t, slice, loaded, all, terminal, label);
                        }
                        return null;
                    }));
                }
                for (var f : slices) {
                    try {
                        f.get();
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof SQLException s) throw new SQLException("loading " + t.table() + ": " + s.getMessage(), s.getSQLState(), s.getErrorCode(), s);
                        throw new SQLException("loading " + t.table() + ": " + e.getCause(), e.getCause());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new SQLException("interrupted while loading " + t.table(), e);
                    }
                }
            }
        }
        terminal.done(String.format(Locale.ROOT, "  %s: loaded %,d rows in %.1f s", label, loaded.get(), (System.nanoTime() - start) / 1e9));
        return loaded.get();
    }

    private static void loadSlice(Connection c, TableData t, List<Object[]> rows, AtomicLong loaded, long all, Terminal terminal, String label)
            throws SQLException {
        try (var ps = c.prepareStatement(t.insertSql())) {
            for (int from = 0; from < rows.size(); from += BATCH) {
                var batch = rows.subList(from, Math.min(rows.size(), from + BATCH));
                for (int attempt = 1; ; attempt++) {
                    try {
                        for (Object[] row : batch) {
                            for (int i = 0; i < row.length; i++) {
                                if (row[i] == null) ps.setNull(i + 1, java.sql.Types.VARCHAR);
                                else ps.setObject(i + 1, row[i]);
                            }
                            ps.addBatch();
                        }
                        ps.executeBatch();
                        break;
                    } catch (SQLException e) {
                        ps.clearBatch();
                        if (Aborts.classify(e) == null || attempt >= Aborts.MAX_ATTEMPTS) throw e;
                        try {
                            Thread.sleep(java.util.concurrent.ThreadLocalRandom.current().nextInt(10, 50 * attempt));
                        } catch (InterruptedException ie) {
                            Thread.currentThread().interrupt();
                            throw e;
                        }
                    }
                }
                long done = loaded.addAndGet(batch.size());
                terminal.progress(String.format(Locale.ROOT, "  %s: loading %s, %,d of %,d rows", label, t.table(), done, all));
            }
        }
    }
}
