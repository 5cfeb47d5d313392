package org.lutra.placement;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The shard SQL of a scan while keys are replicated: every table of the group read without the copies a partition holds for another. */
class ReplicaScansTest {
    private static final Map<String, String> GROUP = Map.of("users", "id", "followers", "source");

    private String rewrite(String sql) throws SQLException {
        return ReplicaScans.withoutCopies(sql, "users", GROUP, "p1");
    }

    private static String without(String table, String column) {
        return "(SELECT * FROM `" + table + "` WHERE (`" + column + "` IS NULL OR `" + column + "` NOT IN (SELECT k FROM `lutra_place_users`"
                + " WHERE partitions LIKE '%,%' AND SUBSTRING_INDEX(partitions, ',', 1) <> 'p1')))";
    }

    private static final String USERS = without("users", "id");
    private static final String FOLLOWERS = without("followers", "source");

    @Test
    void aSingleTableScanReadsADerivedTableOfTheSameName() throws SQLException {
        assertEquals("SELECT COUNT(*), SUM(karma) FROM " + USERS + " `users`", rewrite("SELECT COUNT(*), SUM(karma) FROM users"));
        assertEquals("SELECT u.name, WEIGHT_STRING(u.name AS CHAR(64)) FROM " + USERS + " u WHERE karma > ? ORDER BY u.name LIMIT 3",
                rewrite("SELECT u.name, WEIGHT_STRING(u.name AS CHAR(64)) FROM users u WHERE karma > ? ORDER BY u.name LIMIT 3"));
        assertEquals("SELECT name FROM " + USERS + " `users` WHERE name = ?", rewrite("SELECT name FROM `users` WHERE name = ?"));
        assertEquals("SELECT COUNT(*) FROM " + FOLLOWERS + " `followers`", rewrite("SELECT COUNT(*) FROM followers"));
    }

    private static String locked(String derived, String clause) {
        return derived.substring(0, derived.length() - 1) + " " + clause + ")";
    }

    /**
     * A locking SELECT's clause locks the rows of its own tables only, not those of a derived table in its FROM (on MariaDB
     * a SUM over the derived table answered at once while another transaction held a row FOR UPDATE): each derived table
     * that stands for one of its tables carries the clause itself; tables the clause does not reach on MariaDB (in
     * subqueries, derived tables, a UNION's earlier SELECTs) stay without it.
     */
    @Test
    void aLockingSelectsDerivedTablesLockTheirRows() throws SQLException {
        assertEquals("SELECT users.name FROM " + locked(USERS, "LOCK IN SHARE MODE") + " `users` WHERE users.id > 3 LOCK IN SHARE MODE",
                rewrite("SELECT users.name FROM users WHERE users.id > 3 LOCK IN SHARE MODE"));
        assertEquals("SELECT SUM(karma) FROM " + locked(USERS, "LOCK IN SHARE MODE SKIP LOCKED") + " `users` LOCK IN SHARE MODE SKIP LOCKED",
                rewrite("SELECT SUM(karma) FROM users LOCK IN SHARE MODE SKIP LOCKED"));
        assertEquals("SELECT SUM(karma) FROM " + locked(USERS, "FOR UPDATE NOWAIT") + " u for update nowait",
                rewrite("SELECT SUM(karma) FROM users u for update nowait"));
        assertEquals("SELECT id FROM " + locked(USERS, "FOR UPDATE WAIT 2") + " `users` ORDER BY id LIMIT 3 FOR UPDATE WAIT 2",
                rewrite("SELECT id FROM users ORDER BY id LIMIT 3 FOR UPDATE WAIT 2"));
        assertEquals("SELECT COUNT(*) FROM " + locked(USERS, "FOR UPDATE") + " u JOIN " + locked(FOLLOWERS, "FOR UPDATE") + " f ON f.source = u.id FOR UPDATE",
                rewrite("SELECT COUNT(*) FROM users u JOIN followers f ON f.source = u.id FOR UPDATE"));
        assertEquals("SELECT COUNT(*) FROM country c JOIN (" + locked(USERS, "FOR UPDATE") + " u JOIN " + locked(FOLLOWERS, "FOR UPDATE")
                        + " f ON f.source = u.id) ON c.code = u.karma FOR UPDATE",
                rewrite("SELECT COUNT(*) FROM country c JOIN (users u JOIN followers f ON f.source = u.id) ON c.code = u.karma FOR UPDATE"));
        // the subquery's rows and the derived table's are not locked by the outer clause on MariaDB either
        assertEquals("SELECT id FROM " + locked(USERS, "FOR UPDATE") + " `users` WHERE id IN (SELECT source FROM " + FOLLOWERS + " `followers`) FOR UPDATE",
                rewrite("SELECT id FROM users WHERE id IN (SELECT source FROM followers) FOR UPDATE"));
        assertEquals("SELECT x.n FROM (SELECT COUNT(*) AS n FROM " + FOLLOWERS + " `followers`) x LOCK IN SHARE MODE",
                rewrite("SELECT x.n FROM (SELECT COUNT(*) AS n FROM followers) x LOCK IN SHARE MODE"));
        // a UNION's clause locks its last SELECT's rows only
        assertEquals("SELECT id FROM " + USERS + " `users` WHERE id = 3 UNION ALL SELECT source FROM " + locked(FOLLOWERS, "FOR UPDATE") + " `followers` FOR UPDATE",
                rewrite("SELECT id FROM users WHERE id = 3 UNION ALL SELECT source FROM followers FOR UPDATE"));
        // a subquery's own clause locks its own rows
        assertEquals("SELECT id FROM " + USERS + " `users` WHERE id IN (SELECT source FROM " + locked(FOLLOWERS, "FOR UPDATE") + " `followers` FOR UPDATE)",
                rewrite("SELECT id FROM users WHERE id IN (SELECT source FROM followers FOR UPDATE)"));
    }

