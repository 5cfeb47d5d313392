package org.lutra.cli.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class TablePrinterTest {

    @Test
    void alignsColumnsRightForNumbersAndPrintsNull() {
        String table = TablePrinter.format(List.of("id", "name"),
                List.of(List.of("1", "alice"), Arrays.asList("200", null), List.of("3", "multi\nline")),
                new boolean[] {true, false});
        assertEquals("""
                id  | name
                ----+------------
                  1 | alice
                200 | NULL
                  3 | multi\\nline
                (3 rows)
                """, table);
    }

    @Test
    void emptyResultAndSingleRow() {
        assertEquals("a\n-\n(0 rows)\n", TablePrinter.format(List.of("a"), List.of(), new boolean[] {false}));
        assertEquals("a | b\n--+--\nx | y\n(1 row)\n", TablePrinter.format(List.of("a", "b"), List.of(List.of("x", "y")), new boolean[2]));
    }
}
