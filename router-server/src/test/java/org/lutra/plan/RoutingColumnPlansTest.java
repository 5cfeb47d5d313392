package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;
import org.lutra.exec.Plan;
import org.lutra.sql.PlanException;
import org.lutra.sql.ValueRef;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/** How the planner places an INSERT without its routing column, and plans an UPDATE that sets it as a move of the rows. */
class RoutingColumnPlansTest {
    private static final String SCHEMA = """
            CREATE TABLE d (id INT PRIMARY KEY, k INT DEFAULT -3, v INT) PARTITION BY hash(k) ON (p0, p1);
            CREATE TABLE n (id INT PRIMARY KEY, k INT, v INT) PARTITION BY hash(k) ON (p0, p1);
            CREATE TABLE s (id INT PRIMARY KEY, k VARCHAR(10) NOT NULL, v INT) PARTITION BY hash(k) ON (p0, p1);
            CREATE TABLE q (id INT PRIMARY KEY, k VARCHAR(10) DEFAULT 'x', v INT) PARTITION BY hash(k) ON (p0, p1);
            CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL DEFAULT (1 + 1), v INT) PARTITION BY hash(k) ON (p0, p1);
            CREATE TABLE nopk (k INT, v INT) PARTITION BY hash(k) ON (p0, p1);
            CREATE TABLE stamped (id INT PRIMARY KEY, k INT, at TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP) PARTITION BY hash(k) ON (p0, p1);
            """;

    private final Catalog catalog = SchemaParser.parse(SCHEMA, List.of("p0", "p1"));
    private final Planner planner = new Planner(catalog, "demo", 100);

    private List<ValueRef> keys(String sql) throws PlanException {
        return ((Plan.Insert) planner.plan(sql)).keyPerRow();
    }

    @Test
    void aRowWithoutItsRoutingColumnIsPlacedByItsDefault() throws PlanException {
        assertEquals(List.of(new ValueRef.Literal(-3L), new ValueRef.Literal(-3L)), keys("INSERT INTO d (id, v) VALUES (1, 2), (3, 4)"));
        assertEquals(List.of(new ValueRef.Literal(null)), keys("INSERT INTO n (id) VALUES (1)"), "nullable without DEFAULT: NULL");
        assertEquals(List.of(new ValueRef.Literal("")), keys("INSERT INTO s (id) VALUES (1)"), "NOT NULL text: MariaDB's implicit ''");
        assertEquals(List.of(new ValueRef.Literal("x")), keys("INSERT INTO q (id) VALUES (1)"));
        assertEquals(List.of(new ValueRef.Param(0)), keys("INSERT INTO q (id, k) VALUES (1, ?)"), "a row that gives it routes by it");
    }

    @Test
    void aDefaultTheRouterCannotKnowIsRefused() {
        for (String sql : List.of("INSERT INTO t (v) VALUES (1)")) {
            var e = assertThrows(PlanException.class, () -> planner.plan(sql), sql);
            assertRefusal(e, sql);
            assertTrue(e.getMessage().contains("without its routing column"), e.getMessage());
        }
    }

    @Test
    void anUpdateOfTheRoutingColumnReadsDeletesAndInsertsTheRows() throws PlanException {
        var plan = (Plan.RowsMoved) planner.plan("UPDATE d SET v = ?, k = 5 WHERE id = ?");
        assertEquals(3, plan.columns(), "v, k, id");
        assertEquals(2, plan.paramCount());
        assertEquals(2, plan.keyed().paramCount(), "old k, id");
        assertEquals(1, plan.nullKey().paramCount(), "id");
        assertEquals(3, plan.inserts().rows(1).paramCount());
        assertFalse(plan.checksOff());
        assertEquals(1, plan.routingAt());
        assertArrayEquals(new int[] {0}, plan.stays().assigned(), "a row whose k stays gets v in place");
        assertEquals(3, plan.stays().keyed().paramCount(), "v, old k, id");
        assertNull(((Plan.RowsMoved) planner.plan("UPDATE d SET k = 5 WHERE id = ?")).stays(), "nothing else to write in place");
    }

    @Test
    void whatAMoveCouldNotDoAsOneMariaDbIsRefused() {
        for (String sql : List.of(
                "UPDATE d SET k = k + 1 WHERE id = 1",
                "UPDATE d SET k = 1, k = 2 WHERE id = 1",
                "UPDATE d SET k = 1 WHERE id = 1 LIMIT 1",
                "UPDATE IGNORE d SET k = 1 WHERE id = 1",
                "UPDATE d SET k = (SELECT 1) WHERE id = 1",
                "UPDATE nopk SET k = 1 WHERE v = 1",
                "UPDATE stamped SET k = 1 WHERE id = 1")) {
            var e = assertThrows(PlanException.class, () -> planner.plan(sql), sql);
            assertRefusal(e, sql);
            assertTrue(e.getMessage().contains("UPDATE of the routing column"), e.getMessage());
        }
    }
}
