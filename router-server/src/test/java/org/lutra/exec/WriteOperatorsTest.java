package org.lutra.exec;

import org.lutra.placement.PlacementRows;
import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.SchemaParser;
import org.lutra.plan.Planner;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The write operators' routing decisions against {@link FakeShards}: which partitions, which statements, in what order.
 * The paths that write every copy of replicated rows run over the statement's connections ({@link ReplicaWrite}) and are
 * covered by the integration tests (ReplicatedKeysIT); here no key is replicated, so no connections are needed (null).
 */
class WriteOperatorsTest {
    /** The schema of the write operators' unit tests (InsertOperatorsTest's too). */
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64)) PARTITION BY lookup(id) ON (p0, p1, p2, p3);
            CREATE TABLE text (id BIGINT PRIMARY KEY, body TEXT) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE country (code CHAR(2) PRIMARY KEY, name VARCHAR(64)) REPLICATED ON (p0, p1, p2, p3);
            """;

    private final Catalog catalog = SchemaParser.parse(SCHEMA, List.of("p0", "p1", "p2", "p3"));
    private final Planner planner = new Planner(catalog, "demo", 100);
    private final Stats stats = new Stats(4);
    private final Services services = Services.withoutBackends(stats); // backends reached only where keys are replicated
    private final Partitioning.LookedUp users = (Partitioning.LookedUp) catalog.table("users").partitioning();

    @Test
    void aHashedKeyIsWrittenOnItsPartitionOnceWithoutValidation() throws SQLException {
        var shards = new FakeShards().changes(3, 1);
        var done = keyed(shards, "UPDATE text SET body = ? WHERE id = ?", s("x"), i(7));
        assertEquals(List.of("update p3: UPDATE text SET body = ? WHERE id = ? [x, 7]"), shards.log);
        assertEquals(1, done.count());
        assertEquals(1, done.partitions());
    }

    @Test
    void aLookupKeyFoundWhereTheCachePointsIsWrittenThereAlone() throws SQLException {
        users.table().put(5L, 1);
        var shards = new FakeShards().changes(1, 1);
        var done = keyed(shards, "UPDATE users SET name = ? WHERE id = ?", s("x"), i(5));
        assertEquals(List.of("update p1: UPDATE users SET name = ? WHERE id = ? [x, 5]"), shards.log, "no home row read when a row matched");
        assertEquals(1, done.count());
        assertEquals(0, stats.lookup(users).fallbacks());
    }

    @Test
    void aStaleCacheEntryIsCorrectedByTheKeysHomeRowUnderItsLockAndWrittenThere() throws SQLException {
        users.table().put(5L, 1); // stale: the key lives on p2
        int home = users.placeNew(5L);
        var shards = new FakeShards("k:INT", "partitions:VARCHAR").on(home, "5|p2").changes(2, 1);
        var done = keyed(shards, "UPDATE users SET name = ? WHERE id = ?", s("x"), i(5));
        assertEquals(List.of(
                "update p1: UPDATE users SET name = ? WHERE id = ? [x, 5]", // where the cache points: nothing matched
                "p" + home + ": " + PlacementRows.resolveSql("users", 1) + " LOCK IN SHARE MODE [5]", // the home row, locked
                "update p2: UPDATE users SET name = ? WHERE id = ? [x, 5]", // where it says, while locked
                "p" + home + ": closed"), shards.log);
        assertEquals(1, done.count());
        assertEquals(2, done.partitions(), "both tries count");
        assertEquals(2, users.table().get(5L), "the entry is learned");
        assertEquals(1, stats.lookup(users).fallbacks());
    }

    @Test
    void aKeyFoundNowhereRunsAgainAtItsHomeAndChangesNothing() throws SQLException {
        users.table().put(6L, 3);
        int home = users.placeNew(6L);
        var shards = new FakeShards("k:INT", "partitions:VARCHAR"); // no home row: the key is at home
        var done = keyed(shards, "DELETE FROM users WHERE id = ?", i(6));
        assertEquals(List.of(
                "update p3: DELETE FROM users WHERE id = ? [6]",
                "p" + home + ": " + PlacementRows.resolveSql("users", 1) + " LOCK IN SHARE MODE [6]",
                "update p" + home + ": DELETE FROM users WHERE id = ? [6]",
                "p" + home + ": closed"), shards.log);
        assertEquals(0, done.count());
        assertEquals(home, users.table().get(6L));
    }

    @Test
    void severalLookupKeysAreLocatedByTheirHomeRowsFirstInOneTransaction() throws SQLException {
        users.table().put(5L, 1);
        users.table().put(6L, 1);
        var shards = new FakeShards("k:INT", "partitions:VARCHAR");
        keyed(shards, "DELETE FROM users WHERE id IN (?, ?)", i(5), i(6));
        assertEquals("atomic", shards.log.getFirst(), "a first try could not be taken back: no update before the home rows are read");
        var updates = shards.log.stream().filter(l -> l.startsWith("update ")).toList();
        var homes = shards.log.stream().filter(l -> l.contains("LOCK IN SHARE MODE")).toList();
        assertFalse(homes.isEmpty());
        assertTrue(shards.log.indexOf(homes.getLast()) < shards.log.indexOf(updates.getFirst()), "every home row read before any write: " + shards.log);
        var expected = new java.util.TreeSet<String>();
        for (long k : new long[]{5, 6}) expected.add("p" + users.placeNew(k));
        assertEquals(expected, new java.util.TreeSet<>(updates.stream().map(u -> u.substring("update ".length(), u.indexOf(':'))).toList()),
                "at their homes (no home rows): " + shards.log);
    }

    @Test
    void anOrderedWriteOfSeveralKeysIsRefusedBeforeAnythingRuns() {
        var shards = new FakeShards();
        var e = assertThrows(SQLException.class, () -> keyed(shards, "UPDATE users SET name = ? WHERE id IN (?, ?) ORDER BY name LIMIT 1", s("x"), i(5), i(6)));
        assertTrue(Refusal.is(e), e.getMessage());
        assertEquals(List.of(), shards.log);
    }

    @Test
    void anUnkeyedWriteOfALookupGroupHoldsTheLockingFenceAsksForCopiesAndWritesEveryPartitionAtomically() throws SQLException {
        var shards = new FakeShards("x:INT").changes(0, 1).changes(2, 2);
        var done = plan("UPDATE users SET name = ? WHERE name = ?").run(new Context(List.of(s("x"), s("y")), shards, services));
        assertTrue(shards.log.getFirst().matches("locking fence users at p[0-3]"), shards.log.getFirst()); // any partition (no secondary lookup)
        for (int p = 0; p < 4; p++) {
            assertEquals("query p" + p + ": " + PlacementRows.anyReplicatedSql("users", "p" + p), shards.log.get(1 + p), "no partition holds copies");
        }
        assertEquals(List.of("atomic",
                "update p0: UPDATE users SET name = ? WHERE name = ? [x, y]",
                "update p1: UPDATE users SET name = ? WHERE name = ? [x, y]",
                "update p2: UPDATE users SET name = ? WHERE name = ? [x, y]",
                "update p3: UPDATE users SET name = ? WHERE name = ? [x, y]"), shards.log.subList(5, shards.log.size()));
        assertEquals(3, done.count());
        assertEquals(4, done.partitions());
        assertEquals(1, stats.lookup(users).broadcasts());
    }

    @Test
    void anUnkeyedWriteOfAHashedTableGoesEverywhereWithoutFence() throws SQLException {
        var shards = new FakeShards();
        plan("DELETE FROM text WHERE body = ?").run(new Context(List.of(s("x")), shards, services));
        assertEquals(List.of("atomic",
                "update p0: DELETE FROM text WHERE body = ? [x]",
                "update p1: DELETE FROM text WHERE body = ? [x]",
                "update p2: DELETE FROM text WHERE body = ? [x]",
                "update p3: DELETE FROM text WHERE body = ? [x]"), shards.log);
    }

    @Test
    void aDeleteAfterItsSubqueryReadsItAsALockingReadFirstThenDeletesTheRowsOfTheValuesItFound() throws SQLException {
        users.table().put(5L, 1);
        var shards = new FakeShards("id:BIGINT").on(2, "5").changes(1, 1);
        var write = assertInstanceOf(Plan.WriteAfterSubqueries.class, planner.plan("DELETE FROM users WHERE id IN (SELECT id FROM text WHERE body = ?)"));
        var done = write.run(new Context(List.of(s("x")), shards, services));
        assertEquals("atomic", shards.log.getFirst(), "the reads and the write in one transaction: " + shards.log);
        var reads = shards.log.stream().filter(l -> l.startsWith("query ")).toList();
        assertEquals(4, reads.size(), "the subquery on every partition of text: " + shards.log);
        for (String read : reads) assertTrue(read.contains("LOCK IN SHARE MODE"), "a DELETE's subquery is a locking read: " + read);
        assertEquals("update p1: DELETE FROM users WHERE id IN (?) [5]", shards.log.getLast(), "the value found, bound as a parameter, routes the write");
        assertEquals(1, done.count());
    }

    @Test
    void anUpdateReadingAReplicatedTableInPlaceLocksItsFirstCopyFirstAtRepeatableReadOnly() throws SQLException {
        var write = assertInstanceOf(Plan.CopiesLockedFirst.class,
                planner.plan("UPDATE text SET body = (SELECT name FROM country WHERE code = ?) WHERE id = ?"));
        int at = catalog.table("text").partitioning().placeNew(7L);
        var shards = new FakeShards("name:VARCHAR").changes(at, 1);
        var done = write.run(new Context(List.of(s("NO"), i(7)), shards, services));
        assertEquals("atomic", shards.log.getFirst(), shards.log.toString());
        assertTrue(shards.log.get(1).startsWith("query p0: ") && shards.log.get(1).contains("country"), "the lock on the first copy: " + shards.log);
        assertEquals("update p" + at + ": UPDATE text SET body = (SELECT name FROM country WHERE code = ?) WHERE id = ? [NO, 7]", shards.log.getLast());
        assertEquals(1, done.count());

        var readCommitted = new FakeShards("name:VARCHAR").changes(at, 1);
        readCommitted.transactional = true;
        readCommitted.isolation = java.sql.Connection.TRANSACTION_READ_COMMITTED; // an UPDATE's subqueries are consistent reads there
        write.run(new Context(List.of(s("NO"), i(7)), readCommitted, services));
        assertEquals(List.of("update p" + at + ": UPDATE text SET body = (SELECT name FROM country WHERE code = ?) WHERE id = ? [NO, 7]"), readCommitted.log);
    }

    @Test
    void aWritesTreeIsDrawnByExplainRouteWithTheReadsItRunsFirst() throws SQLException {
        var write = (Plan.Writing) planner.plan("UPDATE text SET body = (SELECT name FROM country WHERE code = ?) WHERE id = ?");
        var lines = Explain.route(write, Context.explain(List.of(s("NO"), i(7)), stats), catalog).stream().map(Explain.Line::operator).toList();
        assertEquals(write.describe(), lines.getFirst());
        assertEquals("  Write text", lines.get(1), "the write it runs after the locks, as its input: " + lines);
    }

    private Result.Count keyed(FakeShards shards, String sql, Value... params) throws SQLException {
        var plan = plan(sql);
        Object[] keys = Routes.keys(plan, List.of(params));
        assertNotNull(keys, "names its keys: " + sql);
        return plan.run(new Context(List.of(params), shards, services));
    }

    private Plan.Routed plan(String sql) throws SQLException {
        return (Plan.Routed) planner.plan(sql);
    }

    private static Value i(long v) {
        return Value.newBuilder().setIntValue(v).build();
    }

    private static Value s(String v) {
        return Value.newBuilder().setStringValue(v).build();
    }
}
