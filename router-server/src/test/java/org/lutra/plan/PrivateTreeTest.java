package org.lutra.plan;

import net.sf.jsqlparser.statement.select.PlainSelect;
import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;
import org.lutra.sql.PlanException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

/**
 * Planning a SELECT leaves the tree it was given as it was: the planners that rewrite a statement into the partitions'
 * (hidden sort keys, partial aggregates, widened LIMIT, subqueries replaced by markers) do it on a tree of their own.
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
    void aCopyPrintsAsTheOriginalAndSharesNoNode() throws PlanException {
        var select = (PlainSelect) Parsing.parse("SELECT a.x, COUNT(*) FROM a WHERE a.b = ? GROUP BY a.x HAVING COUNT(*) > 1", 1_000);
        var copy = PrivateTree.of(select);
        assertEquals(select.toString(), copy.toString());
        assertNotSame(select.getWhere(), copy.getWhere());
        assertNotSame(select.getSelectItems().getFirst(), copy.getSelectItems().getFirst());
    }
}
