package org.lutra.it;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.*;

/**
 * JDBC calls that pools and frameworks make and that used to be 0A000 (HikariCP evicts on it):
 * TYPE_SCROLL_INSENSITIVE results, scrolled at random next to Connector/J's over the same rows on
 * one plain MariaDB, and setCatalog (the connection's database: a no-op; another: a refusal).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScrollingAndCatalogIT {
    static final String SCHEMA = "CREATE TABLE t (id INT PRIMARY KEY, a INT) PARTITION BY hash(id) ON (p0, p1, p2, p3);";
    static final int ROWS = 57;

    Differential differential;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "scrollit", SCHEMA);
        var values = new ArrayList<String>();
        for (int id = 1; id <= ROWS; id++) values.add("(" + id + ", " + id * 3 % 11 + ")");
        differential.both("INSERT INTO t VALUES " + String.join(", ", values));
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    /** Random moves over a result read in small batches (several Fetches), each answered as Connector/J answers it. */
    @Test
    void scrollInsensitiveResultsMoveAsConnectorJs() throws SQLException {
        var r = new SplittableRandom(Long.getLong("lutra.scroll.seed", System.nanoTime()));
        for (String sql : List.of("SELECT id, a FROM t ORDER BY a, id", "SELECT id FROM t WHERE id > 1000", "SELECT id FROM t WHERE id = 5")) {
            for (int maxRows : new int[] {0, 20}) {
                try (var lutra = differential.lutra.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_READ_ONLY);
                     var reference = differential.reference.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_READ_ONLY)) {
                    lutra.setFetchSize(7);
                    lutra.setMaxRows(maxRows);
                    reference.setMaxRows(maxRows);
                    try (var l = lutra.executeQuery(sql); var ref = reference.executeQuery(sql)) {
                        assertEquals(ResultSet.TYPE_SCROLL_INSENSITIVE, l.getType());
                        var moves = new ArrayList<String>();
                        for (int i = 0; i < 300; i++) {
                            String move = randomMove(r);
                            moves.add(move);
                            assertEquals(apply(ref, move), apply(l, move), sql + " maxRows " + maxRows + ": " + moves);
                        }
                    }
                }
            }
        }
        try (var forward = differential.lutra.createStatement(); var rs = forward.executeQuery("SELECT id FROM t")) {
            var e = assertThrows(SQLException.class, rs::previous);
            assertEquals("HY000", e.getSQLState(), "a forward-only result says so, not 0A000: " + e.getMessage());
        }
    }

    /** HikariCP with catalog set (it calls setCatalog on every new connection) keeps its connections; another database is a refusal. */
    @Test
    void setCatalogToTheDatabaseIsANoOpAndToAnotherARefusal() throws Exception {
        PoolEvictions.clear();
        var config = new HikariConfig();
        config.setJdbcUrl(differential.router.url());
        config.setUsername(TestRouter.USER);
        config.setPassword(TestRouter.PASSWORD);
        config.setMaximumPoolSize(1);
        config.setCatalog(differential.router.database);
        config.setExceptionOverrideClassName(PoolEvictions.class.getName());
        try (var pool = new HikariDataSource(config)) {
            Object physical;
            try (Connection c = pool.getConnection()) {
                physical = c.unwrap(org.lutra.jdbc.LutraConnection.class);
                assertEquals(differential.router.database, c.getCatalog());
                c.setCatalog(differential.router.database);
                var e = assertThrows(SQLException.class, () -> c.setCatalog("elsewhere"));
                org.lutra.Refusals.assertRefusal(e, "setCatalog('elsewhere')");
                try (var st = c.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_READ_ONLY);
                     var rs = st.executeQuery("SELECT COUNT(*) FROM t")) {
                    assertTrue(rs.last());
                    assertEquals(ROWS, rs.getInt(1));
                }
            }
            try (Connection again = pool.getConnection()) {
                assertSame(physical, again.unwrap(org.lutra.jdbc.LutraConnection.class), "the pool kept its connection");
            }
            assertEquals(List.of(), PoolEvictions.seen(), "HikariCP evicted no connection");
        }
    }

    private static String randomMove(SplittableRandom r) {
        return switch (r.nextInt(9)) {
            case 0 -> "next";
            case 1 -> "previous";
            case 2 -> "first";
            case 3 -> "last";
            case 4 -> "beforeFirst";
            case 5 -> "afterLast";
            case 6 -> "absolute " + (r.nextInt(2 * ROWS + 5) - ROWS - 2);
            case 7 -> "relative " + (r.nextInt(41) - 20);
            default -> "next";
        };
    }

    /** What the move answers and where the result is then: the flags, the row number and the current row's id. */
    private static String apply(ResultSet rs, String move) throws SQLException {
        String[] words = move.split(" ");
        Object answer = switch (words[0]) {
            case "next" -> rs.next();
            case "previous" -> rs.previous();
            case "first" -> rs.first();
            case "last" -> rs.last();
            case "beforeFirst" -> {
                rs.beforeFirst();
                yield "-";
            }
            case "afterLast" -> {
                rs.afterLast();
                yield "-";
            }
            case "absolute" -> rs.absolute(Integer.parseInt(words[1]));
            default -> rs.relative(Integer.parseInt(words[1]));
        };
        boolean onRow = rs.getRow() > 0;
        return answer + " row " + rs.getRow() + " before " + rs.isBeforeFirst() + " after " + rs.isAfterLast() + " first " + rs.isFirst()
                + " last " + rs.isLast() + " id " + (onRow ? rs.getString(1) : "-");
    }
}
