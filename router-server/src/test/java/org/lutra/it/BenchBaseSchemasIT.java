package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * BenchBase's TPC-C and Wikipedia end to end, as its stock MySQL configs run them, through Connector/J unchanged at
 * the router's MySQL listener (BenchBase's URL options: {@code rewriteBatchedStatements=true}, SERIALIZABLE) and on one
 * plain MariaDB: its {@code ddl-mysql.sql} files as they are (test resources, run statement by statement as its
 * ScriptRunner does; no placement clause: the default placement reads them), a small load in prepared batches, then
 * each workload's transactions, the same random choices on both sides. Every transaction must read alike (or be
 * rolled back alike: TPC-C's 1% of orders with an unused item, a page watched twice), and at the end every table
 * holds the same rows (Wikipedia's generated ids aside: its pages, revisions and texts are compared through them).
 *
 * <p>Seed: {@code -Dlutra.benchbase.seed=N}; transactions per workload {@code -Dlutra.benchbase.transactions=N} (200).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BenchBaseSchemasIT {
    private static final String OPTIONS = "rewriteBatchedStatements=true&allowPublicKeyRetrieval=true&sslMode=DISABLED";

    private final List<Differential> opened = new ArrayList<>();
    private Shards shards;
    private long seed;

    @BeforeAll
    void start(Shards shards) {
        this.shards = shards;
        seed = Long.getLong("lutra.benchbase.seed", System.nanoTime() % 1_000_000_000L);
        System.out.println("BenchBaseSchemasIT seed " + seed + " (replay with -Dlutra.benchbase.seed=" + seed + ")");
    }

    @AfterAll
    void stop() throws Exception {
        for (var d : opened) d.close();
    }

    @Test
    void tpccRunsAsOnOneMariaDb() throws Exception {
        run("tpcc", "/benchbase/tpcc-ddl-mysql.sql", TpccWorkload::load, TpccWorkload::next, TpccWorkload.TABLES, List.of());
    }

    @Test
    void wikipediaRunsAsOnOneMariaDb() throws Exception {
        run("wiki", "/benchbase/wikipedia-ddl-mysql.sql", WikipediaWorkload::load, WikipediaWorkload::next, WikipediaWorkload.TABLES,
                WikipediaWorkload.contentQueries());
    }

    interface Loader {
        void load(Connection c, SplittableRandom r) throws SQLException;
    }

    private void run(String name, String ddl, Loader loader, BenchBaseRun.Transaction next, List<String> tables, List<String> queries) throws Exception {
        var diff = new Differential(shards, "bb" + name, "");
        opened.add(diff);
        try (var lutra = diff.router.connectMysql(OPTIONS); var reference = diff.newReference()) {
            var statements = BenchBaseRun.statements(ddl);
            assertNull(BenchBaseRun.script(reference, statements), "the DDL on one MariaDB");
            assertNull(BenchBaseRun.script(lutra, statements), "the DDL through the listener");
            for (Connection c : List.of(lutra, reference)) c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            loader.load(lutra, new SplittableRandom(seed));
            loader.load(reference, new SplittableRandom(seed));
            assertSameTables(diff, lutra, reference, tables, queries, "after the load");
            int transactions = Integer.getInteger("lutra.benchbase.transactions", 200);
            var differ = new ArrayList<String>();
            int rolledBack = 0;
            for (int i = 0; i < transactions && differ.size() < 3; i++) {
                String l = next.run(lutra, new SplittableRandom(seed + i));
                String m = next.run(reference, new SplittableRandom(seed + i));
                if (!l.equals(m)) differ.add("transaction " + i + ": lutra " + l + " / mariadb " + m);
                if (m.startsWith("rolled back")) rolledBack++;
            }
            assertEquals(List.of(), differ);
            assertTrue(rolledBack < transactions / 4, rolledBack + " of " + transactions + " rolled back");
            System.out.println("BenchBaseSchemasIT " + name + ": " + transactions + " transactions alike, " + rolledBack + " rolled back on both sides");
            assertSameTables(diff, lutra, reference, tables, queries, "at the end");
        }
    }

    private static void assertSameTables(Differential diff, Connection lutra, Connection reference, List<String> tables, List<String> queries, String when)
            throws SQLException {
        var all = new ArrayList<String>();
        for (String t : tables) {
            int columns = columnCount(reference, t);
            var order = new StringBuilder();
            for (int i = 1; i <= columns; i++) order.append(i > 1 ? ", " : "").append(i);
            all.add("SELECT * FROM " + t + " ORDER BY " + order);
        }
        int loaded = all.size(); // the tables the load fills; the queries' tables (recent changes, log) may be empty before the run
        all.addAll(queries);
        for (String q : all) {
            var l = Differential.rows(lutra, q);
            var m = Differential.rows(reference, q);
            if (all.indexOf(q) < loaded) assertTrue(!m.isEmpty(), when + ": rows in " + q);
            assertEquals(m.size(), l.size(), when + ": " + q);
            for (int i = 0; i < m.size(); i++) assertEquals(m.get(i), l.get(i), when + ": " + q + " row " + i);
        }
    }

    private static int columnCount(Connection c, String table) throws SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery("SELECT * FROM " + table + " LIMIT 0")) {
            return rs.getMetaData().getColumnCount();
        }
    }
}
