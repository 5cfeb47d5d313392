package org.lutra.ddl;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SHOW CREATE TABLE texts as MariaDB 11.4 prints them, before and after an ALTER. */
class PlainIndexChangeTest {
    private static final String BEFORE = """
            CREATE TABLE `logging` (
              `log_id` int(11) NOT NULL AUTO_INCREMENT,
              `log_type` varbinary(32) NOT NULL,
              `log_user` int(11) NOT NULL DEFAULT 0,
              `log_title` varbinary(255) NOT NULL DEFAULT '',
              PRIMARY KEY (`log_id`),
              KEY `log_user` (`log_user`),
              CONSTRAINT `logging_ibfk_1` FOREIGN KEY (`log_user`) REFERENCES `useracct` (`user_id`) ON DELETE CASCADE
            ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_uca1400_ai_ci""";

    private static String with(String line) {
        return BEFORE.replace("  PRIMARY KEY (`log_id`),\n", "  PRIMARY KEY (`log_id`),\n" + line + ",\n");
    }

    @Test
    void addingOrDroppingPlainIndexesIsOne() {
        assertTrue(PlainIndexChange.only(BEFORE, BEFORE));
        assertTrue(PlainIndexChange.only(BEFORE, with("  KEY `idx_log_type_time` (`log_type`,`log_title`)")));
        assertTrue(PlainIndexChange.only(with("  KEY `idx_log_type_time` (`log_type`,`log_title`)"), BEFORE));
        assertTrue(PlainIndexChange.only(BEFORE, with("  KEY `t` (`log_title`(8)) COMMENT 'prefix, with a comma'")));
        // the last element of the body loses its comma when the index after it goes
        String last = BEFORE.replace("ON DELETE CASCADE\n", "ON DELETE CASCADE,\n  KEY `by_type` (`log_type`)\n");
        assertTrue(PlainIndexChange.only(BEFORE, last));
    }

    @Test
    void anythingElseIsNot() {
        assertFalse(PlainIndexChange.only(BEFORE, with("  UNIQUE KEY `u` (`log_title`)")));
        assertFalse(PlainIndexChange.only(BEFORE, with("  FULLTEXT KEY `f` (`log_title`)")));
        assertFalse(PlainIndexChange.only(BEFORE, with("  SPATIAL KEY `s` (`g`)")));
        assertFalse(PlainIndexChange.only(BEFORE, with("  `extra` int(11) DEFAULT NULL")));
        assertFalse(PlainIndexChange.only(BEFORE, BEFORE.replace("DEFAULT ''", "DEFAULT 'x'")));
        assertFalse(PlainIndexChange.only(BEFORE, BEFORE.replace("ENGINE=InnoDB", "ENGINE=InnoDB AUTO_INCREMENT=41")));
        assertFalse(PlainIndexChange.only(BEFORE, BEFORE.replace("  KEY `log_user` (`log_user`),\n  CONSTRAINT", "  CONSTRAINT")
                .replace("  CONSTRAINT `logging_ibfk_1` FOREIGN KEY (`log_user`) REFERENCES `useracct` (`user_id`) ON DELETE CASCADE\n", "")
                .replace("PRIMARY KEY (`log_id`),", "PRIMARY KEY (`log_id`)")), "a foreign key dropped with its index");
        assertFalse(PlainIndexChange.only(BEFORE, BEFORE.replace("PRIMARY KEY (`log_id`)", "PRIMARY KEY (`log_id`,`log_user`)")));
    }
}
