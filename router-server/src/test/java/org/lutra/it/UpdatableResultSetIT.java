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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.*;

/**
 * CONCUR_UPDATABLE results (updateXxx, updateRow, deleteRow, insertRow, refreshRow, ...) through
 * Lutra next to Connector/J's over the same rows on one plain MariaDB: the same calls on both, each
 * answering the same, then the same tables. TYPE_SCROLL_SENSITIVE is given as TYPE_SCROLL_INSENSITIVE
 * with a warning on the connection.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UpdatableResultSetIT {
    static final String SCHEMA = """
            CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(40), qty INT NOT NULL DEFAULT 7, price DECIMAL(10,2)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE pair (a INT, b INT, note VARCHAR(20), PRIMARY KEY (a, b)) PARTITION BY hash(a) ON (p0, p1, p2, p3);
            CREATE TABLE loose (x INT, y INT) PARTITION BY hash(x) ON (p0, p1);
            CREATE TABLE orders (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, note VARCHAR(40)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            """;
    static final List<String> QUERIES = List.of(
            "SELECT id, name, qty, price FROM item ORDER BY id",
            "SELECT * FROM item WHERE qty > 3 ORDER BY id",
            "SELECT name, id, price FROM item WHERE id < 40 ORDER BY name, id",
            "SELECT i.id AS k, i.qty AS q, i.name FROM item i ORDER BY i.id DESC",
            "SELECT a, b, note FROM pair ORDER BY a, b",
            "SELECT note, b, a FROM pair WHERE a > 3 ORDER BY b, a");

    Differential differential;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "updrsit", SCHEMA);
        var items = new ArrayList<String>();
        for (int id = 1; id <= 30; id++) items.add("(" + id + ", 'n" + id % 9 + "', " + id % 11 + ", " + id * 1.25 + ")");
        differential.both("INSERT INTO item VALUES " + String.join(", ", items));
        var pairs = new ArrayList<String>();
        for (int a = 1; a <= 8; a++) for (int b = 1; b <= 3; b++) pairs.add("(" + a + ", " + b * 10 + ", 'p" + a * b + "')");
        differential.both("INSERT INTO pair VALUES " + String.join(", ", pairs));
        differential.both("INSERT INTO loose VALUES (1, 2), (3, 4)");
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    /** Random sequences of updatable-result-set calls, the same on both drivers; a failure names the seed (-Dlutra.updrs.seed). */
    @Test
    void randomUpdatesAnswerAsConnectorJsAndLeaveTheSameTables() throws SQLException {
        long seed = Long.getLong("lutra.updrs.seed", System.nanoTime());
        var r = new SplittableRandom(seed);
        var lutra = differential.lutra;
        var reference = differential.reference;
        var done = new java.util.TreeMap<String, Integer>();
        for (int round = 0; round < 24; round++) {
            int type = r.nextBoolean() ? ResultSet.TYPE_SCROLL_INSENSITIVE : ResultSet.TYPE_FORWARD_ONLY;
            String sql = QUERIES.get(r.nextInt(QUERIES.size()));
            boolean transaction = r.nextInt(3) == 0;
            boolean prepared = r.nextBoolean();
            lutra.setAutoCommit(!transaction);
            reference.setAutoCommit(!transaction);
            var log = new ArrayList<String>();
            String where = "seed " + seed + " round " + round + " " + (type == ResultSet.TYPE_FORWARD_ONLY ? "forward-only" : "scrollable")
                    + (transaction ? " in a transaction" : "") + (prepared ? " prepared" : "") + " " + sql;
            try (var ls = prepared ? lutra.prepareStatement(sql, type, ResultSet.CONCUR_UPDATABLE) : lutra.createStatement(type, ResultSet.CONCUR_UPDATABLE);
                 var rs = prepared ? reference.prepareStatement(sql, type, ResultSet.CONCUR_UPDATABLE) : reference.createStatement(type, ResultSet.CONCUR_UPDATABLE);
                 var l = prepared ? ((java.sql.PreparedStatement) ls).executeQuery() : ls.executeQuery(sql);
                 var ref = prepared ? ((java.sql.PreparedStatement) rs).executeQuery() : rs.executeQuery(sql)) {
                assertEquals(ResultSet.CONCUR_UPDATABLE, ref.getConcurrency(), "the reference result is updatable: " + sql);
                assertEquals(ref.getConcurrency(), l.getConcurrency(), where);
                assertEquals(ref.getType(), l.getType(), where);
                for (int i = 0; i < 40; i++) {
                    String op = randomOperation(r, ref.getMetaData(), type);
                    log.add(op);
                    String expected = apply(ref, op, reference);
                    String actual = apply(l, op, lutra);
                    assertEquals(expected, actual, where + ": " + log);
                    String kind = expected.startsWith("throws") ? "failed" : expected.substring(0, expected.indexOf(' '));
                    done.merge(op.split(" ")[0] + (op.endsWith(" row") || op.endsWith(" cancel") ? op.substring(op.lastIndexOf(' ')) : "") + " " + kind, 1, Integer::sum);
                    if (transaction && SERVER_ERROR.matcher(expected).find()) {
                        // Lutra rolls the whole transaction back after an error in it (docs/transactions.md); MariaDB keeps it
                        lutra.rollback();
                        reference.rollback();
                        log.add("ROLLBACK after the error");
                        transaction = false;
                        break;
                    }
                }
            }
            if (transaction) {
                boolean commit = r.nextBoolean();
                log.add(commit ? "COMMIT" : "ROLLBACK");
                if (commit) {
                    lutra.commit();
                    reference.commit();
                } else {
                    lutra.rollback();
                    reference.rollback();
                }
            }
            for (String table : List.of("SELECT * FROM item ORDER BY id", "SELECT * FROM pair ORDER BY a, b")) {
                assertEquals(rows(reference, table), rows(lutra, table), where + ": " + log);
            }
        }
        lutra.setAutoCommit(true);
        reference.setAutoCommit(true);
        System.out.println("UpdatableResultSetIT seed " + seed + ": " + done);
        for (String kind : List.of("update row row", "update cancel cancel", "delete deleted", "insert inserted", "touch refreshed")) {
            assertTrue(done.getOrDefault(kind, 0) >= 3, "the random run did too few " + kind + " (seed " + seed + "): " + done);
        }
    }

    private static final java.util.regex.Pattern SERVER_ERROR = java.util.regex.Pattern.compile("^throws [0-9A-Z]{5}/[1-9]");

    /** An operation on an updatable result, as text so a failure can show the sequence. */
    private static String randomOperation(SplittableRandom r, java.sql.ResultSetMetaData md, int type) throws SQLException {
        boolean scrollable = type == ResultSet.TYPE_SCROLL_INSENSITIVE;
        // The shard keys (item.id, pair.a) are not changed: moving a row between partitions is refused (docs/sql.md); pair.b, a key column, is.
        var changeable = new ArrayList<Integer>();
        for (int i = 1; i <= md.getColumnCount(); i++) if (!List.of("id", "a").contains(md.getColumnName(i))) changeable.add(i);
        int pick = r.nextInt(scrollable ? 14 : 10);
        return switch (pick) {
            case 0, 1, 2 -> "next";
            case 3 -> "update " + randomChanges(r, changeable, false) + " row";
            case 4 -> "update " + randomChanges(r, changeable, false) + " cancel";
            case 5 -> "delete";
            case 6 -> "insert " + randomChanges(r, allColumns(md.getColumnCount()), true);
            case 7 -> "touch"; // another statement on the connection changes the current row; then refreshRow
            case 8 -> "insertRowOffTheInsertRow";
            case 9 -> "rowUpdated";
            case 10 -> "previous";
            case 11 -> "absolute " + (r.nextInt(70) - 35);
            case 12 -> "first";
            default -> "last";
        };
    }

    private static List<Integer> allColumns(int n) {
        var all = new ArrayList<Integer>();
        for (int i = 1; i <= n; i++) all.add(i);
        return all;
    }

    /** column=value pairs; {@code all}: every column (an insert), else one to three of them. */
    private static String randomChanges(SplittableRandom r, List<Integer> columns, boolean all) {
        var changes = new ArrayList<String>();
        int n = all ? columns.size() : 1 + r.nextInt(Math.min(3, columns.size()));
        for (int i = 0; i < n; i++) {
            int column = all ? columns.get(i) : columns.get(r.nextInt(columns.size()));
            changes.add(column + "=" + (r.nextInt(8) == 0 ? "null" : Integer.toString(r.nextInt(60) + 1)));
        }
        return String.join(",", changes);
    }

    /** Applies the operation; what it answered and where the result then is, with the current row's values. */
    private static String apply(ResultSet rs, String op, Connection connection) {
        String[] words = op.split(" ");
        String answer;
        try {
            answer = switch (words[0]) {
                case "next" -> String.valueOf(rs.next());
                case "previous" -> String.valueOf(rs.previous());
                case "first" -> String.valueOf(rs.first());
                case "last" -> String.valueOf(rs.last());
                case "absolute" -> String.valueOf(rs.absolute(Integer.parseInt(words[1])));
                case "update" -> {
                    if (rs.getRow() == 0) yield "no row"; // Connector/J fails with a NullPointerException there
                    set(rs, words[1]);
                    if (words[2].equals("row")) {
                        try {
                            rs.updateRow();
                        } catch (SQLException e) {
                            // a failed updateRow leaves its changes pending, and Connector/J's refreshRow then looks the row up
                            // by a pending key column's value ("deleted or had primary key changed"), a quirk Lutra does not
                            // copy: the changes are cancelled, and the sequence goes on from the row as it is
                            rs.cancelRowUpdates();
                            throw e;
                        }
                    } else {
                        rs.cancelRowUpdates();
                    }
                    yield words[2];
                }
                case "delete" -> {
                    rs.deleteRow();
                    yield "deleted";
                }
                case "insert" -> {
                    // after the last row (or anywhere in an empty result) Connector/J's position would then name the new row
                    // with no current row (a quirk: a next() after it lands on the new row)
                    if (rs.isAfterLast() || rs.getRow() == 0 && !rs.isBeforeFirst()) yield "after the last row";
                    rs.moveToInsertRow();
                    set(rs, words[1]);
                    String onInsertRow = values(rs);
                    try {
                        rs.insertRow();
                    } finally {
                        // also after a failed insert: Connector/J's moveToInsertRow, called again on the insert row, would
                        // take the insert row for the current one (a quirk Lutra does not copy)
                        rs.moveToCurrentRow();
                    }
                    yield "inserted " + onInsertRow;
                }
                case "touch" -> {
                    if (rs.getRow() == 0) yield "no row";
                    var md = rs.getMetaData();
                    boolean item = md.getTableName(1).equals("item");
                    String sql = item ? "UPDATE item SET qty = qty + 1 WHERE id = ? AND 0 = ?" : "UPDATE pair SET note = CONCAT(note, '+') WHERE a = ? AND b = ?";
                    try (var ps = connection.prepareStatement(sql)) {
                        ps.setInt(1, rs.getInt(findColumn(md, item ? "id" : "a")));
                        ps.setInt(2, item ? 0 : rs.getInt(findColumn(md, "b")));
                        ps.executeUpdate();
                    }
                    rs.refreshRow();
                    yield "refreshed";
                }
                case "insertRowOffTheInsertRow" -> {
                    rs.insertRow();
                    yield "inserted";
                }
                case "rowUpdated" -> String.valueOf(rs.rowUpdated());
                default -> throw new IllegalArgumentException(op);
            };
        } catch (SQLFeatureNotSupportedException e) {
            answer = "not supported";
        } catch (SQLException e) {
            // the server's errors by state and code (Lutra names the partition in the message); the drivers' own by message
            answer = "throws " + (e.getErrorCode() != 0 ? e.getSQLState() + "/" + e.getErrorCode() : e.getMessage());
        }
        return answer + " | " + position(rs);
    }

    private static int findColumn(java.sql.ResultSetMetaData md, String name) throws SQLException {
        for (int i = 1; i <= md.getColumnCount(); i++) if (md.getColumnName(i).equals(name)) return i;
        throw new AssertionError(name);
    }

    /** Sets column=value pairs: numbers to numeric columns, text (with the number in it) to text ones; "null" as updateNull. */
    private static void set(ResultSet rs, String changes) throws SQLException {
        var md = rs.getMetaData();
        for (String change : changes.split(",")) {
            int column = Integer.parseInt(change.substring(0, change.indexOf('=')));
            String value = change.substring(change.indexOf('=') + 1);
            if (value.equals("null")) {
                rs.updateNull(column);
            } else if (md.getColumnTypeName(column).startsWith("VARCHAR")) {
                rs.updateString(column, "v" + value);
            } else if (md.getColumnTypeName(column).startsWith("DECIMAL")) {
                rs.updateBigDecimal(column, new BigDecimal(value).movePointLeft(1));
            } else {
                rs.updateInt(column, Integer.parseInt(value) + 100); // keys beyond the rows' own, mostly
            }
        }
    }

    private static String position(ResultSet rs) {
        try {
            int row = rs.getRow();
            return "row " + row + (row > 0 ? " " + values(rs) : "");
        } catch (SQLException e) {
            return "position throws " + e.getMessage();
        }
    }

    private static String values(ResultSet rs) throws SQLException {
        var values = new ArrayList<String>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) values.add(rs.getString(i));
        return values.toString();
    }

    private static List<String> rows(Connection c, String sql) throws SQLException {
        var rows = new ArrayList<String>();
        try (var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            while (rs.next()) rows.add(values(rs));
        }
        return rows;
    }

    /** Connector/J's rules: one table, its whole primary key; else CONCUR_READ_ONLY and NotUpdatable on writes, with the same reason. */
    @Test
    void resultsThatAreNotUpdatableSayWhyAsConnectorJ() throws SQLException {
        for (String sql : List.of(
                "SELECT id, name FROM item WHERE id = 1",
                "SELECT name, qty FROM item WHERE id = 1",
                "SELECT a, note FROM pair WHERE a = 1",
                "SELECT id, id, name FROM item WHERE id = 1",
                "SELECT id, qty + 1 FROM item WHERE id = 1",
                "SELECT x, y FROM loose WHERE x = 1",
                "SELECT COUNT(*) FROM item")) {
            try (var ls = differential.lutra.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE);
                 var rs = differential.reference.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE);
                 var l = ls.executeQuery(sql); var ref = rs.executeQuery(sql)) {
                assertEquals(ref.getConcurrency(), l.getConcurrency(), sql);
                assertTrue(l.next() & ref.next(), sql);
                String update = "update " + Math.min(2, ref.getMetaData().getColumnCount()) + "=5 row";
                String expected = apply(ref, update, differential.reference);
                assertEquals(expected, apply(l, update, differential.lutra), sql);
                if (l.getConcurrency() == ResultSet.CONCUR_READ_ONLY) {
                    assertTrue(expected.startsWith("throws Result Set not updatable ("), sql + ": " + expected);
                    assertNotNull(l.getWarnings(), "Lutra's result set warns that it is read-only: " + sql);
                    assertEquals(apply(ref, "insert 1=3", differential.reference), apply(l, "insert 1=3", differential.lutra), sql);
                }
            }
        }
        // a CONCUR_READ_ONLY statement's result: every write is NotUpdatable (it was 0A000, which pools evict for)
        try (var ls = differential.lutra.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_READ_ONLY);
             var rs = differential.reference.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_READ_ONLY);
             var l = ls.executeQuery("SELECT id, name FROM item WHERE id = 1"); var ref = rs.executeQuery("SELECT id, name FROM item WHERE id = 1")) {
            assertTrue(l.next() & ref.next());
            for (String op : List.of("update 2=5 row", "update 2=5 cancel", "delete", "insert 1=3,2=4", "insertRowOffTheInsertRow")) {
                assertEquals(apply(ref, op, differential.reference), apply(l, op, differential.lutra), "read-only: " + op);
            }
        }
        assertEquals(rows(differential.reference, "SELECT * FROM item ORDER BY id"), rows(differential.lutra, "SELECT * FROM item ORDER BY id"));
    }

    /** JDBC: a type the driver cannot give becomes the closest one, with a warning on the connection; updatable still works there. */
    @Test
    void scrollSensitiveIsGivenAsScrollInsensitiveWithAWarning() throws SQLException {
        var lutra = differential.lutra;
        lutra.clearWarnings();
        try (var st = lutra.prepareStatement("SELECT id, name FROM item WHERE id = ?", ResultSet.TYPE_SCROLL_SENSITIVE, ResultSet.CONCUR_UPDATABLE)) {
            assertNotNull(lutra.getWarnings());
            assertEquals("01S02", lutra.getWarnings().getSQLState());
            assertEquals(ResultSet.TYPE_SCROLL_INSENSITIVE, st.getResultSetType());
            st.setInt(1, 2);
            try (var rs = st.executeQuery()) {
                assertEquals(ResultSet.TYPE_SCROLL_INSENSITIVE, rs.getType());
                assertEquals(ResultSet.CONCUR_UPDATABLE, rs.getConcurrency());
                assertTrue(rs.last());
                String before = rs.getString(2);
                rs.updateString(2, "sensitive?");
                rs.updateRow();
                assertEquals("sensitive?", rs.getString(2));
                rs.updateString(2, before);
                rs.updateRow();
            }
        }
        var md = lutra.getMetaData();
        assertFalse(md.supportsResultSetType(ResultSet.TYPE_SCROLL_SENSITIVE));
        assertTrue(md.supportsResultSetConcurrency(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE));
        lutra.clearWarnings();
        assertNull(lutra.getWarnings());
    }

    /**
     * Lutra alone (its AUTO_INCREMENT values are its own, not one MariaDB's): insertRow without the key reads the row back by the
     * value the insert generated; changing the routing column is the router's refusal, and the result goes on.
     */
    @Test
    void insertRowReadsBackTheGeneratedKeyAndARoutingKeyChangeMovesTheRow() throws SQLException {
        var lutra = differential.lutra;
        try (var st = lutra.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE);
             var rs = st.executeQuery("SELECT id, note FROM orders")) {
            assertEquals(ResultSet.CONCUR_UPDATABLE, rs.getConcurrency());
            rs.moveToInsertRow();
            rs.updateString("note", "first");
            rs.insertRow();
            rs.moveToCurrentRow();
            assertTrue(rs.last());
            long id = rs.getLong("id");
            assertTrue(id > 0, "the generated id, read back: " + id);
            assertEquals("first", rs.getString("note"));
            try (var check = lutra.prepareStatement("SELECT note FROM orders WHERE id = ?")) {
                check.setLong(1, id);
                try (var row = check.executeQuery()) {
                    assertTrue(row.next());
                    assertEquals("first", row.getString(1));
                }
            }
            // the routing column changed: the router moves the row to where its new id lives
            rs.updateLong("id", id + 1000);
            rs.updateRow();
            assertEquals(id + 1000, rs.getLong("id"));
            try (var check = lutra.prepareStatement("SELECT note FROM orders WHERE id = ?")) {
                check.setLong(1, id + 1000);
                try (var row = check.executeQuery()) {
                    assertTrue(row.next(), "the moved row under its new id");
                    assertEquals("first", row.getString(1));
                }
                check.setLong(1, id);
                try (var row = check.executeQuery()) {
                    assertFalse(row.next(), "nothing left under the old id");
                }
            }
            rs.updateString("note", "second");
            rs.updateRow();
            assertEquals("second", rs.getString("note"));
            assertEquals(id + 1000, rs.getLong("id"));
            rs.deleteRow();
            assertFalse(rs.last(), "the only row is gone");
        }
        assertEquals(List.of(), rows(lutra, "SELECT * FROM orders"));
    }
}
