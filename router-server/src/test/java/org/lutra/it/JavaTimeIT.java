package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * getObject(int, Class) for the java.time classes, the JDBC escapes of the temporal classes and
 * the plain ones, on every temporal column type, through Lutra as Connector/J straight to MariaDB
 * answers (the same value, or both refuse); and the Connection odds and ends pools call:
 * isValid, unwrap, isWrapperFor.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JavaTimeIT {
    Differential differential;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "javatimeit", """
                CREATE TABLE t (id INT PRIMARY KEY, d DATE, tm TIME(3), dt DATETIME(6), ts TIMESTAMP(3) NULL, yr YEAR, s VARCHAR(40))
                  PARTITION BY hash(id) ON (p0, p1, p2, p3);
                """);
        differential.both("INSERT INTO t VALUES (1, '2024-02-29', '13:45:07.125', '2024-02-29 23:59:59.999999', '2021-03-28 01:30:00.5', 2024, '2024-02-29 10:11:12')");
        differential.both("INSERT INTO t VALUES (2, '1970-01-01', '00:00:00', '1000-01-01 00:00:00', '1970-01-01 00:00:01', 1901, 'not a date')");
        differential.both("INSERT INTO t VALUES (3, NULL, NULL, NULL, NULL, NULL, NULL)");
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    /** Instant is left out: Connector/J refuses it for every column type, Lutra reads it at the JVM's zone. */
    static final List<Class<?>> CLASSES = List.of(LocalDate.class, LocalTime.class, LocalDateTime.class, OffsetDateTime.class,
            ZonedDateTime.class, java.sql.Date.class, java.sql.Time.class, java.sql.Timestamp.class, String.class);

    @Test
    void javaTimeGettersMatchConnectorJ() throws SQLException {
        var differences = new ArrayList<String>();
        int compared = 0;
        for (int id = 1; id <= 3; id++) {
            for (String column : List.of("d", "tm", "dt", "ts", "yr", "s")) {
                for (Class<?> type : CLASSES) {
                    String sql = "SELECT " + column + " FROM t WHERE id = " + id;
                    String ours = get(differential.lutra, sql, type), theirs = get(differential.reference, sql, type);
                    compared++;
                    if (!ours.equals(theirs)) differences.add(column + " #" + id + " as " + type.getSimpleName() + ": " + ours + " (Connector/J: " + theirs + ")");
                }
            }
        }
        assertEquals(162, compared);
        assertEquals(List.of(), differences);
    }

    /** The value's text, or "refused" (Connector/J and Lutra word their errors differently). */
    private static String get(Connection c, String sql, Class<?> type) throws SQLException {
        try (var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            assertTrue(rs.next());
            try {
                Object v = rs.getObject(1, type);
                return v == null ? "null" : v + " (" + v.getClass().getSimpleName() + ")";
            } catch (SQLException e) {
                return "refused";
            }
        }
    }

    @Test
    void instantsAreReadAtTheJvmZone() throws SQLException {
        try (var st = differential.lutra.createStatement(); var rs = st.executeQuery("SELECT dt FROM t WHERE id = 1")) {
            assertTrue(rs.next());
            assertEquals(LocalDateTime.of(2024, 2, 29, 23, 59, 59, 999_999_000).atZone(java.time.ZoneId.systemDefault()).toInstant(),
                    rs.getObject(1, Instant.class));
        }
    }

    @Test
    void poolsCanValidateAndUnwrap() throws SQLException {
        var c = differential.lutra;
        assertTrue(c.isValid(2));
        assertTrue(c.isWrapperFor(org.lutra.jdbc.LutraConnection.class));
        assertSame(c, c.unwrap(Connection.class));
        assertThrows(SQLException.class, () -> c.unwrap(String.class));
        try (var other = differential.router.connect()) {
            other.close();
            assertFalse(other.isValid(1));
        }
    }
}
