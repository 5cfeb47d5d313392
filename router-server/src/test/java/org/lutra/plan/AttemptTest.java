package org.lutra.plan;

import net.sf.jsqlparser.statement.select.PlainSelect;
import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.SchemaParser;
import org.lutra.catalog.TableDef;
import org.lutra.exec.Plan;
import org.lutra.exec.Route;
import org.lutra.sql.PlanException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Ways to plan a statement answer whether they apply ({@link Attempt}) instead of throwing for the planner to catch. */
class AttemptTest {
    private static final Catalog CATALOG = SchemaParser.parse("""
            CREATE TABLE a (id INT PRIMARY KEY, b INT) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE c (id INT PRIMARY KEY, b INT) PARTITION BY hash(b) ON (p0, p1, p2, p3);
            CREATE TABLE r (id INT PRIMARY KEY, b INT) REPLICATED;
            CREATE TABLE one (id INT PRIMARY KEY, b INT) PARTITION BY hash(id) ON (p2);
            """, List.of("p0", "p1", "p2", "p3"));
    private final Planner planner = new Planner(CATALOG, "demo", 100);

    private static PlainSelect select(String sql) throws PlanException {
        return (PlainSelect) Parsing.parse(sql, 1_000);
    }

    @Test
    void aJoinNotCoLocatedIsNotApplicableWithItsReasonNotThrown() throws PlanException {
        var placed = JoinPlacement.place(select("SELECT a.b FROM a JOIN c ON c.id = a.b"), planner::table);
        var notApplicable = assertInstanceOf(Attempt.NotApplicable.class, placed);
        assertTrue(notApplicable.refused());
        assertTrue(notApplicable.reason().getMessage().contains("not co-located"), notApplicable.reason().getMessage());
        assertInstanceOf(Attempt.Planned.class, JoinPlacement.place(select("SELECT a.b FROM a JOIN r ON r.id = a.b"), planner::table));
    }

    @Test
    void aTableTheResolverDoesNotKnowIsTheStatementsErrorNotAWayThatDoesNotApply() {
        var e = assertThrows(PlanException.class, () -> JoinPlacement.place(select("SELECT a.b FROM a JOIN nope ON nope.id = a.b"), planner::table));
        assertEquals("42S02", e.getSQLState());
    }

    @Test
    void onlyRefusalsMakeAWayNotApplicableWhereTheCallerNeedsAPlan() throws PlanException {
        assertInstanceOf(Attempt.NotApplicable.class, Attempt.notApplicable(PlanException.unsupported("this way")).errorThrown());
        var error = new PlanException("42S02", 1146, "Table 'demo.x' doesn't exist");
        assertSame(error, assertThrows(PlanException.class, () -> Attempt.notApplicable(error).errorThrown()));
        assertEquals("p", Attempt.planned("p").errorThrown().orThrow());
    }

    @Test
    void aTableWithoutAColumnListCannotBeCopied() {
        var table = new TableDef("t", List.of(), new Partitioning.Hashed("id", new int[] {0, 1}), "CREATE TABLE t LIKE u");
        var copy = assertInstanceOf(Attempt.NotApplicable.class, TemporaryCopy.attempt(table));
        assertTrue(copy.reason().getMessage().contains("copying t into a temporary table"));
    }

    @Test
    void aStatementQualifiedWithTheLogicalDatabaseRunsWholeAsItsUnqualifiedTwin() throws PlanException {
        // every table on p2 (one placed there alone, one replicated): the partition is asked of the tree as written
        assertEquals(2, planner.whole().partition(select("SELECT one.b FROM one JOIN r ON r.id = one.b")));
        assertEquals(2, planner.whole().partition(select("SELECT one.b FROM demo.one JOIN demo.r ON r.id = one.b")));
        assertEquals(-1, planner.whole().partition(select("SELECT one.b FROM other.one JOIN r ON r.id = one.b")));
        assertEquals(-1, planner.whole().partition(select("SELECT one.b FROM one JOIN a ON a.id = one.b")));
        // sent as written, the logical database's qualifier taken off and each table spelled as the catalog does
        var whole = planner.whole().plan("SELECT ONE.b FROM demo.ONE JOIN (SELECT id FROM demo.r) x ON x.id = ONE.b", 2);
        var route = assertInstanceOf(Route.class, whole.root());
        assertEquals("SELECT ONE.b FROM `one` ONE JOIN (SELECT id FROM r) x ON x.id = ONE.b", route.sql());
        var planned = ((Plan.Query) planner.plan("SELECT ONE.b FROM demo.ONE JOIN (SELECT id FROM demo.r) x ON x.id = ONE.b")).root();
        assertEquals(route.sql(), assertInstanceOf(Route.class, planned).sql());
    }
}
