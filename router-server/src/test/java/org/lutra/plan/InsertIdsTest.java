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

/** How the planner prepares INSERTs into tables with an AUTO_INCREMENT column for the router's ids. */
class InsertIdsTest {
    private static final String SCHEMA = """
            CREATE TABLE orders (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, customer INT, note VARCHAR(20)) PARTITION BY hash(id) ON (p0, p1);
            CREATE TABLE lines (id INT AUTO_INCREMENT, order_id BIGINT, qty INT, PRIMARY KEY (id, order_id)) PARTITION BY hash(order_id) ON (p0, p1);
            CREATE TABLE plain (k INT PRIMARY KEY, v INT) PARTITION BY hash(k) ON (p0, p1);
            """;

    private final Catalog catalog = SchemaParser.parse(SCHEMA, List.of("p0", "p1"));
    private final Planner planner = new Planner(catalog, "demo", 100);

    private Plan.Insert insert(String sql) throws PlanException {
        return (Plan.Insert) planner.plan(sql);
    }

    @Test
    void anOmittedAutoIncrementRoutingColumnGetsAParameterPerRowAfterTheClientsOnes() throws PlanException {
        var plan = insert("INSERT INTO orders (customer, note) VALUES (?, 'a'), (7, ?)");
        assertEquals("INSERT INTO orders (customer, note, `id`) VALUES (?, 'a', ?), (7, ?, ?)", plan.rows().render(new int[] {0, 1}));
        assertEquals(2, plan.paramCount(), "the client binds its own two");
        assertArrayEquals(new int[] {1, 3}, plan.auto().added());
        assertEquals(List.of(new ValueRef.Param(1), new ValueRef.Param(3)), plan.auto().perRow());
        assertEquals(plan.auto().perRow(), plan.keyPerRow(), "rows route by their id");
    }

    @Test
    void nullDefaultAndZeroAskForAnIdAnExplicitIdStays() throws PlanException {
        var plan = insert("INSERT INTO orders (id, customer) VALUES (NULL, 1), (DEFAULT, 2), (0, 3), (42, 4), (?, 5)");
        assertEquals("INSERT INTO orders (id, customer) VALUES (?, 1), (?, 2), (?, 3), (42, 4), (?, 5)", plan.rows().render(new int[] {0, 1, 2, 3, 4}));
        assertEquals(1, plan.paramCount());
        assertArrayEquals(new int[] {0, 1, 2}, plan.auto().added());
        assertEquals(new ValueRef.Literal(42L), plan.auto().perRow().get(3));
        assertEquals(new ValueRef.Param(3), plan.auto().perRow().get(4), "the client's parameter, which may be NULL or 0 when it runs");
    }

    @Test
    void aTableRoutedByAnotherColumnStillGetsItsIdsAndItsRoutingKeysShiftWithTheAddedParameters() throws PlanException {
        var plan = insert("INSERT INTO lines (order_id, qty) VALUES (?, ?), (?, ?)");
        assertEquals("INSERT INTO lines (order_id, qty, `id`) VALUES (?, ?, ?), (?, ?, ?)", plan.rows().render(new int[] {0, 1}));
        assertEquals(List.of(new ValueRef.Param(0), new ValueRef.Param(3)), plan.keyPerRow());
        assertArrayEquals(new int[] {2, 5}, plan.auto().added());
    }

    @Test
    void withoutAColumnListTheRowGivesTheIdInItsPlace() throws PlanException {
        var plan = insert("INSERT INTO orders VALUES (NULL, 1, 'x')");
        assertEquals("INSERT INTO orders VALUES (?, 1, 'x')", plan.rows().render(new int[] {0}));
        assertNull(insert("INSERT INTO plain VALUES (1, 2)").auto(), "no AUTO_INCREMENT column, nothing to fill");
    }

    @Test
    void whatTheRouterCouldNotReportExactlyIsRefused() {
        for (String sql : List.of(
                "INSERT INTO orders (customer) VALUES (1) ON DUPLICATE KEY UPDATE customer = 2",
                "INSERT IGNORE INTO orders (customer) VALUES (1), (2)",
                "INSERT INTO orders (id, customer) VALUES (1 + 1, 3)")) {
            var e = assertThrows(PlanException.class, () -> planner.plan(sql), sql);
            assertRefusal(e, sql);
        }
        for (String sql : List.of("INSERT INTO lines (order_id, qty) VALUES (1)", "INSERT INTO lines (order_id, qty) VALUES (1, 2), (3)")) {
            assertEquals("21S01", assertThrows(PlanException.class, () -> planner.plan(sql), sql).getSQLState(), sql);
        }
    }

    @Test
    void aRowWithoutItsRoutingColumnIsPlacedByTheValueItsDefaultGivesIt() throws PlanException {
        // k INT PRIMARY KEY: NOT NULL without DEFAULT; MariaDB's implicit default 0 (strict mode: the partition refuses it, 1364)
        assertEquals(List.of(new ValueRef.Literal(0L)), insert("INSERT INTO plain (v) VALUES (1)").keyPerRow());
    }

    @Test
    void aBatchOfOneRowInsertsRepeatsTheAddedParameterPerEntry() throws PlanException {
        var one = insert("INSERT INTO lines (order_id, qty) VALUES (?, ?)");
        var three = InsertBatch.combine(one, 2, 3);
        assertEquals("INSERT INTO lines (order_id, qty, `id`) VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?)", three.rows().render(new int[] {0, 1, 2}));
        assertEquals(6, three.paramCount());
        assertArrayEquals(new int[] {2, 5, 8}, three.auto().added());
        assertEquals(List.of(new ValueRef.Param(0), new ValueRef.Param(3), new ValueRef.Param(6)), three.keyPerRow());
        assertNull(InsertBatch.combine(insert("INSERT IGNORE INTO lines (order_id, qty) VALUES (?, ?)"), 2, 3),
                "INSERT IGNORE with generated ids runs entry by entry");
    }
}
