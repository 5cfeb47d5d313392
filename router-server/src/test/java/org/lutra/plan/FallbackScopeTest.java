package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;
import org.lutra.exec.Materialize;
import org.lutra.exec.Plan;
import org.lutra.sql.PlanException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * The fallback copies every table a statement reads, and a name is a CTE's only where that CTE is in scope: in the body of
 * a (non-recursive) CTE that takes a table's name, the name is the table's. Taken for the CTE, the table was not copied
 * and the statement ran on a partition without it (1146).
 */
class FallbackScopeTest {
    private static final Catalog CATALOG = SchemaParser.parse("""
            CREATE TABLE th (id INT PRIMARY KEY, a INT) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE tp (id INT PRIMARY KEY, a INT, d INT) REPLICATED ON (p1, p2);
            """, List.of("p0", "p1", "p2", "p3"));
    private final Planner planner = new Planner(CATALOG, "demo", 100);

    private String materialized(String sql) throws PlanException {
        var root = ((Plan.Query) planner.plan(sql)).root();
        return assertInstanceOf(Materialize.class, root).describe();
    }

    @Test
    void aCteBodyNamingItsOwnNameReadsTheTable() throws PlanException {
        assertEquals("Materialize [lutra_copy_0, lutra_copy_1] on partition 1, then: WITH tp AS (SELECT id AS c0, d AS c3 FROM `lutra_copy_0` AS tp"
                + " WHERE d <> id) SELECT NULL FROM tp AS x WHERE x.c0 IN (SELECT sq.a FROM `lutra_copy_1` AS sq)",
                materialized("WITH tp AS (SELECT id AS c0, d AS c3 FROM tp WHERE d <> id) SELECT NULL FROM tp AS x WHERE x.c0 IN (SELECT sq.a FROM th AS sq)"));
    }

    @Test
    void laterCtesAndTheQuerySeeAnEarlierCteNotTheTable() throws PlanException {
        assertEquals("Materialize [lutra_copy_0] on partition 0, then: WITH tp AS (SELECT a FROM `lutra_copy_0` AS th), u AS (SELECT a FROM tp)"
                + " SELECT COUNT(*) FROM u JOIN tp ON tp.a = u.a",
                materialized("WITH tp AS (SELECT a FROM th), u AS (SELECT a FROM tp) SELECT COUNT(*) FROM u JOIN tp ON tp.a = u.a"));
    }
}
