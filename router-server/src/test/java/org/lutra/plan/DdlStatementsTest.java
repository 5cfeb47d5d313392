package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.SchemaParser;
import org.lutra.exec.SessionCommand;
import org.lutra.sql.PlanException;

import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

class DdlStatementsTest {
    private static SessionCommand.Ddl plan(String sql) throws PlanException {
        return DdlStatements.plan(sql, "demo");
    }

    @Test
    void createTableLosesTheQualifierAndIfNotExistsAndKeepsTheRest() throws PlanException {
        var c = (SessionCommand.CreateTable) plan("create table if not exists `demo`.`Users` (id INT PRIMARY KEY, s VARCHAR(3) DEFAULT 'x;y')"
                + " PARTITION BY range(id) ON (p0 < 10, p1);");
        assertEquals("Users", c.table());
        assertTrue(c.ifNotExists());
        assertEquals("CREATE TABLE `Users` (id INT PRIMARY KEY, s VARCHAR(3) DEFAULT 'x;y') PARTITION BY range(id) ON (p0 < 10, p1)", c.create());
        var plain = (SessionCommand.CreateTable) plan("CREATE TABLE t (id INT)");
        assertFalse(plain.ifNotExists());
    }

    @Test
    void dropTruncateAlterAndIndexes() throws PlanException {
        var d = (SessionCommand.DropTables) plan("DROP TABLE IF EXISTS a, `b c`, demo.c");
        assertEquals(List.of("a", "b c", "c"), d.tables());
        assertTrue(d.ifExists());
        assertEquals("t", ((SessionCommand.Truncate) plan("TRUNCATE demo.t")).table());
        assertEquals("t", ((SessionCommand.Truncate) plan("truncate table `t`;")).table());
        var alter = (SessionCommand.AlterTable) plan("ALTER TABLE demo.t ADD COLUMN x INT DEFAULT 1, ADD INDEX (a, b), DROP COLUMN `y`");
        assertEquals("ALTER TABLE `t` ADD COLUMN x INT DEFAULT 1, ADD INDEX (a, b), DROP COLUMN `y`", alter.sql());
        assertEquals(List.of("ADD COLUMN x INT DEFAULT 1", "ADD INDEX (a, b)", "DROP COLUMN `y`"), alter.clauses());
        var index = (SessionCommand.AlterTable) plan("CREATE UNIQUE INDEX i ON demo.t (a, b)");
        assertEquals("t", index.table());
        assertEquals("CREATE UNIQUE INDEX i ON `t` (a, b)", index.sql());
        var drop = (SessionCommand.AlterTable) plan("DROP INDEX `i` ON t");
        assertEquals("DROP INDEX `i` ON `t`", drop.sql());
        assertEquals(List.of("DROP INDEX `i`"), drop.clauses());
    }

    @Test
    void otherDdlOtherDatabasesAndSeveralStatementsAreRefused() throws PlanException {
        for (String sql : List.of("CREATE VIEW v AS SELECT 1", "DROP DATABASE demo", "RENAME TABLE a TO b", "CREATE TEMPORARY TABLE t (id INT)",
                "CREATE TABLE t LIKE u", "CREATE TABLE t AS SELECT 1", "CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET @a = 1")) {
            assertRefusal(assertThrows(SQLException.class, () -> plan(sql), sql), sql);
        }
        assertEquals(1044, assertThrows(SQLException.class, () -> plan("DROP TABLE other.t")).getErrorCode());
        assertEquals(1064, assertThrows(SQLException.class, () -> plan("CREATE TABLE a (x INT); DROP TABLE b")).getErrorCode());
        assertNull(plan("SELECT * FROM t"));
        assertNull(plan("INSERT INTO t (a) VALUES ('CREATE TABLE')"));
        // the first word decides before the patterns: whatever blanks, comments and case come before it
        assertEquals("t", ((SessionCommand.Truncate) plan("-- a script's note\n \t\u000B/* and one more */ tRuNcAtE t")).table());
        assertEquals("t", ((SessionCommand.DropTables) plan("\r\n# note\ndrop table t")).tables().getFirst());
        assertRefusal(assertThrows(SQLException.class, () -> plan("  Rename Table a TO b")), "RENAME");
        assertNull(plan("  select 1"));
        assertNull(plan("CREATED_AT_IS_A_NAME"));
        assertNull(plan("(SELECT 1) UNION (SELECT 2)"));
    }

