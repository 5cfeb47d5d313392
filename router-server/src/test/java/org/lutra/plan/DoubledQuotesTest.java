package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.sql.PlanException;

import static org.junit.jupiter.api.Assertions.*;

class DoubledQuotesTest {
    @Test
    void doubledQuotesInLiteralsBecomeBackslashEscapes() {
        assertEquals("SELECT 'a\\\\\\'b', \"c\\\"d\"", DoubledQuotes.asBackslashEscapes("SELECT 'a\\\\''b', \"c\"\"d\""));
        assertEquals("INSERT INTO t VALUES ('\\\\', 'x\\'y')", DoubledQuotes.asBackslashEscapes("INSERT INTO t VALUES ('\\\\', 'x''y')"));
    }

    @Test
    void identifiersCommentsAndEscapedQuotesStay() {
        for (String sql : new String[] {"SELECT `a''b` FROM t WHERE s = '\\\\'", "SELECT 1 -- it''s\nFROM t WHERE s = '\\\\'",
                "SELECT 1 /* x''y */ FROM t WHERE s = '\\\\'", "SELECT 'a\\'' FROM t", "SELECT '' AS e, '\\\\' AS f", "SELECT 'plain''quote'"}) {
            assertEquals(sql, DoubledQuotes.asBackslashEscapes(sql));
        }
    }

    @Test
    void theRewrittenStatementParses() throws PlanException {
        String sql = "SELECT '_6([\\\\''U*<ydO%4JH' AS a";
        assertEquals(sql.length(), DoubledQuotes.asBackslashEscapes(sql).length());
        assertTrue(Parsing.parse(sql, 3000).toString().contains("'_6([\\\\\\'U*<ydO%4JH'"));
    }
}
