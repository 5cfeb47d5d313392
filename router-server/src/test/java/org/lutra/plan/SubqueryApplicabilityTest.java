package org.lutra.plan;

import net.sf.jsqlparser.statement.select.PlainSelect;
import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;
import org.lutra.sql.PlanException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Whether a SELECT's subqueries can run first is asked before that plan is tried ({@link SubqueryPlanner#notApplicable}),
 * and the answer is the refusal trying it gives; asking leaves the statement's tree as it was.
 */
class SubqueryApplicabilityTest {
    private static final Catalog CATALOG = SchemaParser.parse("""
            CREATE TABLE a (id INT PRIMARY KEY, b INT, x VARCHAR(20)) PARTITION BY hash(id) ON (p0, p1);
            CREATE TABLE c (id INT PRIMARY KEY, b INT, x VARCHAR(20)) PARTITION BY hash(b) ON (p0, p1);
            """, List.of("p0", "p1"));
    private final Planner planner = new Planner(CATALOG, "demo", 100);

    @Test
    void theReasonAskedFirstIsTheRefusalOfTryingIt() throws PlanException {
        for (String sql : List.of(
                "SELECT id FROM a WHERE b > ANY (SELECT b FROM c) AND id IN (SELECT b FROM c)",
                "SELECT id FROM a WHERE EXISTS (SELECT 1 FROM c WHERE c.x = a.x)",
                "SELECT id FROM a WHERE ? IN (SELECT b FROM c)",
                "SELECT id FROM a WHERE (b, x) IN (SELECT b, x FROM c)",
                "SELECT id FROM a WHERE id IN (SELECT b FROM c) ORDER BY (SELECT MAX(b) FROM c WHERE c.id = a.b)")) {
            var select = (PlainSelect) Parsing.parse(sql, 1_000);
            String before = select.toString();
            var reason = SubqueryPlanner.notApplicable(select, CATALOG);
            assertEquals(before, select.toString(), sql);
            assertTrue(reason.isPresent(), sql);
            var refusal = assertInstanceOf(Attempt.NotApplicable.class,
                    SubqueryPlanner.plan(select, CATALOG, planner::subqueryWay, outer -> ((org.lutra.exec.Plan.Query) planner.plan(outer)).root()), sql);
            assertEquals(refusal.reason().getMessage(), reason.get().getMessage(), sql);
        }
    }

    @Test
    void subqueriesThatCanRunFirstAreNotRefusedUpFront() throws PlanException {
        var select = (PlainSelect) Parsing.parse("SELECT id, (SELECT MAX(b) FROM c) FROM a WHERE b IN (SELECT b FROM c WHERE x = ?) AND NOT EXISTS (SELECT 1 FROM c)", 1_000);
        assertTrue(SubqueryPlanner.notApplicable(select, CATALOG).isEmpty());
        assertInstanceOf(Attempt.Planned.class, SubqueryPlanner.plan(select, CATALOG, planner::subqueryWay, outer -> ((org.lutra.exec.Plan.Query) planner.plan(outer)).root()));
    }
}