    @Test
    void longRunsOfBlanksAreReadInLinearTime() throws PlanException {
        String blanks = " ".repeat(1_000_000);
        long t0 = System.nanoTime();
        for (String sql : List.of("CREATE TABLE t (a INT" + blanks + ")" + blanks + ";" + blanks, "DROP TABLE a," + blanks + "b" + blanks,
                "ALTER TABLE t ADD COLUMN x INT" + blanks + ";" + blanks, "TRUNCATE t" + blanks + ";", "DROP INDEX i ON t" + blanks)) {
            assertNotNull(plan(sql));
        }
        assertRefusal(assertThrows(SQLException.class, () -> plan("CREATE VIEW" + blanks + "v")));
        assertTrue(System.nanoTime() - t0 < 20_000_000_000L, (System.nanoTime() - t0) / 1e6 + " ms"); // quadratic would take hours; loose for a shared machine
    }

    @Test
    void thePlannerHandsDdlOverBeforeItTakesLiteralsOut() throws PlanException {
        var planner = new Planner(SchemaParser.parse(GoldenPlanTest.SCHEMA, List.of("p0", "p1", "p2", "p3")), "demo", 10);
        var bound = planner.bind("CREATE TABLE r (k INT PRIMARY KEY, s VARCHAR(3) DEFAULT 'x') PARTITION BY range(k) ON (p0 < 10, p1)", List.of());
        assertEquals("CREATE TABLE `r` (k INT PRIMARY KEY, s VARCHAR(3) DEFAULT 'x') PARTITION BY range(k) ON (p0 < 10, p1)",
                ((SessionCommand.CreateTable) bound.plan()).create());
    }

    @Test
    void secondaryLookups() throws PlanException {
        var c = (SessionCommand.CreateSecondary) plan("create secondary lookup `by_tax` on demo.customers (`tax_id`) unique;");
        assertEquals(new SessionCommand.CreateSecondary("by_tax", "customers", List.of("tax_id"), true, "create secondary lookup `by_tax` on demo.customers (`tax_id`) unique"), c);
        assertEquals(new SessionCommand.CreateSecondary("page_by_name", "page", List.of("page_namespace", "page_title"), true,
                "CREATE SECONDARY LOOKUP page_by_name ON page ( page_namespace ,`page_title`) UNIQUE"),
                plan("CREATE SECONDARY LOOKUP page_by_name ON page ( page_namespace ,`page_title`) UNIQUE"));
        assertFalse(((SessionCommand.CreateSecondary) plan("CREATE SECONDARY LOOKUP t ON pages(title)")).unique());
        assertEquals("42S21", assertThrows(PlanException.class, () -> plan("CREATE SECONDARY LOOKUP x ON t (a, A)")).getSQLState(), "a column twice");
        assertEquals(new SessionCommand.DropSecondary("by_tax", true, "DROP SECONDARY LOOKUP IF EXISTS by_tax"), plan("DROP SECONDARY LOOKUP IF EXISTS by_tax"));
        for (String bad : List.of("CREATE SECONDARY LOOKUP x ON t (a,)", "CREATE SECONDARY LOOKUP x ON t ()",
                "CREATE SECONDARY LOOKUP x ON t (a b)", "CREATE SECONDARY LOOKUP x ON t (a, b, c, d, e, f, g, h, i)", "CREATE SECONDARY INDEX x ON t (a)", "DROP SECONDARY LOOKUP",
                "CREATE SECONDARY LOOKUP `a b` ON t (c)", "CREATE SECONDARY LOOKUP x ON other.t (c)")) {
            var e = assertThrows(PlanException.class, () -> plan(bad), bad);
            assertEquals("42000", e.getSQLState(), bad + ": " + e.getMessage());
        }
    }
}
