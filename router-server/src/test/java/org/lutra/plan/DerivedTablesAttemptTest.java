package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;
import org.lutra.sql.PlanException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Derived tables materialized say why they do not apply as a value ({@link DerivedTables#attempt}), the reason
 * {@link DerivedTables#plan} refuses with; an error of the statement is thrown by both.
 */
class DerivedTablesAttemptTest {
    private static final Catalog CATALOG = SchemaParser.parse("""
            CREATE TABLE a (id INT PRIMARY KEY, b INT, x VARCHAR(20)) PARTITION BY hash(id) ON (p0, p1);
            CREATE TABLE c (id INT PRIMARY KEY, b INT, x VARCHAR(20)) PARTITION BY hash(b) ON (p0, p1);
            """, List.of("p0", "p1"));
    private final Planner planner = new Planner(CATALOG, "demo", 100);

    @Test
    void theReasonGivenAsAValueIsTheRefusalOfPlanningItSo() throws PlanException {
        var reasons = List.of(
                "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r",
                "recursive common table expressions over several partitions yet",
                "WITH w (k) AS (SELECT id FROM a) SELECT k FROM w",
                "column lists of common table expressions (WITH w (...)) over several partitions yet",
                "SELECT d.id FROM (SELECT id FROM a) AS d JOIN c ON c.b = d.id WHERE c.x = 'v' FOR UPDATE",
                "a locking read (FOR UPDATE) of c joined with a derived table, a CTE or a table on other partitions: the router would lock other rows than MariaDB locks",
                "SELECT d.id FROM (SELECT id FROM a) AS d WHERE d.id IN (SELECT b FROM c)",
                "a derived table, CTE or join with a subquery on c outside it over several partitions yet");
        for (int i = 0; i < reasons.size(); i += 2) {
            String sql = reasons.get(i);
            var attempt = DerivedTables.attempt(sql, CATALOG, planner::subqueryAttempt, true);
            var reason = assertInstanceOf(Attempt.NotApplicable.class, attempt, sql).reason();
            assertEquals("Lutra does not support " + reasons.get(i + 1), reason.getMessage(), sql);
            var asAWay = assertInstanceOf(Attempt.NotApplicable.class, DerivedTables.attempt(sql, CATALOG, planner::subqueryWay, true), sql);
            assertEquals(reason.getMessage(), asAWay.reason().getMessage(), sql);
        }
    }

    @Test
    void aTableBesideADerivedTableIsMaterializedOnlyWhereAsked() throws PlanException {
        String sql = "SELECT d.id FROM (SELECT id FROM a) AS d JOIN c ON c.b = d.id";
        assertInstanceOf(Attempt.Planned.class, DerivedTables.attempt(sql, CATALOG, planner::subqueryAttempt, true));
        var attempt = DerivedTables.attempt(sql, CATALOG, planner::subqueryAttempt, false);
        assertEquals("Lutra does not support a derived table or common table expression together with the table c over several partitions yet",
                assertInstanceOf(Attempt.NotApplicable.class, attempt).reason().getMessage());
    }

    @Test
    void anItemItsPlannerRefusesIsTheReason() throws PlanException {
        var refusal = PlanException.unsupported("this item");
        var attempt = DerivedTables.attempt("SELECT d.id FROM (SELECT id FROM a) AS d", CATALOG, select -> Attempt.notApplicable(refusal), true);
        assertEquals(refusal, assertInstanceOf(Attempt.NotApplicable.class, attempt).reason());
    }

    @Test
    void errorsOfTheStatementAreReasonsThatAreNoRefusal() throws PlanException {
        var alias = assertInstanceOf(Attempt.NotApplicable.class, DerivedTables.attempt("SELECT id FROM (SELECT id FROM a)", CATALOG, planner::subqueryWay, true));
        assertEquals(1248, alias.reason().getErrorCode());
        assertFalse(alias.refused());
        var table = assertInstanceOf(Attempt.NotApplicable.class,
                DerivedTables.attempt("SELECT d.id FROM (SELECT id FROM nowhere) AS d", CATALOG, planner::subqueryWay, true));
        assertEquals(1146, table.reason().getErrorCode());
        assertFalse(table.refused());
        // where the caller needs the plan (a subquery's materialized rows), the error is thrown
        var thrown = assertThrows(PlanException.class,
                () -> DerivedTables.attempt("SELECT d.id FROM (SELECT id FROM nowhere) AS d", CATALOG, planner::subqueryAttempt, true));
        assertEquals(1146, thrown.getErrorCode());
    }
}
