package org.lutra.exec;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.SchemaParser;
import org.lutra.catalog.TableDef;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/** Tables copied to one partition ({@link Materialize}) against {@link FakeShards}: what the scratch connection runs, in order. */
class MaterializeTest {
    private static final TableDef T = SchemaParser.parse("CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(8)) PARTITION BY hash(id) ON (p0, p1, p2);",
            List.of("p0", "p1", "p2")).table("t");

    private static Materialize copies(long maxRows) {
        var read = new Route(new Target(T, null), "SELECT `id`, `s` FROM `t`", null);
        var copy = new Materialize.Derived(read, "SELECT `id`, `s` FROM `t`", new int[0], "lutra_copy_0",
                "CREATE TEMPORARY TABLE `lutra_copy_0` (id INT PRIMARY KEY, s VARCHAR(8))", "`id`, `s`", List.of("lutra_copy_0_1"));
        return new Materialize(1, List.of(copy), "SELECT id FROM `lutra_copy_0` t WHERE EXISTS (SELECT 1 FROM `lutra_copy_0_1` x WHERE x.s < t.s)",
                new int[0], Map.of("lutra_copy_0", "t", "lutra_copy_0_1", "t"), maxRows);
    }

    @Test
    void eachTableIsReadOnceMadeFromItsDefinitionCopiedThereAndDroppedAfter() throws SQLException {
        var shards = new FakeShards("id:INT", "s:VARCHAR").on(0, "1|a", "4|d").on(1, "7|b").on(2, "2|c");
        shards.scratchTable = "lutra_copy_0";
        var rows = copies(Materialize.MAX_ROWS).open(new Context(List.of(), shards, new Stats(3)));
        assertEquals("t", rows.columns().getFirst().getTable(), "the columns name the table, not its copy");
        assertEquals(List.of("7|b"), FakeShards.text(rows)); // the fake's outer answer: partition 1's rows
        assertEquals(3, shards.asked.size(), "the table is read once, on each of its partitions");
        assertEquals(List.of(
                "p1: CREATE TEMPORARY TABLE `lutra_copy_0` (id INT PRIMARY KEY, s VARCHAR(8))",
                "p1: INSERT INTO `lutra_copy_0` (`id`, `s`) VALUES (?, ?), (?, ?), (?, ?), (?, ?) [1, a, 4, d, 7, b, 2, c]",
                "p1: CREATE TEMPORARY TABLE `lutra_copy_0_1` LIKE `lutra_copy_0`",
                "p1: INSERT INTO `lutra_copy_0_1` (`id`, `s`) SELECT `id`, `s` FROM `lutra_copy_0`",
                "p1: SELECT id FROM `lutra_copy_0` t WHERE EXISTS (SELECT 1 FROM `lutra_copy_0_1` x WHERE x.s < t.s)",
                "p1: DROP TEMPORARY TABLE IF EXISTS `lutra_copy_0`, `lutra_copy_0_1`",
                "p1: closed"), shards.scratchLog);
    }

    @Test
    void pastTheBoundTheStatementIsRefusedAndTheCopiesDropped() {
        var shards = new FakeShards("id:INT", "s:VARCHAR").on(0, "1|a", "4|d").on(1, "7|b").on(2, "2|c");
        var e = assertThrows(SQLException.class, () -> copies(3).open(new Context(List.of(), shards, new Stats(3))));
        assertRefusal(e);
        assertTrue(e.getMessage().contains("copying more than 3 rows into temporary tables"), e.getMessage());
        assertEquals(List.of("p1: DROP TEMPORARY TABLE IF EXISTS `lutra_copy_0`, `lutra_copy_0_1`", "p1: closed"),
                shards.scratchLog.subList(shards.scratchLog.size() - 2, shards.scratchLog.size()));
    }
}
