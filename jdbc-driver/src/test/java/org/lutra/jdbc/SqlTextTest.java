package org.lutra.jdbc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SqlTextTest {
    @Test
    void countsPlaceholdersOutsideQuotesAndComments() {
        assertEquals(0, SqlText.countParameters("SELECT 1"));
        assertEquals(2, SqlText.countParameters("SELECT * FROM t WHERE a = ? AND b = ?"));
        assertEquals(1, SqlText.countParameters("SELECT '?', \"?\", `a?b` FROM t WHERE c = ?"));
        assertEquals(1, SqlText.countParameters("SELECT 'it''s ?' , 'esc \\' ?' FROM t WHERE c = ?"));
        assertEquals(1, SqlText.countParameters("SELECT ? -- what?\n"));
        assertEquals(1, SqlText.countParameters("SELECT ? # what?"));
        assertEquals(1, SqlText.countParameters("SELECT /* ? */ ?"));
        assertEquals(2, SqlText.countParameters("SELECT ?--?"), "'--' without a following space is not a comment in MySQL");
        assertEquals(0, SqlText.countParameters("SELECT 'unterminated ?"));
        assertEquals(0, SqlText.countParameters("SELECT 1 /* unterminated ?"));
        assertEquals(3, SqlText.countParameters("INSERT INTO t VALUES (?, ?, ?)"));
    }
}
