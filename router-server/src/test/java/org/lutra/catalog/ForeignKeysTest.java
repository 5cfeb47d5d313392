package org.lutra.catalog;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Foreign keys read from a schema: names, columns, actions, and which ones the placement keeps together. */
class ForeignKeysTest {
    static final List<String> PARTITIONS = List.of("p0", "p1", "p2", "p3");

    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, email VARCHAR(64) COLLATE utf8mb4_bin UNIQUE) PARTITION BY lookup(id) ON (p0, p1, p2, p3);
            CREATE TABLE follows (src INT NOT NULL, dst INT NOT NULL, PRIMARY KEY (src, dst),
              CONSTRAINT fk_src FOREIGN KEY (src) REFERENCES users (id) ON DELETE CASCADE,
              FOREIGN KEY (dst) REFERENCES users (id) ON UPDATE NO ACTION ON DELETE SET NULL) PARTITION BY lookup(src) SAME AS users;
            CREATE TABLE country (code CHAR(2) COLLATE utf8mb4_bin PRIMARY KEY) REPLICATED;
            CREATE TABLE city (id INT PRIMARY KEY, country CHAR(2) COLLATE utf8mb4_bin REFERENCES country (code)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE orders (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE lines (order_id INT NOT NULL, n INT NOT NULL, PRIMARY KEY (order_id, n),
              FOREIGN KEY (order_id) REFERENCES orders (id)) PARTITION BY hash(order_id) ON (p0, p1, p2, p3);
            CREATE TABLE notes (id INT PRIMARY KEY, order_id INT, FOREIGN KEY (order_id) REFERENCES orders (id)) PARTITION BY hash(order_id) ON (p0, p1);
            CREATE TABLE audit (id INT PRIMARY KEY, user_email VARCHAR(64) COLLATE utf8mb4_bin,
              FOREIGN KEY (user_email) REFERENCES users (email)) REPLICATED ON (p0, p1);
            CREATE TABLE staff (id INT PRIMARY KEY, boss INT, FOREIGN KEY (boss) REFERENCES staff (id)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE solo_a (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p2);
            CREATE TABLE solo_b (id INT PRIMARY KEY, a INT, FOREIGN KEY (a) REFERENCES solo_a (id)) PARTITION BY hash(id) ON (p2);
            """;

    @Test
    void readsNamesColumnsAndActions() {
        Catalog c = SchemaParser.parse(SCHEMA, PARTITIONS);
        var follows = c.foreignKeysOf("follows");
        assertEquals(2, follows.size());
        assertEquals("fk_src", follows.get(0).name());
        assertEquals(ForeignKey.Action.CASCADE, follows.get(0).onDelete());
        assertEquals(ForeignKey.Action.RESTRICT, follows.get(0).onUpdate());
        assertEquals("follows_ibfk_1", follows.get(1).name(), "InnoDB's name for the first unnamed key");
        assertEquals(List.of("dst"), follows.get(1).columns());
        assertEquals(ForeignKey.Action.SET_NULL, follows.get(1).onDelete());
        assertEquals(ForeignKey.Action.NO_ACTION, follows.get(1).onUpdate());
        var city = c.foreignKeysOf("city").getFirst();
        assertEquals(List.of("country"), city.columns(), "a column's own REFERENCES");
        assertEquals(List.of("code"), city.referenced());
        assertEquals(3, c.referencing("users").size(), "fk_src, follows' dst, audit's");
        assertEquals(2, c.referencing("orders").size(), "lines', notes'");
        assertEquals("`db`.`follows`, CONSTRAINT `fk_src` FOREIGN KEY (`src`) REFERENCES `users` (`id`) ON DELETE CASCADE",
                follows.get(0).described("db"));
    }

    @Test
    void keysThePlacementKeepsTogetherAreNotCrossing() {
        Catalog c = SchemaParser.parse(SCHEMA, PARTITIONS);
        assertFalse(c.foreignKeysOf("follows").get(0).crossing(), "SAME AS through the key");
        assertTrue(c.foreignKeysOf("follows").get(1).crossing(), "dst is not the routing column");
        assertFalse(c.foreignKeysOf("city").getFirst().crossing(), "a REPLICATED parent on every partition of the child");
        assertFalse(c.foreignKeysOf("lines").getFirst().crossing(), "hash of the same key over the same partitions");
        assertTrue(c.foreignKeysOf("notes").getFirst().crossing(), "hash over other partitions");
        assertTrue(c.foreignKeysOf("audit").getFirst().crossing(), "a REPLICATED child of a placed parent");
        assertTrue(c.foreignKeysOf("staff").getFirst().crossing(), "a row referencing another row of its table");
        assertFalse(c.foreignKeysOf("solo_b").getFirst().crossing(), "both on one partition");
    }

    @Test
    void aCrossingKeyTheRouterCannotEnforceIsRefused() {
        var e = assertThrows(SchemaException.class, () -> SchemaParser.parse("""
                CREATE TABLE p (id INT PRIMARY KEY, k INT, KEY (k)) PARTITION BY hash(id) ON (p0, p1);
                CREATE TABLE c (id INT PRIMARY KEY, k INT, FOREIGN KEY (k) REFERENCES p (k)) PARTITION BY hash(id) ON (p0, p1);
                """, PARTITIONS));
        assertTrue(e.getMessage().contains("no PRIMARY KEY or UNIQUE key"), e.getMessage());
        var missing = assertThrows(SchemaException.class, () -> SchemaParser.parse("""
                CREATE TABLE c (id INT PRIMARY KEY, k INT, FOREIGN KEY (k) REFERENCES nowhere (id)) PARTITION BY hash(id) ON (p0, p1);
                """, PARTITIONS));
        assertTrue(missing.getMessage().contains("nowhere"), missing.getMessage());
        // the same key kept together by the placement is the shards' to enforce: accepted
        SchemaParser.parse("""
                CREATE TABLE p (id INT PRIMARY KEY, k INT, KEY (k)) REPLICATED;
                CREATE TABLE c (id INT PRIMARY KEY, k INT, FOREIGN KEY (k) REFERENCES p (k)) PARTITION BY hash(id) ON (p0, p1);
                """, PARTITIONS);
    }
}
