package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.SchemaParser;
import org.lutra.exec.Plan;
import org.lutra.exec.Planned;
import org.lutra.exec.SessionCommand;
import org.lutra.sql.PlanException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/** SET of session variables, SHOW WARNINGS and user variables in statements: what the planner takes, and what it refuses. */
class SessionSettingsTest {
    private final Planner planner = new Planner(SchemaParser.parse(GoldenPlanTest.SCHEMA, List.of("p0", "p1", "p2", "p3")), "demo", 10);

    private Planned plan(String sql) throws PlanException {
        return planner.bind(sql, List.of()).plan();
    }

    private SessionCommand.SetVariables set(String sql) throws PlanException {
        return assertInstanceOf(SessionCommand.SetVariables.class, plan(sql), sql);
    }

    private void refused(String sql) {
        var e = assertThrows(PlanException.class, () -> plan(sql), sql);
        assertRefusal(e, sql + ": " + e.getMessage());
    }

    @Test
    void assignmentsAreSplitAtTopLevelCommasOnly() throws PlanException {
        var s = set("SET sql_mode = CONCAT(@@sql_mode, ',STRICT_ALL_TABLES'), @a := 'x,y', SESSION time_zone='+05:00', @@local.sql_notes = 0, "
                + "@`b c` = IF(1, 2, 3);");
        assertEquals(List.of(new SessionCommand.Assignment("sql_mode", "CONCAT(@@sql_mode, ',STRICT_ALL_TABLES')"), new SessionCommand.Assignment("@a", "'x,y'"),
                new SessionCommand.Assignment("time_zone", "'+05:00'"), new SessionCommand.Assignment("sql_notes", "0"), new SessionCommand.Assignment("@b c", "IF(1, 2, 3)")),
                s.assignments());
        assertEquals(0, s.paramCount());
        assertEquals(2, assertInstanceOf(SessionCommand.SetVariables.class, planner.plan("SET @p = ?, time_zone = COALESCE(?, 'SYSTEM')")).paramCount());
        assertEquals("SQL_MODE".toLowerCase(), set("SET SQL_MODE = ''").assignments().getFirst().name());
    }

    @Test
    void whatCannotBeCarriedExactlyIsRefused() {
        for (String sql : List.of("SET GLOBAL sql_mode = ''", "SET @@global.time_zone = '+00:00'", "SET PERSIST sql_notes = 0",
                "SET wait_timeout = 5", "SET div_precision_increment = 2", "SET @x = (SELECT 1)", "SET @x = LAST_INSERT_ID()",
                "SET @x = @y := 1", "SET @x = CONNECTION_ID()", "SET autocommit = 0, @x = 1", "SET PASSWORD = 'x'", "SET ROLE r",
                "SELECT @x := 1", "SELECT 1 INTO @x", "UPDATE users SET name = @x := 'a' WHERE id = 1")) {
            refused(sql);
        }
    }

    @Test
    void readsOfUserVariablesAndCarriedVariablesPlan() throws PlanException {
        assertInstanceOf(Plan.Query.class, plan("SELECT * FROM users WHERE id = @a"));
        assertInstanceOf(Plan.Query.class, plan("SELECT @@sql_mode, @@session.time_zone, id FROM users WHERE id = 1"));
        assertInstanceOf(Plan.Routed.class, plan("UPDATE users SET name = @n WHERE id = 1"));
        refused("SELECT @@session.sql_select_limit, id FROM users");
    }

    @Test
    void showWarningsForms() throws PlanException {
        assertEquals(new SessionCommand.ShowWarnings(false, false, 0, Long.MAX_VALUE), plan("SHOW WARNINGS"));
        assertEquals(new SessionCommand.ShowWarnings(true, false, 0, 5), plan("show errors limit 5;"));
        assertEquals(new SessionCommand.ShowWarnings(false, false, 2, 3), plan("SHOW WARNINGS LIMIT 2, 3"));
        assertEquals(new SessionCommand.ShowWarnings(false, true, 0, Long.MAX_VALUE), plan("SHOW COUNT(*) WARNINGS"));
        assertEquals(new SessionCommand.ShowWarnings(true, true, 0, Long.MAX_VALUE), plan("SHOW COUNT( * ) ERRORS"));
    }
}
