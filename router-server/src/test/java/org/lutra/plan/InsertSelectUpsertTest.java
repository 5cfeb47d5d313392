package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;
import org.lutra.exec.Plan;
import org.lutra.sql.PlanException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/**
 * INSERT ... SELECT ... ON DUPLICATE KEY UPDATE: the clause as sent after the VALUES rows, and the names refused
 * because MariaDB's INSERT ... SELECT would read them otherwise (or take them as ambiguous) than the VALUES form.
 */
class InsertSelectUpsertTest {
    private static final String SCHEMA = """
            CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT) PARTITION BY hash(id) ON (p0, p1);
            CREATE TABLE s (id INT PRIMARY KEY, a INT, c INT) PARTITION BY hash(id) ON (p0, p1);
            CREATE TABLE r (id INT PRIMARY KEY, d INT) REPLICATED;
            CREATE TABLE ids (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, a INT) PARTITION BY hash(id) ON (p0, p1);
            """;

    private final Catalog catalog = SchemaParser.parse(SCHEMA, List.of("p0", "p1"));
    private final Planner planner = new Planner(catalog, "demo", 100);

    private String sent(String sql) throws PlanException {
        var plan = assertInstanceOf(Plan.InsertSelect.class, planner.plan(sql));
        assertTrue(plan.upsert());
        return plan.batches().rows(2).rows().render(new int[] {0, 1});
    }

    @Test
    void namesOnlyTheTargetHasAndValuesAreSentAfterTheRows() throws PlanException {
        assertEquals("INSERT INTO `t` (`id`, `a`, `b`) VALUES (?, ?, ?), (?, ?, ?) ON DUPLICATE KEY UPDATE b = b + VALUES(b), a = VALUE(a)",
                sent("INSERT INTO t SELECT id, a, c FROM s ON DUPLICATE KEY UPDATE b = b + VALUES(b), a = VALUE(a)"));
        // t.a: the target's, the SELECT not reading t unaliased; VALUES(a) is the target's even where s has an a
        assertEquals("INSERT IGNORE INTO `t` (`id`, `a`) VALUES (?, ?), (?, ?) ON DUPLICATE KEY UPDATE a = t.a + 1, b = IFNULL(VALUES(a), DEFAULT)",
                sent("INSERT IGNORE INTO t (id, a) SELECT x.id, y.d FROM s x JOIN r y ON y.id = x.id WHERE x.a > 0 ON DUPLICATE KEY UPDATE a = t.a + 1, b = IFNULL(VALUES(a), DEFAULT)"));
        assertTrue(sent("INSERT INTO t SELECT id, a, b FROM t x WHERE a > 3 ON DUPLICATE KEY UPDATE b = t.b + 1").endsWith("UPDATE b = t.b + 1"));
        // GROUP BY: MariaDB resolves the clause in the target table alone, so a name s also has is t's
        assertTrue(sent("INSERT INTO t SELECT id, MAX(a), 1 FROM s GROUP BY id ON DUPLICATE KEY UPDATE a = a + 1").endsWith("UPDATE a = a + 1"));
        assertTrue(sent("INSERT INTO t SELECT id, a, b FROM t GROUP BY id ON DUPLICATE KEY UPDATE b = t.b + 1").endsWith("UPDATE b = t.b + 1"));
        assertTrue(sent("INSERT INTO t SELECT id, 1, 2 FROM s UNION SELECT id, d, d FROM r ON DUPLICATE KEY UPDATE b = 7, a = NULL").endsWith("b = 7, a = NULL"));
    }

    @Test
    void namesTheSelectCouldAnswerAreRefusedByName() {
        for (var refused : List.of(
                // 1052 in MariaDB (both have a); the VALUES form would read t.a
                List.of("INSERT INTO t SELECT id, a, c FROM s ON DUPLICATE KEY UPDATE b = a", "a (the SELECT's tables have a column of that name too"),
                List.of("INSERT INTO t SELECT x.id, x.a, x.c FROM s x ON DUPLICATE KEY UPDATE b = a + 1", "ambiguous"),
                List.of("INSERT INTO t SELECT id, a, b FROM t ON DUPLICATE KEY UPDATE b = t.b + 1", "t.b (MariaDB may take it"),
                List.of("INSERT INTO t SELECT id, a, c FROM s AS t ON DUPLICATE KEY UPDATE b = t.b + 1", "t.b"),
                // the SELECT's columns: what MariaDB reads there, the VALUES rows do not have
                List.of("INSERT INTO t SELECT id, a, c FROM s ON DUPLICATE KEY UPDATE b = c", "c, which is not a column of t"),
                List.of("INSERT INTO t SELECT id, a, c FROM s ON DUPLICATE KEY UPDATE b = s.a", "s.a"),
                List.of("INSERT INTO t SELECT id, a, c FROM s ON DUPLICATE KEY UPDATE b = VALUES(c)", "VALUES(c)"),
                List.of("INSERT INTO t SELECT id, a, c FROM s ON DUPLICATE KEY UPDATE b = VALUES(s.a)", "VALUES(s.a)"),
                List.of("INSERT INTO t SELECT id, d, d FROM r UNION SELECT id, a, c FROM s ON DUPLICATE KEY UPDATE b = a", "ambiguous"),
                // a derived table's or a CTE's columns are not listed: any name of t might be theirs
                List.of("INSERT INTO t SELECT * FROM (SELECT id, a, c FROM s) d ON DUPLICATE KEY UPDATE b = b + 1", "derived table"),
                List.of("INSERT INTO t SELECT id, d, d FROM r ON DUPLICATE KEY UPDATE b = (SELECT MAX(c) FROM s)", "subquery"),
                List.of("INSERT INTO t SELECT id, a, c FROM s ON DUPLICATE KEY UPDATE b = demo.t.b", "demo.t.b"),
                // what INSERT ... VALUES ... ON DUPLICATE KEY UPDATE refuses stays refused
                List.of("INSERT INTO t SELECT id, d, d FROM r ON DUPLICATE KEY UPDATE id = VALUES(id) + 1", "routing column"),
                List.of("INSERT INTO ids (a) SELECT d FROM r ON DUPLICATE KEY UPDATE a = VALUES(a)", "AUTO_INCREMENT"))) {
            var e = assertThrows(PlanException.class, () -> planner.plan(refused.get(0)), refused.get(0));
            assertRefusal(e, refused.get(0));
            assertTrue(e.getMessage().contains(refused.get(1)) && e.getMessage().contains("ON DUPLICATE KEY UPDATE"), refused.get(0) + ": " + e.getMessage());
        }
    }
}
