package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.exec.Plan;
import org.lutra.exec.Route;
import org.lutra.sql.PlanException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/** What the router sends for information_schema reads; the answers themselves are checked on MariaDB in HibernateIT and FlywayIT. */
class InformationSchemaTest {
    private static String sent(String sql) throws PlanException {
        var bound = PlannerLimitsTest.planner().bind(sql, List.of());
        var query = assertInstanceOf(Plan.Query.class, bound.plan());
        return assertInstanceOf(Route.class, query.root()).sql();
    }

    private static PlanException refused(String sql) {
        var e = assertThrows(PlanException.class, () -> PlannerLimitsTest.planner().bind(sql, List.of()));
        assertRefusal(e, e.getMessage());
        return e;
    }

    @Test
    void tablesBecomeLiteralRowsOfTheCatalogAndDatabaseTheLogicalOne() throws PlanException {
        String sql = sent("select table_name from information_schema.TABLES where table_schema=database() and table_type='SEQUENCE'");
        for (String table : List.of("users", "followers", "tweets", "nums", "country")) {
            assertTrue(sql.contains("_utf8mb3'" + table + "' COLLATE utf8mb3_general_ci AS TABLE_NAME"), sql);
        }
        assertTrue(sql.contains("table_schema = _utf8mb3'demo' COLLATE utf8mb3_general_ci"), sql);
        assertFalse(sql.toLowerCase().contains("information_schema"), sql);
        assertFalse(sql.toLowerCase().contains("database()"), sql);
    }

    @Test
    void theServersOwnTablesAreReadAsTheyAre() throws PlanException {
        String sql = sent("SELECT WORD FROM INFORMATION_SCHEMA.KEYWORDS WHERE RESERVED=1 ORDER BY WORD");
        assertTrue(sql.contains("FROM INFORMATION_SCHEMA.KEYWORDS"), sql);
        sql = sent("SELECT c.collation_name, t.table_name FROM information_schema.collations c JOIN information_schema.tables t ON t.table_name = c.collation_name");
        assertTrue(sql.contains("information_schema.collations c"), sql);
    }

    @Test
    void aliasesJoinsAndSchemataKeepTheirNames() throws PlanException {
        String sql = sent("SELECT COUNT(1) FROM information_schema.schemata s WHERE s.schema_name='demo' LIMIT 1");
        assertTrue(sql.contains("AS CATALOG_NAME") && sql.contains(" AS s "), sql);
        sql = sent("SELECT t.table_name FROM information_schema.tables t JOIN information_schema.schemata s ON s.schema_name = t.table_schema");
        assertTrue(sql.contains(" AS t ") && sql.contains(" AS s "), sql);
    }

    @Test
    void columnsThePartitionsAnswerDifferentlyAreRefused() {
        assertTrue(refused("SELECT table_name, table_rows FROM information_schema.tables").getMessage().contains("TABLE_ROWS"));
        refused("SELECT * FROM information_schema.tables");
        refused("SELECT t.* FROM information_schema.tables t");
        refused("SELECT auto_increment FROM information_schema.tables WHERE table_name = 'users'");
        assertTrue(refused("SELECT id FROM information_schema.processlist").getMessage().contains("PROCESSLIST"));
        refused("SELECT u.name FROM users u JOIN information_schema.keywords k ON k.word = u.name");
        refused("SELECT u.name FROM users u JOIN information_schema.tables t ON t.table_name = u.name");
    }

    @Test
    void tableDefinitionsAreReadFromThePartitionsWithEveryColumn() throws PlanException {
        for (String sql : List.of("SELECT * FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
                "SELECT k.column_name FROM information_schema.key_column_usage k JOIN information_schema.referential_constraints r"
                        + " ON r.constraint_name = k.constraint_name WHERE k.table_schema = database()",
                "SELECT index_name, column_name FROM information_schema.statistics WHERE table_name = 'users'",
                "SELECT table_name, table_comment, engine FROM information_schema.tables WHERE table_schema = database()",
                "SELECT index_name, cardinality FROM information_schema.statistics", "SELECT * FROM information_schema.statistics")) {
            var query = assertInstanceOf(Plan.Query.class, PlannerLimitsTest.planner().plan(sql));
            var root = assertInstanceOf(org.lutra.exec.PartitionSchemaRows.class, query.root());
            assertFalse(root.describe().isEmpty());
        }
    }
}
