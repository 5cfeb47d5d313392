package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;
import org.lutra.exec.JoinInRounds;
import org.lutra.exec.Materialize;
import org.lutra.exec.OnePartition;
import org.lutra.exec.Operator;
import org.lutra.exec.Plan;
import org.lutra.exec.QueryTraits;
import org.lutra.exec.SelectPlan;
import org.lutra.sql.KeyMatch;
import org.lutra.sql.PlanException;
import org.lutra.sql.ValueRef;

import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/** The planner runs the cheapest plan that answers a statement ({@link Costs}), not the first that does not refuse. */
class CostsTest {
    private static final Catalog CATALOG = SchemaParser.parse("""
            CREATE TABLE a (id INT PRIMARY KEY, b INT, x VARCHAR(20)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE c (id INT PRIMARY KEY, b INT, x VARCHAR(20)) PARTITION BY hash(b) ON (p0, p1, p2, p3);
            CREATE TABLE d (id INT PRIMARY KEY, b INT, x VARCHAR(20)) PARTITION BY range(id) ON (p0 < 10, p1 < 20, p2 < 30, p3);
            CREATE TABLE r (id INT PRIMARY KEY, b INT) REPLICATED;
            """, List.of("p0", "p1", "p2", "p3"));
    private final Planner planner = new Planner(CATALOG, "demo", 100);

    private Operator root(String sql) throws PlanException {
        return ((Plan.Query) planner.plan(sql)).root();
    }

    @Test
    void aJoinWhoseOuterSideIsPinnedToAFewKeysRunsInRounds() throws PlanException {
        assertInstanceOf(JoinInRounds.class, root("SELECT a.x, c.x FROM a JOIN c ON c.id = a.b WHERE a.id IN (1, 2, 3)"));
    }

    @Test
    void aJoinOfManyTablesOrOneRoundsCannotTakeIsCopied() throws PlanException {
        assertInstanceOf(Materialize.class, root("SELECT a.x, c.x, d.x FROM a, c, d WHERE c.id = a.b AND d.b = c.id AND a.b > 3"));
        assertInstanceOf(Materialize.class, root("SELECT COUNT(DISTINCT c.x) FROM a JOIN c ON c.id = a.b"));
    }

    @Test
    void subqueriesThatCanRunFirstDoSoAndCorrelatedOnesAreCopied() throws PlanException {
        assertFalse(root("SELECT id FROM a WHERE b > (SELECT AVG(b) FROM c)") instanceof Materialize);
        assertInstanceOf(Materialize.class, root("SELECT id, (SELECT COUNT(*) FROM a x WHERE x.b < a.b) FROM a"));
    }

    @Test
    void tablesPinnedByTheirKeysMayMeetOnOnePartition() throws PlanException {
        assertInstanceOf(OnePartition.class, root("SELECT COUNT(*) FROM a, c WHERE a.id = 5 AND c.b = 5 AND c.id = a.b"));
        // a table not pinned: never on one partition, no such choice made at run time
        assertInstanceOf(Materialize.class, root("SELECT COUNT(DISTINCT c.x) FROM a, c WHERE a.id = 5 AND c.id = a.b"));
        // replicated tables only need a replica there
        assertInstanceOf(OnePartition.class, root("SELECT a.x FROM a WHERE a.id = 7 AND EXISTS (SELECT 1 FROM r WHERE r.b > a.b) AND a.b IN"
                + " (SELECT d.b FROM d WHERE d.id = 7)"));
    }

    @Test
    void theCheapestCandidateRunsTiesGoToTheFirstAndRefusalsAddUp() throws PlanException {
        // stand-ins that never run: no tree to read traits from
        var specialised = new Plan.Query(new SelectPlan(null, null, SelectPlan.Validation.OWNER_ROWS, -1, null, null), 0, new QueryTraits(false, false));
        var copies = new Plan.Query(new SelectPlan(null, null, SelectPlan.Validation.OWNER_ROWS, -1, null, null), 0, new QueryTraits(false, false));
        var cheap = new Costs.Candidate("specialised", specialised, Costs.reads(List.of(10.0, 10.0)));
        var dear = new Costs.Candidate("copies", copies, Costs.copied(List.of(10.0, 10.0), 0));
        assertSame(specialised, new Costs.Choice().consider(() -> Attempt.planned(dear)).consider(() -> Attempt.planned(cheap)).cheapest());
        var same = new Costs.Candidate("copies", copies, cheap.cost());
        assertSame(specialised, new Costs.Choice().consider(() -> Attempt.planned(cheap)).consider(() -> Attempt.planned(same)).cheapest());
        var refused = assertThrows(PlanException.class, () -> new Costs.Choice()
                .refused(PlanException.unsupported("joins across partitions yet"))
                .consider(() -> Attempt.notApplicable(PlanException.unsupported("locking reads of copies"))).cheapest());
        assertRefusal(refused);
        assertEquals("Lutra does not support joins across partitions yet; nor locking reads of copies", refused.getMessage());
        // a statement's own error (an unknown table) where no candidate answers it
        var unknown = assertThrows(PlanException.class, () -> new Costs.Choice()
                .consider(() -> Attempt.notApplicable(new PlanException("42S02", 1146, "Table 'demo.nosuch' doesn't exist"))).cheapest());
        assertEquals(1146, unknown.getErrorCode());
    }

