package org.lutra.ddl;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.SchemaParser;
import org.lutra.catalog.TableDef;

import java.sql.SQLException;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

class AlterCheckTest {
    private static final TableDef USERS = SchemaParser.parse("""
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(20) COLLATE utf8mb4_bin, age INT)
              PARTITION BY lookup(id) ON (p0, p1) DEFAULT NEW ON hash(id);
            CREATE TABLE tags (tag VARCHAR(20) COLLATE utf8mb4_bin PRIMARY KEY, n INT) PARTITION BY hash(tag) ON (p0, p1);
            """, List.of("p0", "p1")).table("users");

    @Test
    void clausesThatKeepThePlacementPassAndDroppedIndexesAreNamed() throws SQLException {
        assertEquals(Set.of(), AlterCheck.check(USERS, List.of("ADD COLUMN x INT", "ADD INDEX (name)", "DROP COLUMN age", "MODIFY name VARCHAR(40)",
                "CHANGE age years INT", "RENAME COLUMN name TO nick", "ALTER COLUMN age SET DEFAULT 3", "ENGINE=InnoDB", "COMMENT 'x'",
                "DEFAULT CHARSET utf8mb4", "RENAME INDEX a TO b", "DROP FOREIGN KEY fk")));
        assertEquals(Set.of("primary", "by_name"), AlterCheck.check(USERS, List.of("DROP PRIMARY KEY", "DROP INDEX `by_name`")));
    }

    @Test
    void clausesOnTheRoutingColumnOrThePlacementAreRefused() {
        for (String clause : List.of("DROP COLUMN id", "DROP `ID`", "MODIFY COLUMN id BIGINT", "CHANGE id ident INT", "RENAME COLUMN id TO x",
                "RENAME TO people", "RENAME AS people", "PARTITION BY HASH(id) PARTITIONS 2", "REMOVE PARTITIONING", "ADD PARTITION (PARTITION p9)",
                "DROP PARTITION p0", "SOMETHING ELSE")) {
            var e = assertThrows(SQLException.class, () -> AlterCheck.check(USERS, List.of("ADD COLUMN x INT", clause)), clause);
            assertRefusal(e, clause);
        }
        TableDef tags = SchemaParser.parse("CREATE TABLE tags (tag VARCHAR(20) COLLATE utf8mb4_bin PRIMARY KEY, n INT) PARTITION BY hash(tag) ON (p0, p1);",
                List.of("p0", "p1")).table("tags");
        for (String clause : List.of("CONVERT TO CHARACTER SET utf8mb4", "DEFAULT COLLATE utf8mb4_general_ci")) {
            assertThrows(SQLException.class, () -> AlterCheck.check(tags, List.of(clause)), clause);
        }
    }

    @Test
    void clausesChangingASecondaryLookupsColumnAreRefused() throws SQLException {
        for (String clause : List.of("DROP COLUMN age", "MODIFY age BIGINT", "CHANGE age years INT", "RENAME COLUMN age TO years", "CONVERT TO CHARACTER SET latin1")) {
            var e = assertThrows(SQLException.class, () -> AlterCheck.check(USERS, List.of(clause), List.of("age")), clause);
            assertRefusal(e);
        }
        assertEquals(Set.of(), AlterCheck.check(USERS, List.of("ADD COLUMN x INT", "MODIFY name VARCHAR(40)"), List.of("age")));
    }
}
