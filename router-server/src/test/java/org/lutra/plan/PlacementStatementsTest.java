package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.SchemaParser;
import org.lutra.exec.Planned;
import org.lutra.exec.SessionCommand;
import org.lutra.protocol.Value;
import org.lutra.sql.PlanException;
import org.lutra.sql.ValueRef;

import java.math.BigDecimal;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** SHOW PARTITIONS, SHOW LOOKUP TABLES and SHOW LOOKUP t FOR key: what the planner reads, and what it refuses with which error. */
class PlacementStatementsTest {
    private final Planner planner = new Planner(SchemaParser.parse(GoldenPlanTest.SCHEMA, List.of("p0", "p1", "p2", "p3")), "demo", 10);

    private Planned plan(String sql) throws PlanException {
        return planner.bind(sql, List.of()).plan();
    }

    private SessionCommand.ShowLookup lookup(String sql) throws PlanException {
        return assertInstanceOf(SessionCommand.ShowLookup.class, plan(sql), sql);
    }

    private PlanException refused(String sql, String state, int code) {
        var e = assertThrows(PlanException.class, () -> plan(sql), sql);
        assertEquals(state, e.getSQLState(), sql + ": " + e.getMessage());
        assertEquals(code, e.getErrorCode(), sql + ": " + e.getMessage());
        return e;
    }

    @Test
    void listingsAreRecognisedInAnyCaseWithATrailingSemicolon() throws PlanException {
        assertInstanceOf(SessionCommand.ShowPartitions.class, plan("SHOW PARTITIONS"));
        assertInstanceOf(SessionCommand.ShowPartitions.class, plan("  show   partitions ; "));
        assertInstanceOf(SessionCommand.ShowLookupTables.class, plan("SHOW LOOKUP TABLES"));
        assertInstanceOf(SessionCommand.ShowLookupTables.class, plan("show lookup\n tables;"));
    }

    @Test
    void theKeyIsReadAsMySqlReadsTheLiteral() throws PlanException {
        var users = lookup("SHOW LOOKUP users FOR 42");
        assertEquals("users", users.table().name());
        assertEquals(new ValueRef.Literal(42L), users.key());
        assertEquals(0, users.paramCount());
        assertEquals(new ValueRef.Literal(-7L), lookup("SHOW LOOKUP users FOR -7;").key());
        assertEquals(new ValueRef.Literal(new BigDecimal("7.0")), lookup("SHOW LOOKUP users FOR 7.0").key());
        assertEquals(new ValueRef.Literal(new BigDecimal("99999999999999999999")), lookup("SHOW LOOKUP users FOR 99999999999999999999").key());
        assertEquals(new ValueRef.Literal(1e3), lookup("SHOW LOOKUP users FOR 1e3").key());
        assertEquals(new ValueRef.Literal("42"), lookup("SHOW LOOKUP users FOR '42'").key());
        assertEquals(new ValueRef.Literal("O'Brien"), lookup("SHOW LOOKUP users FOR 'O\\'Brien'").key());
        assertEquals(new ValueRef.Literal("O'Brien"), lookup("SHOW LOOKUP users FOR 'O''Brien'").key());
        assertEquals(new ValueRef.Literal("a;b"), lookup("SHOW LOOKUP users FOR \"a;b\"").key(), "double quotes are a string, as in MySQL");
        assertEquals(new ValueRef.Literal(null), lookup("SHOW LOOKUP users FOR NULL").key());
    }

    @Test
    void aPlaceholderIsBoundAtExecution() throws PlanException {
        var bound = planner.bind("SHOW LOOKUP users FOR ?", List.of(Value.newBuilder().setIntValue(5).build()));
        var show = assertInstanceOf(SessionCommand.ShowLookup.class, bound.plan());
        assertEquals(new ValueRef.Param(0), show.key());
        assertEquals(1, show.paramCount());
        var e = assertThrows(PlanException.class, () -> planner.bind("SHOW LOOKUP users FOR ?", List.of()));
        assertEquals("07001", e.getSQLState());
    }

    @Test
    void sameAsHashAndRangeTablesAreAnsweredByTheirRuleAndNamesAsTheCatalogsAre() throws PlanException {
        assertEquals("followers", lookup("SHOW LOOKUP followers FOR 1").table().name());
        assertEquals("tweets", lookup("SHOW LOOKUP `TWEETS` FOR 1").table().name());
        assertEquals("nums", lookup("SHOW LOOKUP demo.nums FOR 12").table().name());
    }

    @Test
    void unknownTablesAndDatabasesAreMySqlsErrors() {
        assertEquals("Table 'demo.nope' doesn't exist", refused("SHOW LOOKUP nope FOR 1", "42S02", 1146).getMessage());
        refused("SHOW LOOKUP other.users FOR 1", "42000", 1049);
    }

