package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.protocol.Value;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Which literals become parameters, and which stay: the plan cache may only share plans whose meaning is the same. */
class LiteralsTest {
    @Test
    void whereSetAndValuesLiteralsBecomeParameters() {
        assertNormalized("SELECT * FROM t WHERE id = ? AND name = ?", "SELECT * FROM t WHERE id = 7 AND name = 'ann'", i(7), s("ann"));
        assertNormalized("SELECT * FROM t WHERE id IN (?, ?, ?)", "SELECT * FROM t WHERE id IN (1, 2, 3)", i(1), i(2), i(3));
        assertNormalized("SELECT * FROM t WHERE id BETWEEN ? AND ? AND x LIKE ?", "SELECT * FROM t WHERE id BETWEEN 1 AND 5 AND x LIKE 'a%'",
                i(1), i(5), s("a%"));
        assertNormalized("UPDATE t SET a = 1.50, b = 'x' WHERE id = ?", "UPDATE t SET a = 1.50, b = 'x' WHERE id = 3", i(3));
        assertNormalized("SELECT * FROM t WHERE name = ?", "SELECT * FROM t WHERE name = 'O\\'Brien'", s("O'Brien"));
        assertNormalized("SELECT * FROM t WHERE name = ?", "SELECT * FROM t WHERE name = 'it''s'", s("it's"));
        assertNormalized("SELECT * FROM t WHERE name LIKE ?", "SELECT * FROM t WHERE name LIKE 'a\\%b'", s("a\\%b"));
    }

    @Test
    void literalsWhoseMeaningWouldChangeStay() {
        unchanged("SELECT 1, 'x', a = 5 FROM t");                       // select list: column labels
        unchanged("SELECT a FROM t ORDER BY 2 LIMIT 10");                // positions, LIMIT
        unchanged("SELECT a, COUNT(*) FROM t GROUP BY 1 HAVING COUNT(*) > 2");
        unchanged("SELECT * FROM t WHERE a = -5");                       // signed
        unchanged("SELECT * FROM t WHERE a = 5 + b");                    // an operand of arithmetic
        unchanged("SELECT * FROM t WHERE a = 1e3 OR b = 0x1F");          // doubles and hex
        unchanged("SELECT * FROM t WHERE d > NOW() - INTERVAL 5 DAY");
        unchanged("SELECT * FROM t WHERE a = _utf8mb4'x' OR b = N'y'");  // introducers
        unchanged("SELECT * FROM t WHERE a = f(1, 2)");                   // function arguments
        unchanged("SELECT /*!40001 SQL_NO_CACHE */ * FROM t WHERE a = 1"); // executable comments: left alone
        unchanged("SELECT * FROM t WHERE a = 'unterminated");
        unchanged("SET autocommit = 0");
        unchanged("INSERT INTO t (a, b) VALUES (1, 'x'), (2, 'y')");     // stored values convert by the column's type
    }

    /** Every spelling of a plain number keeps its value and its type: an integer up to 2^63 - 1, a decimal otherwise. */
    @Test
    void plainNumbersKeepTheirValueAndType() {
        assertNormalized("SELECT * FROM t WHERE a = ? AND b = ? AND c = ? AND d = ?", "SELECT * FROM t WHERE a = 007 AND b = 1.50 AND c = .5 AND d = 2.",
                i(7), d("1.50"), d("0.5"), d("2"));
        assertNormalized("SELECT * FROM t WHERE a = ? AND b = ? AND c = ?",
                "SELECT * FROM t WHERE a = 999999999999999999 AND b = 9223372036854775807 AND c = 9223372036854775808",
                i(999_999_999_999_999_999L), i(Long.MAX_VALUE), d("9223372036854775808"));
        assertNormalized("SELECT * FROM t WHERE a = ?", "SELECT * FROM t WHERE a = 0000000000000000000000042", i(42));
        unchanged("SELECT * FROM t WHERE a = 1.2.3");
        unchanged("SELECT * FROM t WHERE a = 12abc");
        unchanged("SELECT * FROM t WHERE a = 1e-3");
    }

    @Test
    void subqueriesKeepTheirOwnClauses() {
        assertNormalized("SELECT * FROM t WHERE a IN (SELECT b FROM u WHERE c = ? GROUP BY b HAVING COUNT(*) > 1)",
                "SELECT * FROM t WHERE a IN (SELECT b FROM u WHERE c = 4 GROUP BY b HAVING COUNT(*) > 1)", i(4));
    }

    @Test
    void clientParametersKeepTheirPlaceAmongLiterals() {
        var n = Literals.normalize("SELECT * FROM t WHERE a = ? AND b = 5 AND c = ?");
        assertEquals("SELECT * FROM t WHERE a = ? AND b = ? AND c = ?", n.text());
        assertEquals(2, n.clientParams());
        assertEquals(List.of(s("A"), i(5), s("C")), n.bind(List.of(s("A"), s("C"))));
    }

    private static void assertNormalized(String expected, String sql, Value... literals) {
        var n = Literals.normalize(sql);
        assertEquals(expected, n.text(), sql);
        assertEquals(List.of(literals), n.bind(List.of()), sql);
    }

    private static void unchanged(String sql) {
        assertEquals(sql, Literals.normalize(sql).text());
    }

    private static Value i(long v) {
        return Value.newBuilder().setIntValue(v).build();
    }

    private static Value d(String v) {
        return Value.newBuilder().setDecimalValue(v).build();
    }

    private static Value s(String v) {
        return Value.newBuilder().setStringValue(v).build();
    }
}
