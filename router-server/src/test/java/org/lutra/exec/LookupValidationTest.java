package org.lutra.exec;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.SchemaParser;
import org.lutra.placement.LookupValidation;
import org.lutra.placement.PlacementRows;
import org.lutra.plan.Planner;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The validation protocol ({@link LookupValidation}) as a read ({@link SelectPlan}) and a write ({@link KeyedWrite}) run
 * it, against {@link FakeShards}: the cache right, the cache stale (the key moved), the key unknown to the cache, and a
 * move the statement meets (a batch committed since the transaction's snapshot, the placement trigger's refusal). Key 5
 * has its home (DEFAULT NEW) at partition {@code home}; the cache may point at {@code cached}; it may live at {@code lives}.
 */
class LookupValidationTest {
    private static final String SELECT = "SELECT id, name FROM users WHERE id = ?";
    private static final String UPDATE = "UPDATE users SET name = ? WHERE id = ?";

    private final Catalog catalog = SchemaParser.parse(WriteOperatorsTest.SCHEMA, List.of("p0", "p1", "p2", "p3"));
    private final Planner planner = new Planner(catalog, "demo", 100);
    private final Stats stats = new Stats(4);
    private final Services services = Services.withoutBackends(stats);
    private final Partitioning.LookedUp users = (Partitioning.LookedUp) catalog.table("users").partitioning();
    private final int home = users.placeNew(5L);
    private final int cached = (home + 1) % 4;
    private final int lives = (home + 2) % 4;
    private final String homeRow = "p" + home + ": " + PlacementRows.resolveSql("users", 1) + " LOCK IN SHARE MODE [5]";

    // reads

    @Test
    void aReadTheCacheRoutesRightIsAnsweredThereWithoutALock() throws SQLException {
        users.table().put(5L, cached);
        var shards = shards().on(cached, "5|ann");
        var ctx = context(shards, i(5));
        assertEquals(List.of("5|ann"), FakeShards.text(select(ctx)));
        assertEquals(List.of("query p" + cached + ": " + SELECT + " [5]"), shards.log, "a row came: no home row read");
        assertEquals(0, stats.lookup(users).fallbacks());
    }

    @Test
    void aReadTheCacheRoutesToWhereTheKeyWasRunsAgainWhereItsHomeRowSaysUnderItsLockAndLearns() throws SQLException {
        users.table().put(5L, cached); // stale: the key moved on
        var shards = shards().on(lives, "5|ann").placement(home, "5|p" + lives);
        var ctx = context(shards, i(5));
        assertEquals(List.of("5|ann"), FakeShards.text(select(ctx)));
        assertEquals(List.of(
                "query p" + cached + ": " + SELECT + " [5]", // where the cache points: no row
                homeRow, // the home row, locked
                "no move since snapshot users [" + lives + "]", // a transaction's older snapshot there would be refused
                "query p" + lives + ": " + SELECT + " [5]"), shards.log); // where it says, while locked
        assertEquals(lives, users.table().get(5L), "the entry is learned");
        assertEquals(1, stats.lookup(users).fallbacks());
        assertEquals(1, stats.subQueries(lives), "the partition asked again is counted with the fallback");
        ctx.release();
        assertEquals("p" + home + ": closed", shards.log.getLast(), "the lock is the statement's: held until its rows are read");
    }

    @Test
    void aReadOfAKeyTheCacheDoesNotKnowGoesToItsHomeAndFromItsHomeRowWhereItLivesNeverEverywhere() throws SQLException {
        var shards = shards().on(lives, "5|ann").placement(home, "5|p" + lives);
        assertEquals(List.of("5|ann"), FakeShards.text(select(context(shards, i(5)))));
        assertEquals(List.of(
                "query p" + home + ": " + SELECT + " [5]", // a miss goes where new keys go: its home
                homeRow,
                "no move since snapshot users [" + lives + "]",
                "query p" + lives + ": " + SELECT + " [5]"), shards.log);
        assertEquals(lives, users.table().get(5L));

        var nowhere = shards(); // no row and no home row: the key is at home and has no rows
        assertEquals(List.of(), FakeShards.text(select(context(nowhere, i(6)))));
        int home6 = users.placeNew(6L);
        assertEquals(List.of(
                "query p" + home6 + ": " + SELECT + " [6]",
                "p" + home6 + ": " + PlacementRows.resolveSql("users", 1) + " LOCK IN SHARE MODE [6]",
                "no move since snapshot users [" + home6 + "]",
                "query p" + home6 + ": " + SELECT + " [6]"), nowhere.log, "its home partition only, no broadcast");
    }

