package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;
import org.lutra.exec.Plan;
import org.lutra.sql.PlanException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/** UPDATE and DELETE with subqueries: which run inside each partition as written, which run their subqueries first, which are refused. */
class WriteSubqueriesTest {
    private static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(20), n INT) PARTITION BY lookup(id) ON (p0, p1) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT NOT NULL, destination INT NOT NULL, PRIMARY KEY (source, destination))
              PARTITION BY lookup(source) SAME AS users;
            CREATE TABLE page (id INT PRIMARY KEY, a INT) PARTITION BY hash(id) ON (p0, p1);
            CREATE TABLE text (id INT PRIMARY KEY, a INT) PARTITION BY range(id) ON (p0 < 10, p1);
            CREATE TABLE country (id INT PRIMARY KEY, a INT) REPLICATED;
            CREATE TABLE solo (id INT PRIMARY KEY, a INT) PARTITION BY hash(id) ON (p1);
            CREATE TABLE first_only (id INT PRIMARY KEY, a INT) PARTITION BY hash(id) ON (p0);
            CREATE TABLE codes (id INT NOT NULL, a INT, KEY (id)) REPLICATED;
            """;

    private final Catalog catalog = SchemaParser.parse(SCHEMA, List.of("p0", "p1"));
    private final Planner planner = new Planner(catalog, "demo", 100);

    @Test
    void coLocatedAndReplicatedSubqueriesStayInTheWriteSentToEachPartition() throws PlanException {
        var correlated = (Plan.Routed) planner.plan("DELETE FROM users WHERE EXISTS (SELECT 1 FROM followers f WHERE f.source = users.id)");
        assertTrue(correlated.sql().contains("SELECT 1 FROM followers"), correlated.sql());
        var replicated = (Plan.Routed) ((Plan.CopiesLockedFirst) planner.plan("UPDATE page SET a = (SELECT c.a FROM country c WHERE c.id = page.id) WHERE id = 3")).write();
        assertTrue(replicated.sql().contains("FROM country"), replicated.sql());
        assertNotNull(replicated.keys(), "routed by its WHERE as before");
        var self = (Plan.CopiesLockedFirst) planner.plan("DELETE FROM country WHERE id IN (SELECT id FROM country WHERE a > 1)");
        assertInstanceOf(Plan.Routed.class, self.write());
        assertTrue(self.delete());
    }

    @Test
    void replicatedTablesReadInPlaceAreLockedOnTheirFirstCopyFirst() throws PlanException {
        // uncorrelated: the subquery itself as a locking read, with its own parameters (the write's second and third)
        var plan = (Plan.CopiesLockedFirst) planner.plan("UPDATE page SET a = ? WHERE id = 3 AND a IN (SELECT a FROM country WHERE id BETWEEN ? AND ?) AND a <> ?");
        assertEquals(4, plan.paramCount());
        assertEquals(1, plan.locks().size());
        assertEquals(1, plan.locks().getFirst().firstParam());
        assertEquals(2, plan.locks().getFirst().read().paramCount());
        assertFalse(plan.delete());
        // two subqueries: the second's parameters counted after the first's
        var two = (Plan.CopiesLockedFirst) planner.plan("DELETE FROM page WHERE a = (SELECT MAX(a) FROM country WHERE id < ?) OR a IN (SELECT a FROM country WHERE id = ?)");
        assertEquals(List.of(0, 1), two.locks().stream().map(Plan.CopyLock::firstParam).toList());
        // correlated, or a UNION: the table's rows locked whole, once however many subqueries read it
        var correlated = (Plan.CopiesLockedFirst) planner.plan("UPDATE page SET a = (SELECT c.a FROM country c WHERE c.id = page.id)"
                + " WHERE id IN (?, ?) AND EXISTS (SELECT 1 FROM country c WHERE c.id = page.a + ?)");
        assertEquals(1, correlated.locks().size());
        assertEquals(0, correlated.locks().getFirst().read().paramCount());
        assertEquals(1, ((Plan.CopiesLockedFirst) planner.plan("DELETE FROM page WHERE a IN (SELECT a FROM country UNION SELECT 5)")).locks().size());
        // without a PRIMARY KEY the clustered index cannot be named: refused where the locks are needed (when run)
        var noKey = (Plan.CopiesLockedFirst) planner.plan("DELETE FROM page WHERE EXISTS (SELECT 1 FROM codes c WHERE c.id = page.a)");
        assertNull(noKey.locks().getFirst().read());
        assertTrue(noKey.locks().getFirst().refusal().contains("codes"), noKey.locks().getFirst().refusal());
        assertNotNull(((Plan.CopiesLockedFirst) planner.plan("DELETE FROM page WHERE a IN (SELECT a FROM codes WHERE id = 1)")).locks().getFirst().read(),
                "uncorrelated: the subquery itself");
        // where the write runs on the table's first partition alone, its own read takes those locks
        assertInstanceOf(Plan.Routed.class, planner.plan("UPDATE first_only SET a = (SELECT MAX(a) FROM country) WHERE id = ?"));
        assertInstanceOf(Plan.CopiesLockedFirst.class, planner.plan("UPDATE solo SET a = (SELECT MAX(a) FROM country) WHERE id = ?"));
    }

    @Test
    void uncorrelatedSubqueriesOverOtherPartitionsRunFirst() throws PlanException {
        var plan = (Plan.WriteAfterSubqueries) planner.plan("DELETE FROM page WHERE id IN (SELECT id FROM text WHERE a > 1) AND a = (SELECT MAX(n) FROM users)");
        assertEquals(3, plan.pieces().size());
        assertEquals(2, plan.plain().size());
        assertNotNull(plan.locking(), "plain SELECTs read as locking reads where InnoDB locks them");
        // the target table itself: read first, as MariaDB materializes it
        assertInstanceOf(Plan.WriteAfterSubqueries.class, planner.plan("UPDATE page SET a = (SELECT MAX(a) FROM page) WHERE id < 5"));
        // a mix: the co-located one stays in the write, the other runs first
        var mixed = (Plan.WriteAfterSubqueries) planner.plan("UPDATE users SET n = (SELECT COUNT(*) FROM followers f WHERE f.source = users.id)"
                + " WHERE id IN (SELECT id FROM page)");
        assertEquals(1, mixed.plain().size());
        assertTrue(mixed.pieces().getFirst().contains("FROM followers"), mixed.pieces().toString());
        // a UNION cannot be read with shared locks by the router: refused when run at REPEATABLE READ, not planned away
        assertNull(((Plan.WriteAfterSubqueries) planner.plan("DELETE FROM page WHERE id IN (SELECT id FROM text UNION SELECT id FROM country)")).locking());
    }

    @Test
    void whatCannotRunAsOneMariaDbIsRefusedByName() {
        assertRefused("DELETE FROM page WHERE EXISTS (SELECT 1 FROM text t WHERE t.id = page.id)", "correlated subqueries in WHERE");
        assertRefused("UPDATE page SET a = (SELECT MAX(a) FROM text t WHERE t.id = page.id)", "correlated subqueries in SET");
        assertRefused("UPDATE users SET n = 1 WHERE EXISTS (SELECT 1 FROM followers f WHERE f.destination = users.id)", "correlated subqueries");
        assertRefused("UPDATE page SET (id, a) = (SELECT id, a FROM text WHERE id = 1)", "");
        assertRefused("UPDATE page SET a = 1 WHERE (id, a) IN (SELECT id, a FROM text)", "row subqueries");
        assertRefused("UPDATE page SET id = (SELECT MAX(id) FROM text)", "routing column");
        assertRefused("DELETE FROM page WHERE id IN (SELECT id FROM text) ORDER BY (SELECT 1 FROM text LIMIT 1) LIMIT 1", "ORDER BY");
    }

    @Test
    void anAssignmentReadingAnEarlierOneBesideASemiJoinRunFirstIsRefused() throws PlanException {
        // one MariaDB runs it as a multi-table UPDATE (old values) or single-table (left to right), as the subquery's plan decides
        assertRefused("UPDATE users SET n = 5, name = CONCAT(name, n) WHERE id IN (SELECT id FROM page)", "reads n after an earlier assignment");
        assertRefused("UPDATE users SET n = 5, name = CONCAT(name, n) WHERE EXISTS (SELECT 1 FROM page WHERE a > 1)", "reads n");
        // the same value either way: read before it is set, or no semi-join to run first, or the subquery left in the write
        assertInstanceOf(Plan.WriteAfterSubqueries.class, planner.plan("UPDATE users SET name = CONCAT(name, n), n = 5 WHERE id IN (SELECT id FROM page)"));
        assertInstanceOf(Plan.WriteAfterSubqueries.class, planner.plan("UPDATE users SET n = 5, name = CONCAT(name, n) WHERE n > (SELECT MAX(a) FROM page)"));
        assertInstanceOf(Plan.WriteAfterSubqueries.class, planner.plan("UPDATE users SET n = 5, name = CONCAT(name, n) WHERE id NOT IN (SELECT id FROM page)"));
        assertInstanceOf(Plan.Routed.class, planner.plan("UPDATE users SET n = 5, name = CONCAT(name, n) WHERE EXISTS (SELECT 1 FROM followers f"
                + " WHERE f.source = users.id)"));
    }

    private void assertRefused(String sql, String naming) {
        var e = assertThrows(PlanException.class, () -> planner.plan(sql), sql);
        assertRefusal(e);
        assertTrue(e.getMessage().contains(naming), e.getMessage());
    }
}
