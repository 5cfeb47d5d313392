package org.lutra.plan;

import net.sf.jsqlparser.statement.select.PlainSelect;
import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;
import org.lutra.exec.Operator;
import org.lutra.exec.Plan;
import org.lutra.exec.SelectPlan;
import org.lutra.exec.Target;
import org.lutra.sql.PlanException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The merge of each partition's answer ({@link ScatterPlanner}) says whether it applies as a value: a construct it cannot
 * reproduce, met deep inside the compiler of expressions over groups, is a {@link Attempt.NotApplicable} with its
 * refusal, not an exception; an error of the statement is one too, whose reason is no refusal and which the planner
 * gives when an execution needs several partitions, as before.
 */
class MergeApplicabilityTest {
    private static final Catalog CATALOG = SchemaParser.parse("""
            CREATE TABLE a (id INT PRIMARY KEY, b INT, s VARCHAR(10)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            """, List.of("p0", "p1", "p2", "p3"));
    private final Planner planner = new Planner(CATALOG, "demo", 100);

    private Attempt<Operator> merge(String sql) throws PlanException {
        var select = (PlainSelect) Parsing.parse(sql, 1_000);
        var table = CATALOG.table("a");
        return new ScatterPlanner(select, Sources.single(table, null), new Target(table, null), CATALOG).build();
    }

    @Test
    void aConstructTheMergeCannotReproduceIsNotApplicableWithItsRefusal() throws PlanException {
        // HAVING's CONCAT is an expression the router does not evaluate over groups: met inside the comparison's left side
        var attempt = merge("SELECT b, SUM(id) FROM a GROUP BY b HAVING CONCAT(b, 'x') = '1x'");
        var notApplicable = assertInstanceOf(Attempt.NotApplicable.class, attempt);
        assertTrue(notApplicable.refused());
        assertEquals("42000", notApplicable.reason().getSQLState());
        assertEquals(1235, notApplicable.reason().getErrorCode());
        assertEquals("Lutra does not support the expression CONCAT(b, 'x') in HAVING or over aggregates over several partitions yet",
                notApplicable.reason().getMessage());
        // the first construct met in text order is the one named (AVG(DISTINCT) of another argument is refused after it)
        var first = assertInstanceOf(Attempt.NotApplicable.class,
                merge("SELECT b, COUNT(DISTINCT id), SUM(DISTINCT b) FROM a GROUP BY b HAVING CONCAT(b, 'x') = '1x'"));
        assertEquals("Lutra does not support DISTINCT aggregates of different arguments in one statement over several partitions yet",
                first.reason().getMessage());
        assertInstanceOf(Attempt.Planned.class, merge("SELECT b, SUM(id) FROM a GROUP BY b HAVING SUM(id) + 1 > 2"));
    }

    @Test
    void anExpressionInHavingSpelledAsASelectItemIsNoMatchForColumnsThatNameNeitherItemNorGroup() throws PlanException {
        // MariaDB: 1054 Unknown column 'id' in 'HAVING' for the first two; the merge refuses, the rows copied to one partition answer
        for (String sql : List.of("SELECT id % b FROM a HAVING id % b + SUM(id) > 0",
                "SELECT id % b AS c0 FROM a GROUP BY c0 HAVING id % b + SUM(id) > -5")) {
            var attempt = assertInstanceOf(Attempt.NotApplicable.class, merge(sql), sql);
            assertEquals("Lutra does not support the column id in HAVING or over aggregates over several partitions yet",
                    attempt.reason().getMessage(), sql);
        }
        // its columns name GROUP BY columns: the item's value is theirs
        assertInstanceOf(Attempt.Planned.class, merge("SELECT b + 0 AS x, COUNT(*) FROM a GROUP BY b HAVING b + 0 > 1"));
    }

    @Test
    void theStatementsOwnErrorIsNotApplicableButNoRefusal() throws PlanException {
        var attempt = merge("SELECT b, SUM(id) FROM a GROUP BY b ORDER BY 5");
        var error = assertInstanceOf(Attempt.NotApplicable.class, attempt);
        assertFalse(error.refused());
        assertEquals("42S22", error.reason().getSQLState());
        assertEquals(1054, error.reason().getErrorCode());
        assertEquals("Unknown column '5' in 'ORDER BY'", error.reason().getMessage());
    }

    @Test
    void thePlannerCopiesTheRowsWhereTheMergeRefusesAndKeepsTheStatementsErrorForSeveralPartitions() throws PlanException {
        // refused by the merge: the table's rows copied to one partition answer instead
        var refused = ((Plan.Query) planner.plan("SELECT b, SUM(id) FROM a GROUP BY b HAVING CONCAT(b, 'x') = '1x'")).root();
        var copied = assertInstanceOf(SelectPlan.class, refused);
        assertEquals(2, copied.inputs().size(), "a plan for several partitions: " + copied.inputs());
        // the statement's error: planned without a plan for several partitions (the error is given when one is needed)
        var error = assertInstanceOf(SelectPlan.class, ((Plan.Query) planner.plan("SELECT b, SUM(id) FROM a GROUP BY b ORDER BY 5")).root());
        assertEquals(1, error.inputs().size(), "no plan for several partitions: " + error.inputs());
    }
}
