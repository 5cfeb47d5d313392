package org.lutra.exec;

import org.lutra.backend.ShardQuery;
import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;
import org.lutra.catalog.TableDef;

import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Which writes of a replicated key keep its copies identical, and the statement each copy runs. */
class SameOnEveryCopyTest {
    private final Catalog catalog = SchemaParser.parse("""
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) COLLATE utf8mb4_bin, seen DATETIME(6)) PARTITION BY lookup(id) ON (p0, p1) DEFAULT NEW ON hash(id);
            CREATE TABLE user (id INT PRIMARY KEY, at TIMESTAMP(3) DEFAULT CURRENT_TIMESTAMP(3)) PARTITION BY lookup(id) SAME AS users;
            """, List.of("p0", "p1"));
    private final TableDef users = catalog.table("users");
    private final TableDef user = catalog.table("user");

    @Test
    void valuesNoVariableFixesAreRefused() {
        for (String sql : List.of("UPDATE users SET name = RAND() WHERE id = 3", "UPDATE users SET name = uuid() WHERE id = 3",
                "INSERT INTO users (id, name) VALUES (3, UUID_SHORT())", "UPDATE users SET seen = SYSDATE() WHERE id = 3",
                "UPDATE users SET name = CURRENT_USER WHERE id = 3", "UPDATE users SET name = DATABASE () WHERE id = 3",
                "INSERT INTO users (id) VALUES (NEXT VALUE FOR s)", "UPDATE users SET name = CONNECTION_ID() WHERE id = 3")) {
            var e = assertThrows(SQLException.class, () -> SameOnEveryCopy.check(sql, users, true), sql);
            org.lutra.Refusals.assertRefusal(e);
        }
    }

    @Test
    void theClockIsFixedOnMariaDbAndRefusedElsewhere() throws SQLException {
        for (String sql : List.of("UPDATE users SET seen = NOW(6) WHERE id = 3", "UPDATE users SET seen = CURRENT_TIMESTAMP WHERE id = 3",
                "UPDATE users SET name = UNIX_TIMESTAMP() WHERE id = 3")) {
            SameOnEveryCopy.check(sql, users, true);
            assertThrows(SQLException.class, () -> SameOnEveryCopy.check(sql, users, false), sql);
        }
        SameOnEveryCopy.check("INSERT INTO user (id) VALUES (3)", user, true);
        assertThrows(SQLException.class, () -> SameOnEveryCopy.check("INSERT INTO user (id) VALUES (3)", user, false), "a default of the clock");
    }

    @Test
    void namesThatAreNotCallsPass() throws SQLException {
        for (String sql : List.of("UPDATE users SET name = 'RAND() and UUID()' WHERE id = 3", "INSERT INTO user (id) VALUES (3)",
                "UPDATE users SET name = `rand` WHERE id = 3", "UPDATE users SET name = LAST_INSERT_ID(name + 1) WHERE id = 3" /* its argument */, "UPDATE users u SET u.name = CONCAT(u.name, '!') WHERE u.id = 3 /* NOW() */")) {
            SameOnEveryCopy.check(sql, users, true);
        }
    }

    @Test
    void onlyStatementsThatReadTheClockGetOneTime() {
        assertTrue(SameOnEveryCopy.readsClock("UPDATE users SET seen = NOW(6) WHERE id = 3", users));
        assertTrue(SameOnEveryCopy.readsClock("UPDATE users SET seen = current_timestamp WHERE id = 3", users));
        assertTrue(SameOnEveryCopy.readsClock("INSERT INTO user (id) VALUES (3)", user), "a column that defaults to the time");
        assertFalse(SameOnEveryCopy.readsClock("UPDATE users SET name = 'NOW()' WHERE id = 3", users));
        assertFalse(SameOnEveryCopy.readsClock("UPDATE users SET karma = karma + 1 WHERE name = ?", users), "the time would make every text new");
    }

    @Test
    void everyCopyRunsAtOneTime() {
        var out = SameOnEveryCopy.atOneTime(List.of(new ShardQuery(1, "UPDATE users SET seen = NOW(6) WHERE id = ?", List.of())), 1_795_838_123_000_042L);
        assertEquals("SET STATEMENT timestamp = 1795838123.000042 FOR UPDATE users SET seen = NOW(6) WHERE id = ?", out.getFirst().sql());
        assertEquals(1, out.getFirst().partition());
    }
}
