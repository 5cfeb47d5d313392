package org.lutra.cli.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class StatementSplitterTest {

    @Test
    void splitsOnSemicolonsAndKeepsALastStatementWithoutOne() {
        assertEquals(List.of("SELECT 1", "SELECT 2", "SELECT 3"), StatementSplitter.split("SELECT 1; SELECT 2 ;\n SELECT 3"));
    }

    @Test
    void ignoresSemicolonsInQuotesAndComments() {
        String sql = """
                INSERT INTO t VALUES ('a;b', "c;d", 'it''s;', 'back\\';slash');
                SELECT `we;ird` FROM t; -- comment; with semicolon
                # another; comment
                SELECT /* inline; */ 2;""";
        var statements = StatementSplitter.split(sql);
        assertEquals(3, statements.size(), statements.toString());
        assertEquals("INSERT INTO t VALUES ('a;b', \"c;d\", 'it''s;', 'back\\';slash')", statements.get(0));
        assertEquals("SELECT `we;ird` FROM t", statements.get(1));
        assertEquals("-- comment; with semicolon\n# another; comment\nSELECT /* inline; */ 2", statements.get(2));
    }

    @Test
    void dropsEmptyAndCommentOnlyStatements() {
        assertEquals(List.of("SELECT 1"), StatementSplitter.split(";; SELECT 1;;  ; -- bye"));
        assertEquals(List.of(), StatementSplitter.split("  /* nothing */ "));
    }

    @Test
    void doubleDashWithoutSpaceIsAnOperator() {
        assertEquals(List.of("SELECT 1--1", "SELECT 2"), StatementSplitter.split("SELECT 1--1; SELECT 2"));
    }

    @Test
    void feedsIncrementallyAcrossLines() {
        var s = new StatementSplitter();
        assertEquals(List.of(), s.feed("SELECT 'a\n"));
        assertEquals(List.of(), s.feed("b;c' AS x\n"));
        assertEquals(List.of("SELECT 'a\nb;c' AS x"), s.feed("; SELECT\n"));
        assertEquals("SELECT", s.pending());
        assertEquals(List.of("SELECT\n4"), s.feed("4;\n"));
        assertEquals("", s.pending());
    }
}
