package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.sql.PlanException;

import static org.junit.jupiter.api.Assertions.*;

class UpsertAfterJoinTest {
    private static final long BUDGET_MS = 5_000;

    @Test
    void anUpsertRightAfterAJoinsConditionParsesAsWritten() throws PlanException {
        for (String sql : new String[] {
                "INSERT INTO t (a, b) SELECT x.a, y.b FROM x JOIN y ON x.id = y.id ON DUPLICATE KEY UPDATE b = VALUES(b)",
                "INSERT INTO t (a, b) SELECT x.a, y.b FROM x LEFT JOIN y ON (x.id = y.id) ON DUPLICATE KEY UPDATE b = VALUES(b)",
                "INSERT INTO t (a, b) SELECT a, b FROM u UNION SELECT x.a, y.b FROM x JOIN y ON x.id = y.id ON DUPLICATE KEY UPDATE b = VALUES(b)"}) {
            String read = Parsing.parse(sql, BUDGET_MS).toString();
            assertFalse(read.toUpperCase().contains("WHERE"), read);
            assertTrue(read.contains("ON x.id = y.id") || read.contains("ON (x.id = y.id)"), read);
            assertTrue(read.endsWith("ON DUPLICATE KEY UPDATE b = VALUES(b)"), read);
        }
    }

    @Test
    void aWhereTheClientWroteStays() throws PlanException {
        String read = Parsing.parse("INSERT INTO t (a) SELECT x.a FROM x JOIN y ON x.id = y.id WHERE TRUE ON DUPLICATE KEY UPDATE a = 1", BUDGET_MS).toString();
        assertTrue(read.toUpperCase().contains("WHERE TRUE"), read);
    }

    @Test
    void onlyATopLevelClauseOfAnInsertCounts() {
        assertNull(UpsertAfterJoin.forParser("SELECT * FROM x JOIN y ON x.id = y.id ON DUPLICATE KEY UPDATE a = 1"));
        assertNull(UpsertAfterJoin.forParser("INSERT INTO t SELECT * FROM x WHERE s = 'ON DUPLICATE KEY UPDATE'"));
        assertNull(UpsertAfterJoin.forParser("INSERT INTO t SELECT * FROM x /* ON DUPLICATE KEY UPDATE */"));
        assertEquals("INSERT INTO t SELECT * FROM x JOIN y ON x.id = y.id  WHERE TRUE ON DUPLICATE KEY UPDATE a = 1",
                UpsertAfterJoin.forParser("INSERT INTO t SELECT * FROM x JOIN y ON x.id = y.id ON DUPLICATE KEY UPDATE a = 1"));
    }

    @Test
    void otherSyntaxErrorsStaySyntaxErrors() {
        var e = assertThrows(PlanException.class, () -> Parsing.parse(
                "INSERT INTO t (a) SELECT x.a FROM x JOIN y ON x.id = y.id GARBAGE ON DUPLICATE KEY UPDATE a = 1", BUDGET_MS));
        assertEquals(1064, e.getErrorCode());
        // a parenthesized select: the added WHERE does not parse after it, and the error is the client's text's
        var p = assertThrows(PlanException.class, () -> Parsing.parse(
                "INSERT INTO t (a) (SELECT x.a FROM x JOIN y ON x.id = y.id ON y.b = 1) ON DUPLICATE KEY UPDATE a = 1 ON", BUDGET_MS));
        assertEquals(1064, p.getErrorCode());
    }
}
