package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;
import org.lutra.sql.PlanException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Whether a statement can run over copies of its tables is asked before it is planned so ({@link Fallback#notApplicable}),
 * and the answer is the refusal (or the statement's own error) planning it so gives.
 */
class FallbackApplicabilityTest {
    private static final Catalog CATALOG = SchemaParser.parse("""
            CREATE TABLE th (id INT PRIMARY KEY, a INT) PARTITION BY hash(id) ON (p0, p1);
            CREATE TABLE tv (id INT PRIMARY KEY, a INT REFERENCES th (id)) PARTITION BY hash(id) ON (p0, p1);
            """, List.of("p0", "p1"));
    private final Planner planner = new Planner(CATALOG, "demo", 100);

    @Test
    void theReasonAskedFirstIsTheRefusalOfPlanningItSo() throws PlanException {
        for (String sql : List.of(
                "SELECT a FROM th WHERE a > 1 FOR UPDATE",
                "SELECT a, @x := a FROM th",
                "SELECT a FROM th WHERE a = CONNECTION_ID()",
                "SELECT a FROM other.th",
                "SELECT a FROM nowhere",
                "SELECT 1",
                "SELECT a FROM tv")) {
            var reason = Fallback.notApplicable(sql, CATALOG, "demo");
            assertTrue(reason.isPresent(), sql);
            var refusal = assertInstanceOf(Attempt.NotApplicable.class, planner.fallback(sql), sql).reason();
            assertEquals(refusal.getMessage(), reason.get().getMessage(), sql);
            assertEquals(refusal.getErrorCode(), reason.get().getErrorCode(), sql);
        }
    }

    @Test
    void aStatementItCanCopyIsNotAskedAgain() throws PlanException {
        String sql = "SELECT a, (SELECT COUNT(*) FROM th AS x WHERE x.a < th.a) FROM th";
        assertTrue(Fallback.notApplicable(sql, CATALOG, "demo").isEmpty());
        assertInstanceOf(Attempt.Planned.class, planner.fallback(sql));
    }
}
