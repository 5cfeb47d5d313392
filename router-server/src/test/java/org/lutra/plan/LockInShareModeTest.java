package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.sql.Guards;
import org.lutra.sql.LockInShareMode;
import org.lutra.sql.PlanException;

import static org.junit.jupiter.api.Assertions.*;

class LockInShareModeTest {
    private static final long BUDGET_MS = 5_000;

    @Test
    void aTrailingClauseIsSpelledForShareInPlace() {
        assertEquals("SELECT * FROM t WHERE id = 1 FOR     SHARE     ", LockInShareMode.forParser("SELECT * FROM t WHERE id = 1 LOCK IN SHARE MODE"));
        assertEquals("select * from t FOR     share      wait 5", LockInShareMode.forParser("select * from t lock in share mode wait 5"));
        assertEquals("SELECT * FROM t FOR     SHARE      NOWAIT;", LockInShareMode.forParser("SELECT * FROM t LOCK IN SHARE MODE NOWAIT;"));
        assertEquals("SELECT * FROM t FOR     SHARE      SKIP LOCKED  -- why\n", LockInShareMode.forParser("SELECT * FROM t LOCK IN SHARE MODE SKIP LOCKED  -- why\n"));
    }

    @Test
    void commentsAndLineBreaksBetweenTheWordsStayWhereTheyWere() {
        String sql = "SELECT *\nFROM t\nLOCK /* a */ IN\n  SHARE # b\n MODE\n";
        String read = LockInShareMode.forParser(sql);
        assertEquals("SELECT *\nFROM t\nFOR  /* a */   \n  SHARE # b\n     \n", read);
        assertEquals(sql.length(), read.length());
    }

    @Test
    void theClauseInsideAStringANameOrACommentIsNotOne() {
        assertNull(LockInShareMode.forParser("SELECT * FROM t WHERE s = 'x LOCK IN SHARE MODE'"));
        assertNull(LockInShareMode.forParser("SELECT * FROM t WHERE s = \"LOCK IN SHARE MODE\""));
        assertNull(LockInShareMode.forParser("SELECT * FROM t /* LOCK IN SHARE MODE */"));
        assertNull(LockInShareMode.forParser("SELECT * FROM t -- LOCK IN SHARE MODE"));
        assertNull(LockInShareMode.forParser("SELECT * FROM t # LOCK IN SHARE MODE"));
        assertNull(LockInShareMode.forParser("SELECT lock, `in`, share, mode FROM t"));
        assertNull(LockInShareMode.forParser("SELECT * FROM t LOCK IN SHARE `MODE`"));
        assertNull(LockInShareMode.forParser("SELECT * FROM t LOCK IN SHARE MODE WAIT"));
        assertNull(LockInShareMode.forParser("SELECT * FROM t LOCK IN SHARE MODE AND 1"));
        // a string that names the clause, and the clause: only the clause changes
        assertEquals("SELECT 'LOCK IN SHARE MODE' AS mode FROM t WHERE mode = 'it''s' FOR     SHARE     ",
                LockInShareMode.forParser("SELECT 'LOCK IN SHARE MODE' AS mode FROM t WHERE mode = 'it''s' LOCK IN SHARE MODE"));
    }

