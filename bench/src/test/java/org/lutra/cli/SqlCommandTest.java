package org.lutra.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.ShardDatabase;
import org.lutra.shards.junit.EmbeddedShardsExtension;

@ExtendWith(EmbeddedShardsExtension.class)
class SqlCommandTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String stdin, String... args) throws Exception {
        var command = new SqlCommand(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return command.run(List.of(args));
    }

    @Test
    void executesStatementsAndPrintsTablesAndCounts(ShardDatabase db) throws Exception {
        int status = run("", "--url", db.url(0), "--user", "root", "-e",
                "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20)); INSERT INTO t VALUES (1, 'a;b'), (22, NULL);"
                        + " SELECT id, name FROM t ORDER BY id");
        assertEquals(0, status, err.toString());
        assertEquals("""
                0 rows affected
                2 rows affected
                id | name
                ---+-----
                 1 | a;b
                22 | NULL
                (2 rows)
                """, out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void errorsPrintSqlStateAndCodeAndFail(ShardDatabase db) throws Exception {
        int status = run("", "--url", db.url(1), "-e", "SELECT * FROM no_such_table; SELECT 1");
        assertEquals(1, status);
        assertTrue(err.toString().startsWith("ERROR 42S02 (1146): "), err.toString());
        assertEquals("", out.toString(), "stops at the first error");
    }

    @Test
    void shellReadsPipedStatementsAndGoesOnAfterErrors(ShardDatabase db) throws Exception {
        int status = run("SELECT 1 AS one;\nSELECT nope;\nSELECT\n  2 AS two;\nquit\nSELECT 3;\n", "--url", db.url(2));
        assertEquals(1, status, "a piped script with an error fails");
        String printed = out.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("one\n---\n  1\n(1 row)"), printed);
        assertTrue(printed.contains("two\n---\n  2\n(1 row)"), printed);
        assertTrue(!printed.contains("3"), "nothing runs after quit: " + printed);
        assertTrue(err.toString().contains("ERROR 42S22 (1054)"), err.toString());
    }

    @Test
    void missingUrlIsAUsageError() throws Exception {
        assertEquals(2, run("", "-e", "SELECT 1"));
    }
}
