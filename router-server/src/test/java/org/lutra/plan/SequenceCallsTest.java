package org.lutra.plan;

import org.junit.jupiter.api.Test;

import org.lutra.exec.SessionCommand;
import org.lutra.sql.PlanException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class SequenceCallsTest {
    @Test
    void findsEveryFormInTextOrderOutsideQuotesAndComments() {
        var calls = SequenceCalls.find("SELECT NEXT VALUE FOR s, nextval(`db`.`t`), 'NEXTVAL(x)' /* LASTVAL(y) */, PREVIOUS VALUE FOR s, SETVAL(u, 5, 0)");
        assertEquals(List.of(SequenceCalls.Kind.NEXTVAL, SequenceCalls.Kind.NEXTVAL, SequenceCalls.Kind.LASTVAL, SequenceCalls.Kind.SETVAL),
                calls.stream().map(SequenceCalls.Call::kind).toList());
        assertEquals(List.of("s", "t", "s", "u"), calls.stream().map(SequenceCalls.Call::name).toList());
        assertEquals("db", calls.get(1).schema());
        assertEquals(", 5, 0", calls.get(3).args());
        assertEquals(List.of(), SequenceCalls.find("SELECT nextval_col, lastval FROM t WHERE v = 'NEXT VALUE FOR s'"));
    }

    @Test
    void thePreCheckPassesEveryStatementWithACall() {
        var any = java.util.regex.Pattern.compile("(?i)VAL\\s*\\(|VALUE\\s+FOR\\b"); // what the pre-check stands for
        String[] parts = {"val", "VAL", "vAl", "value", "VALUE ", "for", " FOR", "next", "nextval", "(", ")", " ", "\t", "\n", "_", "x", "é", ",", "'"};
        var random = new java.util.SplittableRandom(11);
        for (int i = 0; i < 200_000; i++) {
            var sql = new StringBuilder();
            for (int n = random.nextInt(1, 7); n > 0; n--) sql.append(parts[random.nextInt(parts.length)]);
            if (any.matcher(sql).find()) assertTrue(SequenceCalls.mayCall(sql.toString()), sql.toString());
        }
        assertFalse(SequenceCalls.mayCall("SELECT id, name FROM users WHERE id = ?"));
        assertFalse(SequenceCalls.mayCall("SELECT interval_val FROM t"));
        assertTrue(SequenceCalls.mayCall("SELECT NEXTVAL (s)"));
    }

    @Test
    void onceOnlyWhereMariaDbCallsItOncePerWrittenCall() {
        assertNull(SequenceCalls.whyNotOnce("SELECT NEXTVAL(s), NEXTVAL(s) + 1"));
        assertNull(SequenceCalls.whyNotOnce("SELECT NEXTVAL(s) FROM DUAL"));
        assertNull(SequenceCalls.whyNotOnce("INSERT INTO t (id, a) VALUES (NEXTVAL(s), 1), (NEXTVAL(s), 2)"));
        assertNotNull(SequenceCalls.whyNotOnce("SELECT NEXTVAL(s) FROM t"));
        assertNotNull(SequenceCalls.whyNotOnce("SELECT NEXTVAL(s) WHERE 1 = 0"));
        assertNotNull(SequenceCalls.whyNotOnce("INSERT INTO t SELECT NEXTVAL(s), a FROM u"));
        assertNotNull(SequenceCalls.whyNotOnce("INSERT INTO t VALUES (1, 2) ON DUPLICATE KEY UPDATE a = NEXTVAL(s)"));
        assertNotNull(SequenceCalls.whyNotOnce("UPDATE t SET a = NEXTVAL(s)"));
        assertNotNull(SequenceCalls.whyNotOnce("CREATE TABLE t (id BIGINT DEFAULT NEXTVAL(s))"));
    }

    @Test
    void itemsWithoutAliasKeepTheirTextAsLabel() {
        String sql = "SELECT NEXT VALUE FOR s, NEXTVAL(s) + 1, LASTVAL(s) AS v, 5, (NEXTVAL(s)) x";
        var items = SequenceCalls.unlabeledItems(sql, SequenceCalls.find(sql));
        assertEquals(List.of("NEXT VALUE FOR s", "NEXTVAL(s) + 1"), items.stream().map(i -> sql.substring(i[0], i[1])).toList());
    }

    @Test
    void createSequenceNamesItsPartition() throws PlanException {
        var c = (SessionCommand.CreateSequence) DdlStatements.plan("CREATE SEQUENCE IF NOT EXISTS db.s START WITH 5 INCREMENT BY 2 ON p2;", "db");
        assertEquals("s", c.name());
        assertTrue(c.ifNotExists());
        assertEquals("START WITH 5 INCREMENT BY 2", c.options());
        assertEquals("p2", c.partition());
        assertNull(((SessionCommand.CreateSequence) DdlStatements.plan("CREATE SEQUENCE s", "db")).partition());
        assertEquals(List.of("a", "b"), ((SessionCommand.DropSequences) DdlStatements.plan("DROP SEQUENCE IF EXISTS a, b", "db")).names());
        assertEquals("RESTART WITH 9", ((SessionCommand.AlterSequence) DdlStatements.plan("ALTER SEQUENCE s RESTART WITH 9", "db")).options());
        assertThrows(PlanException.class, () -> DdlStatements.plan("CREATE OR REPLACE SEQUENCE s", "db"));
    }

    @Test
    void parameterMarkersOutsideQuotesCommentsAndIdentifiers() {
        String sql = "SELECT ?, '?', `a?b`, SETVAL(s, ?, 0) /* ? */ -- ?\n, ?";
        assertEquals(List.of(7, 32, 53), SequenceCalls.markers(sql));
        assertEquals('?', sql.charAt(32));
    }

    @Test
    void aSetvalWithParenthesesInItsArgumentsIsNoCallButMariaDbsSyntaxError() {
        for (String sql : List.of("SELECT SETVAL(s, (6))", "SELECT SETVAL(s, ABS(-6))", "SELECT setval (s, 1 + (2))")) {
            assertTrue(SequenceCalls.malformedSetval(sql, SequenceCalls.find(sql)), sql);
        }
        for (String sql : List.of("SELECT SETVAL(s, 6, 0)", "SELECT 'SETVAL(s, (6))'", "SELECT my_setval(1)", "SELECT 1")) {
            assertFalse(SequenceCalls.malformedSetval(sql, SequenceCalls.find(sql)), sql);
        }
    }
}
