package org.lutra.ops;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class StatementKindTest {
    @Test
    void kindsComeFromTheFirstKeywordAfterBlanksAndComments() {
        assertEquals(StatementKind.SELECT, StatementKind.of("  select 1"));
        assertEquals(StatementKind.SELECT, StatementKind.of("/* hint */ SELECT 1"));
        assertEquals(StatementKind.SELECT, StatementKind.of("-- note\nSELECT 1"));
        assertEquals(StatementKind.SELECT, StatementKind.of("# note\n(SELECT 1) UNION (SELECT 2)"));
        assertEquals(StatementKind.SELECT, StatementKind.of("WITH t AS (SELECT 1) SELECT * FROM t"));
        assertEquals(StatementKind.INSERT, StatementKind.of("/*!40101 */ INSERT INTO t VALUES (1)"));
        assertEquals(StatementKind.UPDATE, StatementKind.of("update t set a = 1"));
        assertEquals(StatementKind.DELETE, StatementKind.of("DELETE FROM t"));
        assertEquals(StatementKind.DDL, StatementKind.of("ALTER TABLE users SET PARTITION = p2 WHERE id = 1"));
        assertEquals(StatementKind.TRANSACTION, StatementKind.of("START TRANSACTION"));
        assertEquals(StatementKind.SHOW, StatementKind.of("SHOW LUTRA HOT KEYS"));
        assertEquals(StatementKind.BATCH, StatementKind.of(null));
    }

    @Test
    void anythingElseIsOtherSoLabelValuesStayBounded() {
        assertEquals(StatementKind.OTHER, StatementKind.of(""));
        assertEquals(StatementKind.OTHER, StatementKind.of("/* never closed"));
        assertEquals(StatementKind.OTHER, StatementKind.of("ЖЖЖ"));
        assertEquals(StatementKind.OTHER, StatementKind.of("selectx 1"));
        assertEquals(StatementKind.OTHER, StatementKind.of("x".repeat(100_000)));
    }
}