    @Test
    void aReadInATransactionDropsRowsOfASnapshotAMoveOfTheGroupCommittedAfterAndReadsWhereTheHomeRowSays() throws SQLException {
        users.table().put(5L, cached);
        var shards = shards().on(cached, "5|old").on(lives, "5|ann").placement(home, "5|p" + lives).movedSinceSnapshot(cached);
        shards.transactional = true; // at REPEATABLE READ: its snapshot of the cache's partition predates the move
        assertEquals(List.of("5|ann"), FakeShards.text(select(context(shards, i(5)))), "not the snapshot's rows of a key that left");
        assertEquals(List.of(
                "moves since snapshot users [" + cached + "]", // the count in the snapshot, read before the try is sent
                "query p" + cached + ": " + SELECT + " [5]",
                homeRow,
                "no move since snapshot users [" + lives + "]",
                "query p" + lives + ": " + SELECT + " [5]"), shards.log);
        assertTrue(shards.closed.contains(cached), "the try's rows are dropped unread: " + shards.closed);

        users.table().put(5L, cached);
        var noMove = shards().on(cached, "5|ann").movedSinceSnapshot(home); // a batch committed elsewhere only
        noMove.transactional = true;
        assertEquals(List.of("5|ann"), FakeShards.text(select(context(noMove, i(5)))));
        assertEquals(List.of("moves since snapshot users [" + cached + "]", "query p" + cached + ": " + SELECT + " [5]"), noMove.log,
                "no batch since the snapshot where it read: its rows are the answer");
    }

    // writes

    @Test
    void aWriteTheCacheRoutesRightRunsThereAlone() throws SQLException {
        users.table().put(5L, cached);
        var shards = shards().changes(cached, 1);
        shards.transactional = true;
        var done = update(shards);
        assertEquals(List.of("update p" + cached + ": " + UPDATE + " [x, 5]"), shards.log, "no snapshot check: a write changes the latest rows");
        assertEquals(1, done.count());
    }

    @Test
    void aWriteTheCacheRoutesToWhereTheKeyWasRunsAgainWhereItsHomeRowSaysWhileLockedThenReleasesTheLock() throws SQLException {
        users.table().put(5L, cached);
        var shards = shards().placement(home, "5|p" + lives).changes(lives, 1);
        var done = update(shards);
        assertEquals(List.of(
                "update p" + cached + ": " + UPDATE + " [x, 5]", // nothing matched
                homeRow,
                "update p" + lives + ": " + UPDATE + " [x, 5]", // while locked: no move of the key can take its rows meanwhile
                "p" + home + ": closed"), shards.log); // the write's own lock, released once it has written
        assertEquals(1, done.count(), "the rows the second try changed");
        assertEquals(2, done.partitions(), "both tries' partitions");
        assertEquals(lives, users.table().get(5L));
        assertEquals(1, stats.lookup(users).fallbacks());
        assertEquals(1, stats.subQueries(lives), "the second try is counted as a statement, once");
    }

    @Test
    void aWriteOfAKeyTheCacheDoesNotKnowGoesToItsHomeAndFromItsHomeRowWhereItLives() throws SQLException {
        var shards = shards().placement(home, "5|p" + lives).changes(lives, 1);
        assertEquals(1, update(shards).count());
        assertEquals(List.of(
                "update p" + home + ": " + UPDATE + " [x, 5]",
                homeRow,
                "update p" + lives + ": " + UPDATE + " [x, 5]",
                "p" + home + ": closed"), shards.log);
    }

    @Test
    void aWriteThePlacementTriggerRefusesWhereTheCachePointsRunsWhereTheHomeRowSays() throws SQLException {
        users.table().put(5L, cached); // a move took the key away: the placement row there names where it went
        var shards = shards().refusesWrites(cached).placement(home, "5|p" + lives).changes(lives, 1);
        shards.transactional = true;
        shards.movedSinceSnapshot(cached);
        var done = update(shards);
        assertEquals(List.of(
                "update p" + cached + ": " + UPDATE + " [x, 5]", // refused by the trigger: a miss, not an error
                homeRow,
                "update p" + lives + ": " + UPDATE + " [x, 5]",
                "p" + home + ": closed"), shards.log, "no snapshot check on either try");
        assertEquals(1, done.count());
    }

    private FakeShards shards() {
        return new FakeShards("id:INT", "name:VARCHAR");
    }

    private Context context(FakeShards shards, Value... params) {
        return new Context(List.of(params), shards, services);
    }

    private org.lutra.merge.RowSource select(Context ctx) throws SQLException {
        var root = ((Plan.Query) planner.plan(SELECT)).root();
        return root.open(ctx);
    }

    private Result.Count update(FakeShards shards) throws SQLException {
        return ((Plan.Routed) planner.plan(UPDATE)).run(context(shards, s("x"), i(5)));
    }

    private static Value i(long v) {
        return Value.newBuilder().setIntValue(v).build();
    }

    private static Value s(String v) {
        return Value.newBuilder().setStringValue(v).build();
    }
}
