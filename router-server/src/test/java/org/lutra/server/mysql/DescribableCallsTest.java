package org.lutra.server.mysql;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which prepared SELECTs the prepare answer may run to learn their columns: only calls of built-ins that compute a value. */
class DescribableCallsTest {
    @Test
    void builtInsThatOnlyComputeAValueAreRun() {
        for (String sql : List.of(
                "SELECT id, v FROM t WHERE id = ?",
                "SELECT COUNT(*), SUM(v), CONCAT(name, '(x)') FROM t WHERE id IN (?, ?) GROUP BY id",
                "SELECT IF(a > 0, 'f(', NOW()), CAST(? AS CHAR(10)) FROM t JOIN u USING (id) WHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.id)",
                "SELECT ROW_NUMBER() OVER (PARTITION BY a ORDER BY b) FROM t WHERE name = '#not a comment -- nor /* this */'",
                "SELECT * FROM (SELECT a FROM t) AS d WHERE a BETWEEN ? AND (? + 1)")) {
            assertTrue(DescribableCalls.allKnown(sql), sql);
        }
    }

    @Test
    void anythingElseIsNot() {
        for (String sql : List.of(
                "SELECT bump(?) AS b",
                "SELECT `bump`(?) AS b",
                "SELECT app.bump(?) AS b",
                "SELECT `app` . `bump`(1)",
                "SELECT SLEEP(?)",
                "SELECT GET_LOCK('x', ?)",
                "SELECT RELEASE_ALL_LOCKS()",
                "SELECT NEXTVAL(s), ?",
                "SELECT SETVAL(s, 5)",
                "SELECT LAST_INSERT_ID(?)",
                "SELECT MASTER_POS_WAIT('f', 4)",
                "SELECT MASTER_GTID_WAIT(?)",
                "SELECT LOAD_FILE('/etc/passwd')",
                "SELECT BENCHMARK(100000000, MD5('a'))",
                "SELECT a FROM t WHERE a = ? /* bump */",
                "SELECT bump /**/ (1)",
                "SELECT a FROM t # bump(1)")) {
            assertFalse(DescribableCalls.allKnown(sql), sql);
        }
    }
}
