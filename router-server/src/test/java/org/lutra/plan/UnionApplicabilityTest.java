package org.lutra.plan;

import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SetOperationList;
import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;
import org.lutra.exec.Plan;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The union's merge says why it does not apply as a value ({@link UnionPlanner#plan}, {@link UnionPlanner#plainNotApplicable},
 * {@link UnionPlanner#weightsNotApplicable}), as a write's subquery read with locks does ({@link WritePlanner#lockingNotApplicable})
 * and the branches materialized do ({@link DerivedTables#setOperations}); errors of the statement are thrown as before.
 */
class UnionApplicabilityTest {
    private static final Catalog CATALOG = SchemaParser.parse("""
            CREATE TABLE a (id INT PRIMARY KEY, b INT, x VARCHAR(20)) PARTITION BY hash(id) ON (p0, p1);
            CREATE TABLE c (id INT PRIMARY KEY, b INT, x VARCHAR(20)) PARTITION BY hash(b) ON (p0, p1);
            """, List.of("p0", "p1"));
    private final Planner planner = new Planner(CATALOG, "demo", 100);

    private static SetOperationList union(String sql) throws PlanException {
        return (SetOperationList) Parsing.parse(sql, 1_000);
    }

    /** Plans each branch as the planner does, recording the branches it was asked for. */
    private UnionPlanner.BranchPlanner branches(List<String> asked) {
        return branch -> {
            asked.add(branch.toString());
            return new Attempt.Planned<>((Plan.Query) planner.plan(branch.toString()));
        };
    }

    @Test
    void whatTheMergeDoesNotTakeIsItsReasonAsAValue() throws PlanException {
        var reasons = List.of(
                "SELECT id FROM a INTERSECT SELECT id FROM c", "INTERSECT (only UNION and UNION ALL)",
                "SELECT id FROM a UNION SELECT id FROM c UNION ALL SELECT b FROM a", "UNION and UNION ALL mixed in one statement yet",
                "SELECT * FROM a UNION SELECT * FROM c", "SELECT * in a UNION with ORDER BY or without ALL yet: name the columns",
                "SELECT id FROM a UNION ALL SELECT id FROM c ORDER BY id + 1", "ORDER BY on a UNION by anything but a position or a column name of the first SELECT (id + 1)",
                "(SELECT id FROM a) UNION ALL (SELECT id FROM c) LIMIT ?", "LIMIT with parameters or OFFSET alone on a UNION yet");
        for (int i = 0; i < reasons.size(); i += 2) {
            String sql = reasons.get(i);
            var attempt = UnionPlanner.plan(union(sql), CATALOG, branches(new ArrayList<>()));
            var notApplicable = assertInstanceOf(Attempt.NotApplicable.class, attempt, sql);
            assertTrue(notApplicable.refused(), sql);
            assertEquals("Lutra does not support " + reasons.get(i + 1), notApplicable.reason().getMessage(), sql);
        }
    }

    @Test
    void aShapeRefusedBeforeAnyBranchIsPlannedPlansNone() throws PlanException {
        var asked = new ArrayList<String>();
        UnionPlanner.plan(union("SELECT id FROM a EXCEPT SELECT id FROM c"), CATALOG, branches(asked));
        assertEquals(List.of(), asked);
    }

    @Test
    void aBranchItsPlannerRefusesIsTheUnionsReason() throws PlanException {
        var refusal = PlanException.unsupported("this branch");
        var attempt = UnionPlanner.plan(union("SELECT id FROM a UNION ALL SELECT id FROM c"), CATALOG, branch -> Attempt.notApplicable(refusal));
        assertEquals(refusal, assertInstanceOf(Attempt.NotApplicable.class, attempt).reason());
    }

    @Test
    void errorsOfTheStatementAreThrown() {
        var columns = assertThrows(PlanException.class,
                () -> UnionPlanner.plan(union("SELECT id, b FROM a UNION SELECT id FROM c"), CATALOG, branches(new ArrayList<>())));
        assertEquals(1222, columns.getErrorCode());
        var position = assertThrows(PlanException.class,
                () -> UnionPlanner.plan(union("SELECT id FROM a UNION SELECT id FROM c ORDER BY 3"), CATALOG, branches(new ArrayList<>())));
        assertEquals(1054, position.getErrorCode());
        var table = assertThrows(PlanException.class, () -> planner.plan("SELECT id FROM a UNION SELECT id FROM nowhere"));
        assertEquals(1146, table.getErrorCode());
    }

    @Test
    void aUnionTheMergeTakesIsPlanned() throws PlanException {
        var asked = new ArrayList<String>();
        var attempt = UnionPlanner.plan(union("SELECT id, x FROM a UNION SELECT b, x FROM c ORDER BY x LIMIT 3"), CATALOG, branches(asked));
        assertInstanceOf(Attempt.Planned.class, attempt);
        assertEquals(2, asked.size());
    }

    @Test
    void aBranchIsAskedWhetherItIsPlainBeforeItIsPlanned() throws PlanException {
        var list = union("(SELECT id FROM a) UNION ALL ((SELECT id FROM c) UNION ALL (SELECT b FROM a))");
        assertTrue(UnionPlanner.plainNotApplicable(list.getSelects().get(0)).isEmpty());
        assertEquals("Lutra does not support nested set operations in a UNION yet (" + list.getSelects().get(1) + ")",
                UnionPlanner.plainNotApplicable(list.getSelects().get(1)).orElseThrow().getMessage());
    }

    @Test
    void weightsAreAskedForBeforeTheyAreAdded() throws PlanException {
        assertTrue(UnionPlanner.weightsNotApplicable((PlainSelect) Parsing.parse("SELECT id, x FROM a", 1_000)).isEmpty());
        assertTrue(UnionPlanner.weightsNotApplicable((PlainSelect) Parsing.parse("SELECT id, a.* FROM a", 1_000)).isPresent());
    }

    @Test
    void aSubqueryIsAskedWhetherItCanBeReadWithLocks() throws PlanException {
        assertTrue(WritePlanner.lockingNotApplicable((Select) Parsing.parse("SELECT b FROM c WHERE x = 'a'", 1_000)).isEmpty());
        for (String sql : List.of("SELECT b FROM c UNION SELECT b FROM a", "SELECT b FROM c WHERE b IN (SELECT b FROM a)")) {
            var select = (Select) Parsing.parse(sql, 1_000);
            assertEquals("Lutra does not support a UNION or nested subqueries as a locking read (" + select + ")",
                    WritePlanner.lockingNotApplicable(select).orElseThrow().getMessage(), sql);
        }
    }

    @Test
    void branchesMaterializedSayWhyNotAsAValue() throws PlanException {
        String sql = "SELECT id FROM a INTERSECT SELECT id FROM c";
        var refusal = PlanException.unsupported("this branch");
        var refused = DerivedTables.setOperations(sql, CATALOG, branch -> Attempt.notApplicable(refusal));
        assertEquals(refusal, assertInstanceOf(Attempt.NotApplicable.class, refused).reason());
        assertInstanceOf(Attempt.Planned.class, DerivedTables.setOperations(sql, CATALOG, planner::subqueryAttempt));
        var shape = DerivedTables.setOperations("WITH w AS (SELECT id FROM a) SELECT id FROM w UNION SELECT id FROM c", CATALOG, planner::subqueryAttempt);
        assertEquals(DerivedTables.setOperationsNotApplicable("WITH w AS (SELECT id FROM a) SELECT id FROM w UNION SELECT id FROM c", CATALOG)
                .orElseThrow().getMessage(), assertInstanceOf(Attempt.NotApplicable.class, shape).reason().getMessage());
    }
}
