package org.lutra.log;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.*;

class LogTextTest {
    @Test
    void clientTextCannotForgeLogLinesOrReachTheTerminal() {
        String hostile = "SELECT 1\n2026-11-23 INFO forged line \u001b[2J 'x'";
        String shown = LogText.printable(hostile, 200);
        assertFalse(shown.contains("\n") || shown.contains("\u001b"), shown);
        assertTrue(shown.contains("\\u000a") && shown.contains("\\u001b") && shown.contains("\\u0027x\\u0027"), shown);
        assertEquals("'ab'... (5 characters)", LogText.printable("abcde", 2));
    }

    @Test
    void anExceptionKeepsItsClassAndFramesButNotTheRawStatementItQuotes() {
        var cause = new IllegalStateException("near '\n" + "x".repeat(5_000) + "'");
        var e = new SQLException("parse failed", "42000", 1064, cause);
        Throwable logged = LogText.redacted(e);
        assertTrue(logged.toString().startsWith("java.sql.SQLException: 'parse failed'"), logged.toString());
        assertArrayEquals(e.getStackTrace(), logged.getStackTrace());
        String causeText = logged.getCause().toString();
        assertTrue(causeText.startsWith("java.lang.IllegalStateException: 'near \\u0027\\u000a"), causeText);
        assertTrue(causeText.length() < 400 && causeText.contains("(5008 characters)"), causeText);
        assertNull(LogText.redacted(null));
    }
}
