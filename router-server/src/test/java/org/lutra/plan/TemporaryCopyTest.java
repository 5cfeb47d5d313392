package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.sql.PlanException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/** A table's copy: made from its own definition, foreign keys left out, generated columns computed again, not copied. */
class TemporaryCopyTest {
    private static TableDef table(String ddl) {
        return new TableDef("t", List.of(), new Partitioning.Hashed("id", new int[] {0, 1}), ddl);
    }

    @Test
    void theDefinitionIsTheTablesUnderTheCopysName() throws PlanException {
        var copy = TemporaryCopy.of(table("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20) COLLATE utf8mb4_bin DEFAULT 'a, (b)', KEY (name))"
                + " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"));
        assertEquals("CREATE TEMPORARY TABLE `lutra_copy_3` (id INT PRIMARY KEY, name VARCHAR(20) COLLATE utf8mb4_bin DEFAULT 'a, (b)', KEY (name))"
                + " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4", copy.definition("lutra_copy_3"));
        assertEquals(List.of("`id`", "`name`"), copy.columns());
    }

    @Test
    void foreignKeysAreLeftOutAndGeneratedColumnsNotCopied() throws PlanException {
        var copy = TemporaryCopy.of(table("""
                CREATE TABLE `t` (
                  `id` int(11) NOT NULL,
                  `parent` int(11) DEFAULT NULL,
                  `twice` int(11) GENERATED ALWAYS AS (`id` * 2) VIRTUAL,
                  `half` int(11) AS (`id` / 2) PERSISTENT,
                  `hidden` int(11) DEFAULT NULL INVISIBLE,
                  `key` varchar(3) DEFAULT NULL,
                  PRIMARY KEY (`id`),
                  KEY `parent` (`parent`),
                  CONSTRAINT `fk_parent` FOREIGN KEY (`parent`) REFERENCES `p` (`id`) ON DELETE CASCADE,
                  FOREIGN KEY (`key`) REFERENCES `q` (`k`),
                  CONSTRAINT `positive` CHECK (`id` > 0)
                ) ENGINE=InnoDB"""));
        assertEquals(List.of("`id`", "`parent`", "`hidden`", "`key`"), copy.columns());
        String definition = copy.definition("c");
        assertTrue(definition.startsWith("CREATE TEMPORARY TABLE `c` ("), definition);
        assertFalse(definition.contains("FOREIGN KEY"), definition);
        assertTrue(definition.contains("CONSTRAINT `positive` CHECK (`id` > 0)"), definition);
        assertTrue(definition.contains("GENERATED ALWAYS AS (`id` * 2) VIRTUAL"), definition);
    }

    @Test
    void definitionsThatMakeNoTemporaryTableAreRefused() {
        for (String ddl : List.of("CREATE TABLE t (id INT PRIMARY KEY, p INT REFERENCES p (id))",
                "CREATE TABLE t (id INT PRIMARY KEY) PARTITION BY HASH (id) PARTITIONS 4",
                "CREATE TABLE t (id INT) WITH SYSTEM VERSIONING",
                "CREATE TABLE t LIKE u")) {
            var e = assertThrows(PlanException.class, () -> TemporaryCopy.of(table(ddl)), ddl);
            assertRefusal(e, ddl);
        }
    }
}
