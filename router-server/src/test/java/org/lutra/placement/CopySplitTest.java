package org.lutra.placement;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.*;

/** The two halves of an unkeyed write while keys are replicated: the rows a partition counts, and the copies it keeps for another primary. */
class CopySplitTest {
    private static final String NOT_A_COPY = "(`users`.`id` IS NULL OR `users`.`id` NOT IN (SELECT k FROM `lutra_place_users` WHERE partitions LIKE '%,%'"
            + " AND SUBSTRING_INDEX(partitions, ',', 1) <> 'p2'))";

    @Test
    void theWhereClauseGetsTheRestrictionAndKeepsItsOwnPrecedence() throws SQLException {
        assertEquals("UPDATE users SET karma = karma + ? WHERE (name = ? OR karma > 3) AND " + NOT_A_COPY,
                CopySplit.ownRows("UPDATE users SET karma = karma + ? WHERE name = ? OR karma > 3", "users", "id", "p2"));
        assertEquals("UPDATE users SET karma = 0 WHERE NOT " + NOT_A_COPY,
                CopySplit.copiedRows("UPDATE users SET karma = 0", "users", "id", "p2"));
        assertEquals("DELETE FROM followers f WHERE (f.destination = 9) AND (f.`source` IS NULL OR f.`source` NOT IN (SELECT k FROM `lutra_place_users`"
                        + " WHERE partitions LIKE '%,%' AND SUBSTRING_INDEX(partitions, ',', 1) <> 'p0'))",
                CopySplit.ownRows("DELETE FROM followers f WHERE f.destination = 9", "users", "source", "p0"));
    }

    @Test
    void otherShapesAreRefused() {
        for (String sql : new String[] {"UPDATE users u JOIN followers f ON f.source = u.id SET u.karma = 0", "DELETE u FROM users u JOIN followers f ON f.source = u.id",
                "INSERT INTO users (id) VALUES (1)", "UPDATE users SET karma = ("}) {
            org.lutra.Refusals.assertRefusal(assertThrows(SQLException.class, () -> CopySplit.ownRows(sql, "users", "id", "p0"), sql));
        }
    }
}