    @Test
    void waysAnswerAsValuesRefusalsCombineAnErrorWaitsForNoCandidateAndAShapeNotTakenIsNoReason() throws PlanException {
        var plan = new Plan.Query(new SelectPlan(null, null, SelectPlan.Validation.OWNER_ROWS, -1, null, null), 0, new QueryTraits(false, false));
        var candidate = new Costs.Candidate("copies", plan, Costs.copied(List.of(10.0), 0));
        var unknown = new PlanException("42S02", 1146, "Table 'demo.nosuch' doesn't exist");
        // a refused way, an error way, a way whose shape is not taken (a planned null), a candidate: the candidate runs
        var choice = new Costs.Choice()
                .consider(() -> Attempt.notApplicable(PlanException.unsupported("joins in rounds of this shape yet")))
                .consider(() -> Attempt.notApplicable(unknown))
                .consider(() -> Attempt.planned(null))
                .consider(() -> Attempt.planned(candidate));
        assertEquals(List.of(candidate), choice.candidates());
        assertSame(plan, assertInstanceOf(Attempt.Planned.class, choice.attempt()).plan());
        // no candidate: the refusals combined, in the order the ways were listed; the shape not taken adds nothing
        var combined = assertInstanceOf(Attempt.NotApplicable.class, new Costs.Choice()
                .refused(PlanException.unsupported("joins across partitions yet"))
                .consider(() -> Attempt.planned(null))
                .consider(() -> Attempt.notApplicable(PlanException.unsupported("locking reads of copies")))
                .consider(java.util.Optional.of(PlanException.unsupported("session-scoped FOUND_ROWS() through the router yet")), () -> {
                    throw new AssertionError("a way that does not apply up front is not tried");
                }).attempt());
        assertTrue(combined.refused());
        assertEquals("Lutra does not support joins across partitions yet; nor locking reads of copies; nor session-scoped FOUND_ROWS() through the router yet",
                combined.reason().getMessage());
        assertEquals("42000", combined.reason().getSQLState());
        assertEquals(1235, combined.reason().getErrorCode());
        // no candidate and an error among the refusals: the statement's error, as a value (its caller throws it)
        var error = assertInstanceOf(Attempt.NotApplicable.class, new Costs.Choice()
                .consider(() -> Attempt.notApplicable(PlanException.unsupported("this way")))
                .consider(() -> Attempt.notApplicable(unknown))
                .consider(() -> Attempt.notApplicable(new PlanException("42S22", 1054, "Unknown column 'z' in 'field list'"))).attempt());
        assertSame(unknown, error.reason());
        assertSame(unknown, assertThrows(PlanException.class, () -> error.errorThrown()));
    }

    @Test
    void estimatesOrderPlansByRoundTripsAndRows() {
        double pinned = Costs.rows(CATALOG.table("a"), new KeyMatch.Equals(new ValueRef.Literal(5)));
        assertEquals(1, pinned);
        assertEquals(Costs.ROWS_PER_KEY, Costs.rows(CATALOG.table("c"), new KeyMatch.Equals(new ValueRef.Literal(5))));
        assertEquals(Costs.TABLE_ROWS, Costs.rows(CATALOG.table("a"), null));
        // twenty small tables copied cost less than one round trip each in sequence twice over
        var twenty = Costs.copied(Collections.nCopies(20, 10.0), 0);
        assertTrue(twenty.roundTrips() < 70, twenty.toString());
        assertTrue(Costs.rounds(3, 1, Costs.TABLE_ROWS).total() < Costs.copied(List.of(3.0, Costs.TABLE_ROWS), 0).total());
        assertTrue(Costs.rounds(Costs.TABLE_ROWS, 1, Costs.TABLE_ROWS).total() < Costs.copied(List.of(Costs.TABLE_ROWS, Costs.TABLE_ROWS), 0).total());
    }
}
