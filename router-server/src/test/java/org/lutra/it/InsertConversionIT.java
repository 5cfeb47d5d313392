package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * An INSERT's row routed by the value its routing column will hold, as MariaDB converts it ({@code catalog/StoredValue}),
 * through Lutra on four partitions against one MariaDB: {@code 12.6} into an INT column is stored as 13 and must be where a
 * read of 13 looks; text cut to a VARCHAR's length, a CHAR's trailing spaces, a BINARY's padding, out-of-range values,
 * unsigned columns, a range placement's bounds; literals and parameters of each Java type; strict mode's errors where
 * MariaDB raises them, IGNORE and a session without strict mode where it stores. After each statement the outcomes, the
 * whole tables and a read by the stored value agree; a WHERE comparison keeps MySQL's comparison (no row is 12.6).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InsertConversionIT {
    static final String SCHEMA = """
            CREATE TABLE t (col0 INT PRIMARY KEY, col1 INT) PARTITION BY hash(col0) ON (p0, p1, p2, p3);
            CREATE TABLE u (id INT UNSIGNED PRIMARY KEY, v INT) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE s (code VARCHAR(4) COLLATE utf8mb4_bin PRIMARY KEY, v INT) PARTITION BY hash(code) ON (p0, p1, p2, p3);
            CREATE TABLE c (code CHAR(4) COLLATE utf8mb4_general_ci PRIMARY KEY, v INT) PARTITION BY lookup(code) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(code);
            CREATE TABLE b (k VARBINARY(6) PRIMARY KEY, v INT) PARTITION BY hash(k) ON (p0, p1, p2, p3);
            CREATE TABLE r (id SMALLINT PRIMARY KEY, v INT) PARTITION BY range(id) ON (p0 < 100, p1 < 1000, p2 < 10000, p3);
            """;
    Differential differential;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "insconv", SCHEMA);
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    @Test
    void rowsGoWhereTheValueTheyHoldIs() throws Exception {
        same("INSERT INTO t (col0, col1) VALUES (12.6, 1)", "t", "col0 = 13");
        same("INSERT INTO t VALUES ('14.4', 2), (1.55e1, 3), (2.5e0, 4), (-0.5, 5)", "t", "col0 IN (14, 16, 2, -1)");
        same("INSERT IGNORE INTO t VALUES ('17abc', 6)", "t", "col0 = 17");
        same("INSERT INTO t VALUES ('18abc', 7)", "t", "col0 = 18"); // strict mode: 1265 on both
        same("INSERT INTO t VALUES (99999999999, 8)", "t", "col0 = 2147483647"); // 1264
        same("INSERT IGNORE INTO t VALUES (99999999999, 8), (-99999999999, 9)", "t", "col0 IN (2147483647, -2147483648)");
        same("SET sql_mode = ''", null, null);
        same("INSERT INTO t VALUES ('19xyz', 10), ('', 11)", "t", "col0 IN (19, 0)");
        same("SET sql_mode = DEFAULT", null, null);
        same("INSERT IGNORE INTO u VALUES (-5, 1), (4294967296, 2), (7.5, 3)", "u", "id IN (0, 4294967295, 8)");
        same("INSERT IGNORE INTO s VALUES ('abcdef', 1), ('xy  ', 2)", "s", "code IN ('abcd', 'xy')");
        same("INSERT INTO s VALUES ('pq', 3), (12345, 4)", "s", "code IN ('pq', '1234')"); // a number into a VARCHAR(4): 1406 in strict mode
        same("INSERT INTO s VALUES (123, 4)", "s", "code = '123'");
        same("INSERT INTO c VALUES ('Ab  ', 1), ('cD', 2)", "c", "code IN ('AB', 'cd')");
        same("INSERT IGNORE INTO c VALUES ('abcdE', 3)", "c", "code = 'ABCD'");
        same("INSERT IGNORE INTO b VALUES ('abcdefgh', 1), ('ab', 2)", "b", "k IN ('abcdef', 'ab')");
        same("INSERT INTO r VALUES (99.5, 1), (999.4, 2), ('9999.5', 3)", "r", "id IN (100, 999, 10000)");
        assertEquals(List.of(), Differential.rows(differential.lutra, "SELECT * FROM t WHERE col0 = 12.6"), "a comparison is MySQL's, not a conversion");
    }

    @Test
    void parametersOfEachTypeAreStoredAndRoutedAlike() throws Exception {
        Object[][] cases = {{1001, 12.5d}, {1002, new BigDecimal("12.5")}, {1003, "20.5"}, {1004, 3.5f}, {1005, 2000000000000L}, {1006, "x"}};
        for (Object[] c : cases) {
            String lutra = bound(differential.lutra, c[0], c[1]);
            String reference = bound(differential.reference, c[0], c[1]);
            assertEquals(reference, lutra, "parameter " + c[1] + " (" + c[1].getClass().getSimpleName() + ")");
        }
        for (String where : List.of("col0 IN (12, 13, 20, 21, 4, 2147483647, 0)", "col1 > 1000")) {
            assertNull(differential.sameRows("t", "SELECT * FROM t WHERE " + where + " ORDER BY 1, 2"));
        }
    }

    private static String bound(Connection c, Object tag, Object value) {
        try (var ps = c.prepareStatement("INSERT IGNORE INTO t (col0, col1) VALUES (?, ?)")) {
            ps.setObject(1, value);
            ps.setObject(2, tag);
            return "count " + ps.executeUpdate();
        } catch (SQLException e) {
            return org.lutra.protocol.Refusal.is(e) ? "refused: " + e.getMessage() : "error " + e.getErrorCode();
        }
    }

    /** Runs {@code sql} on both sides; then the table whole, and the rows {@code where} picks (a read routed by the stored values), agree. */
    void same(String sql, String table, String where) throws SQLException {
        assertEquals(Differential.outcome(differential.reference, sql), Differential.outcome(differential.lutra, sql), sql);
        if (table == null) return;
        assertNull(differential.sameRows(table, "SELECT * FROM " + table + " ORDER BY 1, 2"), sql);
        var byKey = Differential.rows(differential.reference, "SELECT * FROM " + table + " WHERE " + where + " ORDER BY 1");
        assertEquals(byKey, Differential.rows(differential.lutra, "SELECT * FROM " + table + " WHERE " + where + " ORDER BY 1"), sql + ", read by " + where);
    }
}
