package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.it.rqg.Comparer;
import org.lutra.it.rqg.Outcome;
import org.lutra.it.rqg.Query;
import org.lutra.it.rqg.QueryGenerator;
import org.lutra.it.rqg.RqgSchema;
import org.lutra.it.rqg.Runner;
import org.lutra.it.rqg.Shrinker.Shrunk;
import org.lutra.it.rqg.WriteGenerator;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random writes on a random schema (issue 9, 29): tables placed by hash, range, lookup, SAME AS and
 * replicated (on every partition or on some), foreign keys between them (within a partition and
 * across partitions, restricting or cascading, from a replicated table to a partitioned one),
 * and a stream of INSERT, INSERT IGNORE, ON DUPLICATE KEY UPDATE, REPLACE, UPDATE and DELETE,
 * interleaved with generated queries over the rows as they change. Each write runs in a transaction
 * on both sides: the same update count (or both fail) and the same rows in the tables it can touch,
 * then both commit, else both roll back. After each write every replicated table's copies are read
 * on their partitions, bypassing the router, and must each hold the reference's rows: a write
 * must have the same effect on every copy.
 *
 * <p>{@code -Dlutra.rqg.seed=N} replays a run; {@code -Dlutra.rqg.queries=N} sets its size (N/2
 * statements, half of them writes).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RandomSchemaIT {
    private RqgDatabases db;
    private long seed;
    private final List<Connection> partitions = new ArrayList<>();

    @BeforeAll
    void start(Shards shards) throws Exception {
        seed = Long.getLong("lutra.rqg.seed", System.nanoTime() % 1_000_000_000L);
        System.out.println("RandomSchemaIT seed " + seed + " (replay with -Dlutra.rqg.seed=" + seed + ")");
        db = new RqgDatabases(shards, "rqgs", new RqgSchema(seed));
        System.out.println(db.schema.ddl + "(foreign keys " + (db.schema.foreignKeysCrossPartitions ? "cross" : "do not cross") + " partitions)");
        for (int p = 0; p < shards.size(); p++) partitions.add(db.router.partition(p));
    }

    @AfterAll
    void stop() throws Exception {
        for (var c : partitions) c.close();
        if (db != null) db.close();
    }

    @Test
    void writesAndQueriesOnARandomSchemaAnswerAsOneMariaDb() throws SQLException {
        int count = Integer.getInteger("lutra.rqg.queries", 2500) / 2;
        var runner = db.runner();
        var writes = new WriteGenerator(seed);
        var queries = new QueryGenerator(seed + 1, db.schema);
        var random = new Random(seed + 2);
        int written = 0, copiesChecked = 0;
        long t0 = System.nanoTime();
        for (int i = 0; i < count; i++) {
            if (random.nextBoolean()) {
                runner.check("differential", queries.next());
                continue;
            }
            written++;
            Query.Dml w = writes.next();
            if (write(runner, w)) copiesChecked += copiesAgree(runner, w, written % 50 == 0 ? db.schema.replicated() : WriteGenerator.TABLES);
        }
        copiesChecked += copiesAgree(runner, null, db.schema.replicated());
        System.out.printf("RandomSchemaIT: %d statements (%d writes, %d replicated copies compared after them) in %.1f s (seed %d)%n%s",
                count, written, copiesChecked, (System.nanoTime() - t0) / 1e9, seed, runner.summary() + runner.counts());
        RandomQueryIT.assertGood(runner, "seed " + seed);
    }

    /** Runs {@code w} on both sides in a transaction; commits both when they agree (returns true), else rolls both back. */
    private boolean write(Runner runner, Query.Dml w) throws SQLException {
        db.lutra.setAutoCommit(false);
        db.reference.setAutoCommit(false);
        boolean agree = false;
        try {
            Outcome l = execute(db.lutra, w);
            Outcome r = execute(db.reference, w);
            var verdict = Comparer.compare(l, r, false);
            if (verdict == Comparer.Verdict.SAME && l instanceof Outcome.Changed) {
                for (String other : touched(w.table())) {
                    if (other.equals(w.table())) continue;
                    var lo = Outcome.query(db.lutra, "SELECT * FROM " + other);
                    var ro = Outcome.query(db.reference, "SELECT * FROM " + other);
                    if (Comparer.compare(lo, ro, false) != Comparer.Verdict.SAME) {
                        verdict = Comparer.Verdict.DIFFERENT_ROWS;
                        l = lo;
                        r = ro;
                    }
                }
            }
            runner.account("write", new Shrunk(w, verdict, l, r), null);
            // a statement that failed on both sides changed nothing there; Lutra ends its transaction at a failed write anyway
            agree = verdict == Comparer.Verdict.SAME && l instanceof Outcome.Changed;
        } finally {
            if (agree) {
                db.lutra.commit();
                db.reference.commit();
            } else {
                db.lutra.rollback();
                db.reference.rollback();
            }
            db.lutra.setAutoCommit(true);
            db.reference.setAutoCommit(true);
        }
        return agree;
    }

    /** The write's count and its table afterwards (read inside the transaction), or its error. */
    private static Outcome execute(Connection c, Query.Dml w) {
        try (var st = c.createStatement()) {
            long n = st.executeUpdate(w.sql());
            try (var rs = st.executeQuery("SELECT * FROM " + w.table())) {
                return new Outcome.Changed(n, Outcome.rows(rs));
            }
        } catch (SQLException e) {
            return Outcome.failed(e);
        }
    }

    /** The tables a write of {@code table} can change: itself and, through foreign keys that cascade, its children. */
    private static List<String> touched(String table) {
        return table.equals("fp") ? List.of("fp", "fc", "fr") : List.of(table);
    }

    /**
     * Each replicated table of {@code tables}: its copy on every partition that holds it, read there
     * directly, must hold the reference's rows; a copy that differs is a failure and is set right from
     * the reference, so the run goes on from equal copies. After each write every replicated table
     * that statements write is compared; the join tables, which only the load writes, every 50 writes
     * and at the end.
     * Returns how many copies were compared.
     */
    private int copiesAgree(Runner runner, Query.Dml w, List<String> tables) throws SQLException {
        int compared = 0;
        for (String table : db.schema.replicated()) {
            if (!tables.contains(table)) continue;
            String order = " ORDER BY " + db.schema.table(table).columns().getFirst().name();
            var expected = Outcome.query(db.reference, "SELECT * FROM " + table + order);
            for (int p : db.router.server.catalog().table(table).partitioning().partitions()) {
                var copy = Outcome.query(partitions.get(p), "SELECT * FROM " + table + order);
                compared++;
                if (Comparer.compare(copy, expected, true) == Comparer.Verdict.SAME) continue;
                String after = w == null ? "(at the end of the run)" : w.sql();
                var found = new Shrunk(new Query.Verbatim(after + " -- then p" + p + "'s copy of " + table + " differs", false,
                        w == null ? java.util.Set.of("copies") : w.features()), Comparer.Verdict.DIFFERENT_ROWS, copy, expected);
                runner.account("copies", found, null);
                repair(partitions.get(p), table, (Outcome.Rows) expected);
            }
        }
        return compared;
    }

    private static void repair(Connection partition, String table, Outcome.Rows rows) throws SQLException {
        try (var st = partition.createStatement()) {
            st.execute("SET foreign_key_checks = 0");
            st.executeUpdate("DELETE FROM " + table);
            String marks = String.join(", ", java.util.Collections.nCopies(rows.labels().size(), "?"));
            try (var insert = partition.prepareStatement("INSERT INTO " + table + " VALUES (" + marks + ")")) {
                for (var row : rows.rows()) {
                    for (int i = 0; i < row.size(); i++) insert.setString(i + 1, row.get(i));
                    insert.executeUpdate();
                }
            }
            st.execute("SET foreign_key_checks = 1");
        }
    }
}