    @Test
    void aReplicatedTableHasNoKeyToLookUp() {
        var e = refused("SHOW LOOKUP country FOR 'CH'", "HY000", 1347);
        assertTrue(e.getMessage().contains("REPLICATED"), e.getMessage());
    }

    @Test
    void malformedStatementsAreSyntaxErrors() {
        for (String sql : List.of("SHOW PARTITIONS x", "SHOW LOOKUP", "SHOW LOOKUP users", "SHOW LOOKUP users FOR",
                "SHOW LOOKUP users FOR 1 2", "SHOW LOOKUP users FOR 'a", "SHOW LOOKUP users FOR 'a' 'b'", "SHOW LOOKUP users FOR id",
                "SHOW LOOKUP users FOR (1)", "SHOW LOOKUP TABLES LIKE 'u%'", "SHOW LOOKUP users FOR 1; SELECT 1", "SHOW LOOKUP users FOR 1 2;")) {
            refused(sql, "42000", 1064);
        }
    }

    @Test
    void aLongQuotedKeyIsReadWithoutRecursion() throws PlanException {
        String key = "\\'".repeat(50_000);
        assertEquals(new ValueRef.Literal("'".repeat(50_000)), lookup("SHOW LOOKUP users FOR '" + key + "'").key());
    }

    @Test
    void loadLookupTableNamesItsFileFormatAndApply() throws PlanException {
        var load = assertInstanceOf(SessionCommand.LoadLookup.class, plan("LOAD LOOKUP TABLE users FROM 'maps/users.csv' FORMAT csv"));
        assertEquals("users", load.table().name());
        assertEquals("maps/users.csv", load.file());
        assertEquals("csv", load.format());
        assertFalse(load.apply());
        load = assertInstanceOf(SessionCommand.LoadLookup.class, plan(" load lookup table demo.users from 'it''s a\\\\b.part.4' format METIS apply ; "));
        assertEquals("it's a\\b.part.4", load.file(), "MySQL's string escapes");
        assertEquals("metis", load.format());
        assertTrue(load.apply());
        assertInstanceOf(SessionCommand.LoadLookup.class, plan("LOAD LOOKUP TABLE users FROM 'x' FORMAT schism"));
        refused("LOAD LOOKUP TABLE users FROM 'x' FORMAT parquet", "42000", 1064);
        refused("LOAD LOOKUP TABLE users FROM x.csv FORMAT csv", "42000", 1064);
        refused("LOAD LOOKUP TABLE users FROM 'x' FORMAT csv APPLY NOW", "42000", 1064);
        refused("LOAD LOOKUP TABLE nosuch FROM 'x' FORMAT csv", "42S02", 1146);
        refused("LOAD LOOKUP TABLE other.users FROM 'x' FORMAT csv", "42000", 1049);
    }

    @Test
    void moveStatements() throws PlanException {
        assertInstanceOf(SessionCommand.ShowMoves.class, plan("show moves;"));
        assertEquals(new SessionCommand.PauseMove(12), plan("PAUSE MOVE 12"));
        assertEquals(new SessionCommand.ResumeMove(3), plan("resume  move 3 ;"));
        refused("PAUSE MOVE", "42000", 1064);
        refused("RESUME MOVE x", "42000", 1064);
        refused("SHOW MOVES LIKE 'x'", "42000", 1064);
    }

    @Test
    void setPartitionTakesOnePartitionOrAListThatReplicates() throws PlanException {
        var one = assertInstanceOf(SessionCommand.Move.class, plan("ALTER TABLE users SET PARTITION = p2 WHERE id = 7"));
        assertArrayEquals(new int[] {2}, one.targets());
        var several = assertInstanceOf(SessionCommand.Move.class, plan("alter table users set partition = ( p3 ,`p1` ) where id in (7, 8);"));
        assertArrayEquals(new int[] {3, 1}, several.targets(), "the first named is the primary");
        assertEquals("SELECT DISTINCT `id` FROM `users` WHERE id in (7, 8)", several.keysSql());
        refused("ALTER TABLE users SET PARTITION = (p1, p9) WHERE id = 7", "HY000", 1735);
        refused("ALTER TABLE users SET PARTITION = (p1, p1) WHERE id = 7", "HY000", 1735);
        refused("ALTER TABLE users SET PARTITION = (p1,) WHERE id = 7", "42000", 1064);
        refused("ALTER TABLE users SET PARTITION = () WHERE id = 7", "42000", 1064);
        refused("ALTER TABLE followers SET PARTITION = (p1, p2) WHERE source = 7", "HY000", 1505);
    }
}