    @Test
    void theParsedStatementRendersTheClauseAsMariaDbReadsIt() throws PlanException {
        assertEquals("SELECT * FROM t WHERE id = 1 LOCK IN SHARE MODE", parse("SELECT * FROM t WHERE id = 1 LOCK IN SHARE MODE"));
        assertEquals("SELECT * FROM t LOCK IN SHARE MODE WAIT 3", parse("select * from t lock in share mode wait 3"));
        assertEquals("SELECT * FROM t LOCK IN SHARE MODE NOWAIT", parse("SELECT * FROM t LOCK IN SHARE MODE NOWAIT;"));
        assertEquals("SELECT * FROM t LOCK IN SHARE MODE SKIP LOCKED", parse("SELECT * FROM t LOCK IN SHARE MODE SKIP LOCKED"));
        assertEquals("SELECT mode FROM t WHERE mode = 'LOCK IN SHARE MODE' ORDER BY id LIMIT 3 LOCK IN SHARE MODE",
                parse("SELECT mode FROM t WHERE mode = 'LOCK IN SHARE MODE' ORDER BY id LIMIT 3 LOCK IN SHARE MODE"));
        assertEquals("SELECT a FROM t UNION SELECT a FROM u LOCK IN SHARE MODE", parse("SELECT a FROM t UNION SELECT a FROM u LOCK IN SHARE MODE"));
        // what the router renders parses again (the planner parses parts of a statement from their text)
        String rendered = parse("SELECT * FROM t WHERE id = 1 LOCK IN SHARE MODE WAIT 2");
        assertEquals(rendered, parse(rendered));
        // the other locking reads, as JSQLParser reads them
        assertEquals("SELECT * FROM t FOR UPDATE WAIT 2", parse("SELECT * FROM t FOR UPDATE WAIT 2"));
        assertEquals("SELECT * FROM t FOR UPDATE NOWAIT", parse("SELECT * FROM t FOR UPDATE NOWAIT"));
        assertEquals("SELECT * FROM t FOR UPDATE SKIP LOCKED", parse("SELECT * FROM t FOR UPDATE SKIP LOCKED"));
    }

    @Test
    void aLockingReadIsKnownByItsRenderedText() throws PlanException {
        assertTrue(Guards.lockingRead(parse("SELECT * FROM t LOCK IN SHARE MODE")));
        assertFalse(Guards.lockingRead(parse("SELECT 'LOCK IN SHARE MODE' FROM t")));
    }

    @Test
    void forShareIsSentInMariaDbsWords() throws PlanException {
        assertEquals("SELECT * FROM t WHERE id = 1 LOCK IN SHARE MODE", parse("SELECT * FROM t\nWHERE id = 1 FOR SHARE"));
        assertEquals("SELECT * FROM t LOCK IN SHARE MODE NOWAIT", parse("SELECT * FROM t for share nowait"));
        assertEquals("SELECT * FROM t LOCK IN SHARE MODE SKIP LOCKED", parse("SELECT * FROM t FOR SHARE SKIP LOCKED"));
        assertTrue(Guards.lockingRead(parse("SELECT * FROM t FOR SHARE")));
        // where MariaDB's words cannot say it: refused before a backend's 1064 could end the client's transaction
        var inSubquery = assertThrows(PlanException.class, () -> parse("SELECT * FROM t WHERE id IN (SELECT id FROM u for share) LOCK IN SHARE MODE"));
        assertEquals(1235, inSubquery.getErrorCode());
        assertThrows(PlanException.class, () -> parse("SELECT * FROM t FOR SHARE OF t"));
        assertEquals("SELECT 'FOR SHARE' FROM t", parse("SELECT 'FOR SHARE' FROM t /* FOR SHARE */"));
    }

    @Test
    void aSyntaxErrorIsReportedWhereTheClientWroteIt() {
        String bad = "SELECT *\nFROM t\nWHERE id = = 1\nLOCK IN SHARE MODE";
        var e = assertThrows(PlanException.class, () -> parse(bad));
        assertEquals(1064, e.getErrorCode());
        assertTrue(e.getMessage().contains("line 3, column 12"), e.getMessage());
        // the clause where the router does not read it (MariaDB may): refused, the parser's words the client's
        var clause = assertThrows(PlanException.class, () -> parse("SELECT * FROM t LOCK IN SHARE MODE WAIT"));
        assertEquals(1235, clause.getErrorCode());
        assertTrue(clause.getMessage().contains("\"IN\", at line 1, column 22"), clause.getMessage());
        var inSubquery = assertThrows(PlanException.class, () -> parse("SELECT * FROM t WHERE id IN (SELECT id FROM u LOCK IN SHARE MODE)"));
        assertEquals(1235, inSubquery.getErrorCode());
        assertFalse(inSubquery.getMessage().contains("\"FOR\""), inSubquery.getMessage());
        var parenthesized = assertThrows(PlanException.class, () -> parse("(SELECT * FROM t) LOCK IN SHARE MODE"));
        assertEquals(1235, parenthesized.getErrorCode());
    }

    private static String parse(String sql) throws PlanException {
        return Parsing.parse(sql, BUDGET_MS).toString();
    }
}
