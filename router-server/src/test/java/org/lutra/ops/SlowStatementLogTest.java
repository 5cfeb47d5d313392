package org.lutra.ops;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.lutra.config.RouterConfig;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class SlowStatementLogTest {
    static final List<Value> PARAMS = List.of(Value.newBuilder().setStringValue("secret@example.com").build());

    @Test
    void aLineIsOneJsonObjectWithTimesAndNoParameterValuesUnlessAllowed() throws Exception {
        var log = new SlowStatementLog(new RouterConfig.SlowLog(10, false));
        String line = log.line(null, "SELECT *\nFROM users WHERE email = ?\u001b[31m", PARAMS, 2, null, 25_000_000, 20_000_000);
        assertFalse(line.contains("\n") || line.contains("\u001b"), "one line, no terminal escapes: " + line);
        var json = new ObjectMapper().readTree(line);
        assertEquals("slow_statement", json.get("event").asText());
        assertEquals("select", json.get("kind").asText());
        assertEquals("answered", json.get("outcome").asText());
        assertEquals(25.0, json.get("ms").asDouble());
        assertEquals(5.0, json.get("router_ms").asDouble());
        assertEquals(20.0, json.get("backend_ms").asDouble());
        assertEquals(2, json.get("partitions").asInt());
        assertTrue(json.get("sql").asText().startsWith("SELECT *\nFROM users"));
        assertFalse(line.contains("secret@example.com"), "parameter values are data: not logged by default");
        assertTrue(json.get("params").asText().contains("not logged"));

        var withValues = new SlowStatementLog(new RouterConfig.SlowLog(10, true));
        var logged = new ObjectMapper().readTree(withValues.line(null, "SELECT 1", PARAMS, 1, null, 1, 0));
        assertEquals("secret@example.com", logged.get("params").get(0).asText());
    }

    @Test
    void aWritesPlanIsSummedUpByItsTreeAsAReadsIs() throws Exception {
        var catalog = org.lutra.catalog.SchemaParser.parse("""
                CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64)) PARTITION BY lookup(id) ON (p0, p1);
                CREATE TABLE text (id BIGINT PRIMARY KEY, body TEXT) PARTITION BY hash(id) ON (p0, p1);
                """, List.of("p0", "p1"));
        var planner = new org.lutra.plan.Planner(catalog, "demo", 10);
        assertEquals("Write users", SlowStatementLog.summary(planner.plan("UPDATE users SET name = ? WHERE id = ?")));
        var insertSelect = SlowStatementLog.summary(planner.plan("INSERT INTO text (id, body) SELECT id, name FROM users WHERE id = ?"));
        assertTrue(insertSelect.startsWith("Insert text ") && insertSelect.contains(" <- [Select users"), insertSelect);
    }

    @Test
    void failuresSayTheirOutcomeAndCode() throws Exception {
        var log = new SlowStatementLog(new RouterConfig.SlowLog(0, false));
        var refused = new ObjectMapper().readTree(log.line(null, "UPDATE t SET id = 2", List.of(), 0,
                org.lutra.protocol.Refusal.of("Lutra does not support an UPDATE of the routing column"), 1_000_000, 0));
        assertEquals("refused", refused.get("outcome").asText());
        assertEquals(1235, refused.get("error_code").asInt());
        var error = new ObjectMapper().readTree(log.line(null, "SELECT x", List.of(), 0, new SQLException("Unknown column", "42S22", 1054), 1, 0));
        assertEquals("error", error.get("outcome").asText());
        assertEquals("42S22", error.get("sqlstate").asText());
    }
}
