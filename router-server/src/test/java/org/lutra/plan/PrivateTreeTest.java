package org.lutra.plan;

import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.update.Update;
import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;
import org.lutra.exec.Plan;
import org.lutra.sql.PlanException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;

/**
 * Planning a SELECT, or an UPDATE or DELETE whose subqueries run first, leaves the tree it was given as it was: the
 * planners that rewrite a statement into the partitions' (hidden sort keys, partial aggregates, widened LIMIT, subqueries
 * replaced by markers) do it on a tree of their own.
 */
class PrivateTreeTest {
    private static final Catalog CATALOG = SchemaParser.parse("""
            CREATE TABLE a (id INT PRIMARY KEY, b INT, x VARCHAR(20)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE c (id INT PRIMARY KEY, b INT, x VARCHAR(20)) PARTITION BY hash(b) ON (p0, p1, p2, p3);
            """, List.of("p0", "p1", "p2", "p3"));
    private final Planner planner = new Planner(CATALOG, "demo", 100);

    @Test
    void theMergeAndTheSubqueryRoundsRewriteCopies() throws PlanException {
        for (String sql : List.of(
                "SELECT b, AVG(id), COUNT(DISTINCT x) FROM a GROUP BY b ORDER BY AVG(id) DESC LIMIT 2, 3",
                "SELECT DISTINCT x FROM a ORDER BY x LIMIT 4",
                "SELECT id, x FROM a WHERE id IN (?, ?) ORDER BY x",
                "SELECT id FROM a WHERE b > (SELECT AVG(b) FROM c) AND id IN (SELECT b FROM c WHERE x = 'k') ORDER BY id LIMIT 5")) {
            var select = (PlainSelect) Parsing.parse(sql, 1_000);
            String before = select.toString();
            new SelectPlanner(planner).plan(select, sql);
            assertEquals(before, select.toString(), sql);
        }
    }

    @Test
    void aWriteWhoseSubqueriesRunFirstKeepsItsTree() throws PlanException {
        var writes = new WritePlanner(planner);
        for (String sql : List.of(
                "UPDATE a SET x = (SELECT MAX(x) FROM c WHERE b > ?) WHERE id IN (SELECT b FROM c WHERE x = 'k') AND b = ?",
                "DELETE FROM a WHERE NOT EXISTS (SELECT 1 FROM c WHERE c.x = 'k') OR b NOT IN (SELECT b FROM c)")) {
            var write = Parsing.parse(sql, 1_000);
            String before = write.toString();
            var subqueries = SubqueryPlanner.of(write instanceof Update u ? WriteSubqueries.setValues(u.getUpdateSets()) : List.of(),
                    write instanceof Update u ? u.getWhere() : ((Delete) write).getWhere());
            var plan = write instanceof Update u ? writes.update(u) : writes.delete((Delete) write);
            assertInstanceOf(Plan.WriteAfterSubqueries.class, plan, sql);
            assertEquals(before, write.toString(), sql);
            // the same subquery nodes, each still in its place
            assertEquals(subqueries, SubqueryPlanner.of(write instanceof Update u ? WriteSubqueries.setValues(u.getUpdateSets()) : List.of(),
                    write instanceof Update u ? u.getWhere() : ((Delete) write).getWhere()), sql);
        }
    }

    @Test
    void aCopyOfAWritePrintsAsTheOriginalAndSharesNoNode() throws PlanException {
        var update = (Update) Parsing.parse("UPDATE a SET x = (SELECT MAX(x) FROM c) WHERE id IN (SELECT b FROM c)", 1_000);
        var copy = (Update) PrivateTree.ofWrite(update);
        assertEquals(update.toString(), copy.toString());
        assertNotSame(update.getWhere(), copy.getWhere());
        assertNotSame(update.getUpdateSets().getFirst(), copy.getUpdateSets().getFirst());
    }

    @Test
    void aCopyPrintsAsTheOriginalAndSharesNoNode() throws PlanException {
        var select = (PlainSelect) Parsing.parse("SELECT a.x, COUNT(*) FROM a WHERE a.b = ? GROUP BY a.x HAVING COUNT(*) > 1", 1_000);
        var copy = PrivateTree.of(select);
        assertEquals(select.toString(), copy.toString());
        assertNotSame(select.getWhere(), copy.getWhere());
        assertNotSame(select.getSelectItems().getFirst(), copy.getSelectItems().getFirst());
    }
}
