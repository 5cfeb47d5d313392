package org.lutra.exec;

import org.lutra.placement.IdBlocks;
import org.lutra.placement.PlacementRows;
import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.SchemaParser;
import org.lutra.plan.Planner;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The insert operators' placement decisions against {@link FakeShards}: where each row goes, what the placement trigger's
 * refusal makes them do, and INSERT ... SELECT's read before its inserts. Replicated keys and REPLICATED tables are written
 * over the statement's connections ({@link ReplicaWrite}) and covered by the integration tests (ReplicatedKeysIT); no key
 * here is replicated and no foreign key is the router's, so no connections are needed (null).
 */
class InsertOperatorsTest {
    private final Catalog catalog = SchemaParser.parse(WriteOperatorsTest.SCHEMA, List.of("p0", "p1", "p2", "p3"));
    private final Planner planner = new Planner(catalog, "demo", 100);
    private final Stats stats = new Stats(4);
    private final Services services = Services.withoutBackends(stats); // backends reached only where keys are replicated
    private FakeShards shards;
    private final Partitioning.LookedUp users = (Partitioning.LookedUp) catalog.table("users").partitioning();
    private final Partitioning text = catalog.table("text").partitioning();

    @Test
    void rowsOfAHashedTableAreSplitByPartitionEachStatementWithItsOwnRowsInOneTransaction() throws SQLException {
        long a = 1, b = keyOn(text, text.placeNew(1L), 2), c = keyOn(text, (text.placeNew(1L) + 1) % 4, 2);
        int pa = text.placeNew(a), pc = text.placeNew(c);
        shards = new FakeShards().changes(pa, 2).changes(pc, 1);
        var done = insert("INSERT INTO text (id, body) VALUES (?, ?), (?, ?), (?, ?)", i(a), s("x"), i(c), s("y"), i(b), s("z"));
        assertEquals(List.of(
                "atomic", // two partitions: both inserts commit together
                "insert p" + pa + ": INSERT INTO text (id, body) VALUES (?, ?), (?, ?) [" + a + ", x, " + b + ", z]",
                "insert p" + pc + ": INSERT INTO text (id, body) VALUES (?, ?) [" + c + ", y]"), shards.log);
        assertEquals(3, done.count());
        assertEquals(2, done.partitions());
    }

    @Test
    void aNewLookupKeyGoesWhereNewKeysGoAndIsLearned() throws SQLException {
        int home = users.placeNew(41L);
        shards = new FakeShards().changes(home, 1);
        var done = insert("INSERT INTO users (id, name) VALUES (?, ?)", i(41), s("ann"));
        assertEquals(List.of("insert p" + home + ": INSERT INTO users (id, name) VALUES (?, ?) [41, ann]"), shards.log, "one statement, no placement read");
        assertEquals(1, done.count());
        assertEquals(home, users.table().get(41L), "the inserted key is learned");
        assertEquals(0, stats.lookup(users).fallbacks());
    }

    @Test
    void aRowTheTriggerRefusesIsSentWhereItsKeysHomeRowSaysItLives() throws SQLException {
        users.table().put(5L, 1); // stale: the key moved to p2
        int home = users.placeNew(5L);
        shards = new FakeShards("k:INT", "partitions:VARCHAR").on(home, "5|p2").misplaces(1).changes(2, 1);
        var done = insert("INSERT INTO users (id, name) VALUES (?, ?)", i(5), s("bob"));
        assertEquals(List.of(
                "insert p1: INSERT INTO users (id, name) VALUES (?, ?) [5, bob] (refused: misplaced)", // where the cache points
                "query p" + home + ": " + PlacementRows.resolveSql("users", 1) + " [5]", // where the key's home row says it lives
                "atomic", // a second try: the statement is one transaction
                "insert p2: INSERT INTO users (id, name) VALUES (?, ?) [5, bob]"), shards.log);
        assertEquals(1, done.count());
        assertEquals(2, done.partitions(), "both tries count");
        assertEquals(2, users.table().get(5L), "the entry is learned");
    }

    @Test
    void rowsRefusedOnEveryTryFailTheStatementAsRetryable() {
        users.table().put(6L, 2);
        int home = users.placeNew(6L);
        shards = new FakeShards("k:INT", "partitions:VARCHAR").on(home, "6|p2").misplaces(2); // the key keeps moving
        var e = assertThrows(SQLException.class, () -> insert("INSERT INTO users (id, name) VALUES (?, ?)", i(6), s("cy")));
        assertEquals("40001", e.getSQLState());
        assertEquals(1213, e.getErrorCode());
        assertEquals(4, shards.log.stream().filter(l -> l.startsWith("insert p2:")).count(), "four tries, then it gives up");
    }

    @Test
    void insertSelectReadsEveryRowFirstThenInsertsThemInOneTransaction() throws SQLException {
        users.table().put(7L, 3);
        int to = text.placeNew(7L);
        shards = new FakeShards("id:INT", "name:VARCHAR").on(3, "7|dee").changes(to, 1);
        shards.transactional = true;
        shards.isolation = java.sql.Connection.TRANSACTION_READ_COMMITTED; // a plain read (a locking one at REPEATABLE READ)
        var plan = (Plan.InsertSelect) planner.plan("INSERT INTO text (id, body) SELECT id, name FROM users WHERE id = ?");
        var done = plan.run(new Context(List.of(i(7)), shards, services));
        assertEquals(List.of(
                "atomic",
                "query p3: SELECT id, name FROM users WHERE id = ? [7]",
                "insert p" + to + ": INSERT INTO `text` (`id`, `body`) VALUES (?, ?) [7, dee]"), shards.log);
        assertEquals(1, done.count());
    }

    @Test
    void insertSelectAtRepeatableReadReadsItsRowsAsALockingRead() throws SQLException {
        users.table().put(8L, 0);
        int to = text.placeNew(8L);
        shards = new FakeShards("id:INT", "name:VARCHAR").on(0, "8|eve").changes(to, 1);
        shards.transactional = true;
        var plan = (Plan.InsertSelect) planner.plan("INSERT INTO text (id, body) SELECT id, name FROM users WHERE id = ?");
        plan.run(new Context(List.of(i(8)), shards, services));
        var reads = shards.log.stream().filter(l -> l.startsWith("query ")).toList();
        assertEquals(1, reads.size(), shards.log.toString());
        assertTrue(reads.getFirst().contains("LOCK IN SHARE MODE"), reads.getFirst());
    }

    /** The {@code n}th key (from 2 on) that {@code placement} puts on {@code partition}. */
    private static long keyOn(Partitioning placement, int partition, int n) {
        var found = new ArrayList<Long>();
        for (long k = 1; found.size() < n; k++) if (placement.placeNew(k) == partition) found.add(k);
        return found.get(n - 1);
    }

    private Result.Count insert(String sql, Value... params) throws SQLException {
        return ((Plan.Insert) planner.plan(sql)).run(new Context(List.of(params), shards, services));
    }

    private static Value i(long v) {
        return Value.newBuilder().setIntValue(v).build();
    }

    private static Value s(String v) {
        return Value.newBuilder().setStringValue(v).build();
    }
}
