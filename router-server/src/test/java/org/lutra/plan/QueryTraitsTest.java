package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;
import org.lutra.exec.Plan;
import org.lutra.exec.QueryTraits;
import org.lutra.sql.PlanException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What a read's plan tells the session before it runs, decided when the plan is made. */
class QueryTraitsTest {
    private static final Catalog CATALOG = SchemaParser.parse("""
            CREATE TABLE a (id INT PRIMARY KEY, b INT) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE u (id INT PRIMARY KEY, b INT) PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            """, List.of("p0", "p1", "p2", "p3"));
    private final Planner planner = new Planner(CATALOG, "demo", 100);

    private QueryTraits traits(String sql) throws PlanException {
        return ((Plan.Query) planner.plan(sql)).traits();
    }

    @Test
    void routesMergedLimitedOrProjectedStreamPlainly() throws PlanException {
        assertEquals(new QueryTraits(true, false), traits("SELECT id, b FROM a WHERE id = ?"));
        assertEquals(new QueryTraits(true, false), traits("SELECT id, b FROM a ORDER BY b LIMIT 3"));
        // the router combines groups: not rows streamed as the routes give them
        assertEquals(new QueryTraits(false, false), traits("SELECT b, COUNT(*) FROM a GROUP BY b"));
    }

    @Test
    void lockingReadsThatNeverWaitAreKnownByTheirSql() throws PlanException {
        assertEquals(new QueryTraits(true, true), traits("SELECT id FROM a WHERE id = 1 FOR UPDATE NOWAIT"));
        assertEquals(new QueryTraits(true, true), traits("SELECT id FROM a WHERE id = 1 FOR UPDATE SKIP LOCKED"));
        assertEquals(new QueryTraits(true, false), traits("SELECT id FROM a WHERE id = 1 FOR UPDATE"));
    }
}
