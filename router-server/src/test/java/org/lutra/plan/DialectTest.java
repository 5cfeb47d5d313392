package org.lutra.plan;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** MySQL text rewritten for the parser, meaning the same, each character traced to where it came from. */
class DialectTest {
    @Test
    void executableCommentsKeepTheirContent() {
        assertEquals("SELECT 1 + 1", squeezed("SELECT 1 /*! + 1 */"));
        assertEquals("SELECT SQL_NO_CACHE id", squeezed("SELECT /*!40001 SQL_NO_CACHE */ id"));
        assertEquals("SELECT 2 * 3", squeezed("SELECT 2 /*M!100000 * 3 */"));
        assertEquals("SELECT 2 * 3", squeezed("SELECT 2 /*!50699 * 3 */"));
        assertEquals("SELECT 2", squeezed("SELECT 2 /*!50700 * 3 */"), "MariaDB skips MySQL-only version comments");
        assertEquals("SELECT 2", squeezed("SELECT 2 /*!80000 * 3 */"));
        assertEquals("SELECT 2", squeezed("SELECT 2 /*M!999999 * 3 */"), "newer than the server");
        assertEquals("SELECT 1", squeezed("SELECT 1 /* plain */"));
        assertEquals("SELECT a FROM t ORDER BY a", squeezed("SELECT a FROM t # why\nORDER BY a -- done"));
        assertEquals("SELECT '#', '--' FROM t", squeezed("SELECT '#', '--' FROM t"));
    }

    private static String squeezed(String sql) {
        return Dialect.rewrite(sql).text().replaceAll("\\s+", " ").strip();
    }

    @Test
    void stackedSignsGetParentheses() {
        assertEquals("SELECT +(-92)", Dialect.rewrite("SELECT + - 92").text());
        assertEquals("SELECT 20 DIV -(-96)", Dialect.rewrite("SELECT 20 DIV - - 96").text());
        assertEquals("SELECT -(-(-f(x, 1)))", Dialect.rewrite("SELECT - - -f(x, 1)").text());
        assertEquals("SELECT 4 - -2", Dialect.rewrite("SELECT 4 - -2").text(), "a subtraction and a sign stay as they are");
        assertEquals("SELECT 4 - -(-2)", Dialect.rewrite("SELECT 4 - - -2").text());
    }

    @Test
    void stackedSignsAfterDistinctAndAllGetParentheses() {
        assertEquals("SELECT DISTINCT +(-a) FROM t", Dialect.rewrite("SELECT DISTINCT + - a FROM t").text());
        assertEquals("SELECT ALL -(-60) FROM t", Dialect.rewrite("SELECT ALL - -60 FROM t").text());
        assertEquals("SELECT SUM(DISTINCT +(-10)) FROM t", Dialect.rewrite("SELECT SUM(DISTINCT + - 10) FROM t").text());
        assertEquals("SELECT +(-CASE (-42) WHEN k THEN 1 ELSE CASE WHEN b THEN 2 END END) + 1 FROM t",
                Dialect.rewrite("SELECT + - CASE -42 WHEN k THEN 1 ELSE CASE WHEN b THEN 2 END END + 1 FROM t").text(), "a CASE is one operand, to its END");
    }

    @Test
    void aCaseOperandWithASignOrAnIfGetsParentheses() {
        assertEquals("SELECT CASE (-57) WHEN 8.0 THEN 1 END", Dialect.rewrite("SELECT CASE -57 WHEN 8.0 THEN 1 END").text());
        assertEquals("SELECT CASE (IF(a, 1, 2)) WHEN 1 THEN 2 END", Dialect.rewrite("SELECT CASE IF(a, 1, 2) WHEN 1 THEN 2 END").text());
        assertEquals("SELECT CASE (-a + (SELECT 1 WHERE b)) when 1 THEN 2 END", Dialect.rewrite("SELECT CASE -a + (SELECT 1 WHERE b) when 1 THEN 2 END").text(),
                "the operand ends at the WHEN outside its parentheses");
        assertEquals("SELECT CASE (+(-a)) WHEN 1 THEN CASE (-2) WHEN -2 THEN 3 END END",
                Dialect.rewrite("SELECT CASE + - a WHEN 1 THEN CASE -2 WHEN -2 THEN 3 END END").text());
        assertEquals("SELECT CASE a WHEN -1 THEN -2 END, CASE IFNULL(a, 1) WHEN 1 THEN 2 END",
                Dialect.rewrite("SELECT CASE a WHEN -1 THEN -2 END, CASE IFNULL(a, 1) WHEN 1 THEN 2 END").text(), "other operands stay");
        String sql = "SELECT CASE -57 WHEN 8 THEN 1 END FROM t";
        var r = Dialect.rewrite(sql);
        assertEquals("CASE -57 WHEN 8 THEN 1 END", r.original(sql, r.text().indexOf("CASE"), r.text().indexOf(" FROM")), "labels keep the client's text");
    }

    @Test
    void doubleQuotedStringsBecomeSingleQuoted() {
        assertEquals("SELECT 'x\\\"y', 'it\\'s', 'a\"b'", Dialect.rewrite("SELECT \"x\\\"y\", \"it's\", \"a\"\"b\"").text());
    }

    @Test
    void everyCharacterKnowsItsOrigin() {
        String sql = "SELECT + - 92, \"q\" FROM t";
        var r = Dialect.rewrite(sql);
        int at = r.text().indexOf("+(-92)");
        assertEquals("+ - 92", r.original(sql, at, at + "+(-92)".length()));
        int q = r.text().indexOf("'q'");
        assertEquals("\"q\"", r.original(sql, q, q + 3));
    }

    @Test
    void labelsKeepPlainCommentsAndLoseOnlyExecutableMarkers() {
        assertEquals("a /* c */ + 1", Dialect.Rewritten.withoutExecutableMarkers("a /* c */ + 1"));
        assertEquals("a+ 1 + 2", Dialect.Rewritten.withoutExecutableMarkers("a+/*! 1 + */2"));
        assertEquals("x   /* y */ 'q*/'", Dialect.Rewritten.withoutExecutableMarkers("x /*!50001 */ /* y */ 'q*/'"));
        assertEquals("a -- x */\n+ 1", Dialect.Rewritten.withoutExecutableMarkers("a -- x */\n+ 1"));
    }
}
