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

    /** Connector/J 9.7's QueryInfo.getQueryReturnType, statement by statement. */
    @Test
    void tellsWhetherAStatementReturnsRowsAsConnectorJDoes() {
        var produces = SqlText.ReturnType.PRODUCES_RESULT_SET;
        var may = SqlText.ReturnType.MAY_PRODUCE_RESULT_SET;
        var not = SqlText.ReturnType.DOES_NOT_PRODUCE_RESULT_SET;
        for (String sql : new String[] {"SELECT 1", "  select * from t", "/* c */ (SELECT 1) UNION (SELECT 2)", "-- c\nSHOW TABLES", "# c\nEXPLAIN SELECT 1",
                "DESCRIBE t", "desc t", "VALUES (1)", "TABLE t", "XA RECOVER", "WITH a AS (SELECT 1) SELECT * FROM a", "CHECK TABLE t",
                "ANALYZE TABLE t", "OPTIMIZE TABLE t", "REPAIR TABLE t", "HELP 'x'", "/*!40101 SELECT 1 */", "EXPLAIN ROUTE SELECT 1",
                "SHOW LOOKUP users FOR 7"}) {
            assertEquals(produces, SqlText.returnType(sql), sql);
        }
        for (String sql : new String[] {"CALL p()", "EXECUTE s", "WITH a AS (SELECT 1) INSERT INTO t SELECT * FROM a",
                "LOAD LOOKUP TABLE users FROM 'u.csv' FORMAT csv"}) {
            assertEquals(may, SqlText.returnType(sql), sql);
        }
        for (String sql : new String[] {"INSERT INTO t VALUES (1)", "UPDATE t SET a = 1", "DELETE FROM t", "SELECT 1 INTO @x", "SELECT a INTO OUTFILE 'f' FROM t",
                "SET @a = 1", "BEGIN", "COMMIT", "CREATE TABLE t (a INT)", "XA START 'x'", "LOAD DATA INFILE 'f' INTO TABLE t",
                "WITH a AS (SELECT 1) UPDATE t SET b = 1", "WITH a AS (SELECT 1), b AS (SELECT 2) DELETE FROM t", "REPLACE INTO t VALUES (1)"}) {
            assertEquals(not, SqlText.returnType(sql), sql);
        }
        assertEquals(SqlText.ReturnType.NONE, SqlText.returnType("  /* only a comment */ "));
        assertEquals(SqlText.ReturnType.NONE, SqlText.returnType("'SELECT'"));
    }
}