    @Test
    void everyReferenceInJoinsSubqueriesAndDerivedTablesIsReplaced() throws SQLException {
        assertEquals("SELECT COUNT(*) FROM " + USERS + " u JOIN " + FOLLOWERS + " f ON f.source = u.id",
                rewrite("SELECT COUNT(*) FROM users u JOIN followers AS f ON f.source = u.id"));
        assertEquals("SELECT COUNT(*) FROM " + USERS + " `users` WHERE id IN (SELECT source FROM " + FOLLOWERS + " `followers`)",
                rewrite("SELECT COUNT(*) FROM users WHERE id IN (SELECT source FROM followers)"));
        assertEquals("SELECT (SELECT COUNT(*) FROM " + FOLLOWERS + " f WHERE f.source = u.id) AS n FROM " + USERS + " u WHERE u.name = 'from users'",
                rewrite("SELECT (SELECT COUNT(*) FROM followers f WHERE f.source = u.id) AS n FROM users u WHERE u.name = 'from users'"));
        // a result column without an alias keeps its text, MariaDB's label for it (found by RandomQueryIT): the outer row is filtered
        assertEquals("SELECT (SELECT COUNT(*) FROM followers f WHERE f.source = u.id) FROM " + USERS + " u",
                rewrite("SELECT (SELECT COUNT(*) FROM followers f WHERE f.source = u.id) FROM users u"));
        assertEquals("SELECT x.n FROM (SELECT COUNT(*) AS n FROM " + FOLLOWERS + " `followers` GROUP BY source) x",
                rewrite("SELECT x.n FROM (SELECT COUNT(*) AS n FROM followers GROUP BY source) x"));
        assertEquals("SELECT c.name FROM country c JOIN " + USERS + " u ON u.karma = c.code", // a REPLICATED table stays as it is
                rewrite("SELECT c.name FROM country c JOIN users u ON u.karma = c.code"));
    }

    @Test
    void whatIsNotCertainIsRefused() {
        for (String sql : List.of(
                "WITH users AS (SELECT 1 AS id) SELECT COUNT(*) FROM users", // the name is a CTE's, not the table
                "WITH x AS (SELECT 1), `followers` (a) AS (SELECT 2) SELECT COUNT(*) FROM users",
                "SELECT COUNT(*) FROM followers users", // an alias with a group table's name
                "SELECT followers FROM users", // a column with one
                "SELECT COUNT(*) FROM social_p1.users", // another database's table
                "SELECT COUNT(*) FROM users WHERE id = ? AND ( /* not parsed */")) {
            var e = assertThrows(SQLException.class, () -> rewrite(sql), sql);
            org.lutra.Refusals.assertRefusal(e);
        }
    }

    @Test
    void sortKeysWithCallsInsideAreRead() throws SQLException {
        assertEquals("SELECT MAX(s), WEIGHT_STRING(MAX(s) AS CHAR(20)) FROM " + USERS + " `users`",
                rewrite("SELECT MAX(s), WEIGHT_STRING(MAX(s) AS CHAR(20)) FROM users"));
        var text = new StringBuilder("WEIGHT_STRING(LOWER(CONCAT(s, ')')) AS BINARY(9)), weight_string(x AS CHAR(3))");
        ReplicaScans.blankWeightStringTypes(text);
        assertEquals("WEIGHT_STRING(LOWER(CONCAT(s, ')'))             ), weight_string(x           )", text.toString());
    }

    @Test
    void wordsSkipStringsAndCommentsAndUnquoteNames() {
        assertEquals(List.of("SELECT", "''", ",", "a b", "FROM", "t", "."), ReplicaScans.words("SELECT 'it''s \\' users', `a b` /* users */ FROM t # users\n."));
    }
}
