package org.lutra.exec;

import org.lutra.backend.ShardQuery;
import org.lutra.backend.ValueCodec;
import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.SchemaParser;
import org.lutra.sql.PlanException;
import org.lutra.plan.Planner;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.*;

/** Routing decisions, declaratively: SQL + parameters in, the SQL and parameters each partition gets out. */
class RoutesTest {
    private static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64)) PARTITION BY lookup(id) ON (p0, p1, p2, p3);
            CREATE TABLE followers (source INT, destination INT, PRIMARY KEY (source, destination)) PARTITION BY lookup(source) SAME AS users;
            CREATE TABLE text (id BIGINT PRIMARY KEY, body TEXT) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE country (code CHAR(2) PRIMARY KEY) REPLICATED;
            """;

    private final Catalog catalog = SchemaParser.parse(SCHEMA, List.of("p0", "p1", "p2", "p3"));
    private final Planner planner = new Planner(catalog, "demo", 100);
    private final Stats stats = new Stats(4);

    @Test
    void inListIsCutPerBackendAsInTheThesis() throws SQLException {
        // thesis §4.1.1: id IN (2,19,27,77) with 19 and 27 on backend 2 and 2 and 77 on backend 3
        var users = (Partitioning.LookedUp) catalog.table("users").partitioning();
        users.table().put(2L, 3);
        users.table().put(19L, 2);
        users.table().put(27L, 2);
        users.table().put(77L, 3);
        assertEquals(Map.of(
                3, "SELECT * FROM users WHERE id IN (2, 77) []",
                2, "SELECT * FROM users WHERE id IN (19, 27) []"),
                route("SELECT * FROM users WHERE id IN (2,19,27,77)"));
    }

    @Test
    void routingCountsTheLookupTablesHitsMissesAndBroadcastsSameAsTablesWithTheirOwner() throws SQLException {
        var users = (Partitioning.LookedUp) catalog.table("users").partitioning();
        var followers = (Partitioning.LookedUp) catalog.table("followers").partitioning();
        users.table().put(2L, 3);
        users.table().put(19L, 2);
        route("SELECT * FROM users WHERE id IN (2, 19, 500)"); // two entries, 500 has none
        route("UPDATE followers SET destination = 1 WHERE source = 2"); // the owner's entry
        route("SELECT * FROM users WHERE name = 'x'"); // no key: every partition
        route("SELECT * FROM text WHERE id = 7"); // hash: no lookup table counts
        var counters = stats.lookup(users);
        assertSame(counters, stats.lookup(followers), "SAME AS tables share their owner's lookup table and its counters");
        assertEquals(3, counters.hits());
        assertEquals(1, counters.misses());
        assertEquals(1, counters.broadcasts());
        assertEquals(0, counters.fallbacks(), "routing alone asks no other partition");
    }

    @Test
    void parametersFollowTheirItems() throws SQLException {
        var users = (Partitioning.LookedUp) catalog.table("users").partitioning();
        users.table().put(5L, 1);
        users.table().put(6L, 0);
        assertEquals(Map.of(
                1, "SELECT name FROM users WHERE name <> ? AND id IN (?) [x, 5]",
                0, "SELECT name FROM users WHERE name <> ? AND id IN (?) [x, 6]"),
                route("SELECT name FROM users WHERE name <> ? AND id IN (?, ?)", s("x"), i(5), i(6)));
    }

    @Test
    void equalityGoesToOnePartitionAndSchemaQualifierIsDropped() throws SQLException {
        assertEquals(Map.of(3, "SELECT * FROM text WHERE id = ? [7]"), route("SELECT * FROM demo.text WHERE id = ?", i(7)));
        assertEquals(Map.of(3, "UPDATE text SET body = 'b' WHERE id = '7' []"), route("UPDATE text SET body = 'b' WHERE id = '7'"));
    }

    @Test
    void missingLookupKeyGoesWhereNewKeysGo() throws SQLException {
        assertEquals(Map.of(2, "DELETE FROM users WHERE id = 42 []"), route("DELETE FROM users WHERE id = 42"));
    }

    @Test
    void predicatesTheRouterCannotPinBroadcast() throws SQLException {
        assertEquals(4, route("SELECT * FROM users WHERE id = 1 OR id = 2").size());
        assertEquals(4, route("SELECT * FROM users WHERE name = 'x'").size());
        assertEquals(4, route("SELECT * FROM users WHERE id = '1abc'").size(), "MySQL would match 1: only a broadcast is safe");
        assertEquals(4, route("SELECT * FROM users WHERE id NOT IN (1, 2)").size());
        assertEquals(4, route("SELECT * FROM text WHERE id > ?", i(3)).size());
    }

    @Test
    void aliasedAndQualifiedColumnsRoute() throws SQLException {
        assertEquals(Map.of(1, "SELECT u.name FROM text u WHERE u.id = 5 []"), route("SELECT u.name FROM text u WHERE u.id = 5"));
        assertEquals(4, route("SELECT u.name FROM text u WHERE other.id = 5").size());
    }

    @Test
    void multiRowInsertIsSplitByRow() throws SQLException {
        Plan.Insert plan = (Plan.Insert) planner.plan("INSERT INTO text (id, body) VALUES (?, ?), (5, 'x'), (?, 'y')");
        assertEquals("INSERT INTO text (id, body) VALUES (?, ?), (?, 'y')", plan.rows().render(new int[] {0, 2}));
        assertEquals(List.of(i(1), s("a"), i(9)), plan.rows().params(List.of(i(1), s("a"), i(9)), new int[] {0, 2}));
        assertEquals("INSERT INTO text (id, body) VALUES (5, 'x')", plan.rows().render(new int[] {1}));
        assertEquals(List.of(), plan.rows().params(List.of(i(1), s("a"), i(9)), new int[] {1}));
    }

    @Test
    void refusesWhatItCannotRunCorrectly() {
        // correlated over tables not co-located: answered over copies of the tables, but a locking read would lock nothing
        assertRefused(Refusal.SQL_STATE, "SELECT * FROM users u JOIN followers f ON f.destination = u.id WHERE EXISTS (SELECT 1 FROM text t WHERE t.id = u.id) FOR UPDATE");
        // a routing column set to a value computed from the row: where each row goes is known only as it is written
        assertRefused(Refusal.SQL_STATE, "UPDATE users SET id = id + 1 WHERE id = 4");
        assertRefused(Refusal.SQL_STATE, "SELECT * FROM users u WHERE EXISTS (SELECT 1 FROM text t WHERE t.id = u.id) LOCK IN SHARE MODE");
        assertRefused("42000", "SAVEPOINT 'quoted'"); // a syntax error, as in MariaDB (1064)
        assertRefused("42000", "RELEASE SAVEPOINT a b");
        assertRefused("42000", "ROLLBACK TO");
        assertRefused(Refusal.SQL_STATE, "XA START 'x'");
        assertRefused(Refusal.SQL_STATE, "SET GLOBAL TRANSACTION ISOLATION LEVEL SERIALIZABLE");
        assertRefused("42S02", "SELECT * FROM nosuch");
        assertRefused("42S02", "SELECT * FROM otherdb.users");
        assertRefused(Refusal.SQL_STATE, "SELECT table_rows FROM information_schema.TABLES WHERE table_schema = 'demo'");
        assertRefused("42000", "SELEKT 1");
        assertRefused("42000", "UPDATE users SET name = 'x' WHERE id = 1; DELETE FROM users");
    }

    @Test
    void transactionControlIsTheSessions() throws SQLException {
        assertEquals(new SessionCommand.Begin(false), planner.plan("BEGIN"));
        assertEquals(new SessionCommand.Begin(false), planner.plan("begin work;"));
        assertEquals(new SessionCommand.Begin(false), planner.plan("START TRANSACTION WITH CONSISTENT SNAPSHOT"));
        assertEquals(new SessionCommand.Begin(true), planner.plan("START TRANSACTION READ ONLY"));
        assertEquals(new SessionCommand.Commit(), planner.plan("COMMIT WORK"));
        assertEquals(new SessionCommand.Rollback(), planner.plan(" rollback "));
        assertEquals(new SessionCommand.Savepoint("sp_1"), planner.plan("SAVEPOINT sp_1"));
        assertEquals(new SessionCommand.Savepoint("odd`name"), planner.plan("savepoint `odd``name`;"));
        assertEquals(new SessionCommand.RollbackToSavepoint("s"), planner.plan("ROLLBACK TO s"));
        assertEquals(new SessionCommand.RollbackToSavepoint("s"), planner.plan("rollback work to savepoint s ;"));
        assertEquals(new SessionCommand.RollbackToSavepoint("savepoint"), planner.plan("ROLLBACK TO savepoint"));
        assertEquals(new SessionCommand.ReleaseSavepoint("S 1"), planner.plan("RELEASE SAVEPOINT `S 1`"));
        assertEquals(new SessionCommand.SetAutocommit(false), planner.plan("SET autocommit = 0"));
        assertEquals(new SessionCommand.SetAutocommit(true), planner.plan("SET @@session.autocommit=ON"));
        assertEquals(new SessionCommand.SetIsolation(Connection.TRANSACTION_READ_COMMITTED, true),
                planner.plan("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"));
        assertEquals(new SessionCommand.SetIsolation(Connection.TRANSACTION_SERIALIZABLE, false),
                planner.plan("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE"));
        assertEquals(new SessionCommand.SetIsolation(Connection.TRANSACTION_READ_UNCOMMITTED, true),
                planner.plan("SET transaction_isolation = 'READ-UNCOMMITTED'"));
    }

    @Test
    void statementsDifferingOnlyInWhereLiteralsShareAPlan() throws SQLException {
        var one = planner.bind("SELECT * FROM users WHERE id = 1", List.of());
        var two = planner.bind("SELECT * FROM users WHERE id = 2", List.of());
        assertSame(one.plan(), two.plan());
        assertEquals(List.of(i(2)), two.params());
        assertEquals(Map.of(2, "SELECT * FROM users WHERE id = ? [2]"), route("SELECT * FROM users WHERE id = ?", i(2)));
    }

    @Test
    void planIsBuiltOncePerText() throws SQLException {
        assertSame(planner.plan("SELECT * FROM users WHERE id = ?"), planner.plan("SELECT * FROM users WHERE id = ?"));
    }

    private void assertRefused(String state, String sql) {
        var e = assertThrows(PlanException.class, () -> planner.plan(sql));
        assertEquals(state, e.getSQLState(), e.getMessage());
        assertEquals(state.equals(Refusal.SQL_STATE) && e.getErrorCode() == Refusal.VENDOR_CODE, Refusal.is(e), "a refusal is 42000 with 1235, a syntax error is not one");
    }

    private Map<Integer, String> route(String sql, Value... params) throws SQLException {
        var plan = planner.plan(sql);
        List<ShardQuery> queries;
        if (plan instanceof Plan.Query q) {
            var ctx = Context.explain(List.of(params), stats);
            queries = ((SelectPlan) q.root()).chosen(ctx).shardQueries(ctx);
        } else {
            queries = Routes.primary(stats, (Plan.Routed) plan, List.of(params));
        }
        var out = new TreeMap<Integer, String>();
        for (var q : queries) {
            out.put(q.partition(), q.sql() + " " + q.params().stream().map(ValueCodec::decode).toList());
        }
        return out;
    }

    private static Value i(long v) {
        return Value.newBuilder().setIntValue(v).build();
    }

    private static Value s(String v) {
        return Value.newBuilder().setStringValue(v).build();
    }
}
