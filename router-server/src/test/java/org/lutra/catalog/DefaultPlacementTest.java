package org.lutra.catalog;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The default placement ({@code hash}) of a CREATE TABLE without a clause: through a foreign key, the primary key, a unique key, a NOT NULL column. */
class DefaultPlacementTest {
    private static final List<String> PARTITIONS = List.of("p0", "p1", "p2");
    private static final Catalog PARENTS = SchemaParser.parse("""
            CREATE TABLE owners (id INT PRIMARY KEY, name VARCHAR(30)) PARTITION BY hash(id) ON (p1, p2);
            CREATE TABLE users (uid BIGINT PRIMARY KEY) PARTITION BY lookup(uid) ON (p0, p1, p2);
            CREATE TABLE followers (f INT, u BIGINT, PRIMARY KEY (u, f)) PARTITION BY lookup(u) SAME AS users;
            CREATE TABLE regions (r INT PRIMARY KEY) PARTITION BY range(r) ON (p0 < 10, p1 < 20, p2);
            CREATE TABLE types (id INT PRIMARY KEY, name VARCHAR(20)) REPLICATED;
            CREATE TABLE warehouse (w_id INT PRIMARY KEY) PARTITION BY hash(w_id) ON (p0, p1, p2);
            CREATE TABLE district (d_id INT, d_w_id INT, PRIMARY KEY (d_w_id, d_id)) PARTITION BY hash(d_w_id) ON (p0, p1, p2);
            CREATE TABLE tags (name VARCHAR(20) PRIMARY KEY) PARTITION BY hash(name) ON (p0, p1, p2);
            """, PARTITIONS);

    private static DefaultPlacement.Choice choose(String create) {
        return DefaultPlacement.HASH.choose(create, PARENTS);
    }

    @Test
    void aChildIsPlacedWithItsParentThroughItsForeignKey() {
        var pets = choose("CREATE TABLE pets (id INT NOT NULL, owner_id INT NOT NULL, PRIMARY KEY (owner_id, id), FOREIGN KEY (owner_id) REFERENCES owners (id))");
        assertEquals("PARTITION BY hash(`owner_id`) ON (p1, p2)", pets.clause(), "the parent's partitions, not every partition");
        assertTrue(pets.reason().contains("foreign key (owner_id) references owners (id)"), pets.reason());
        assertEquals("PARTITION BY lookup(`user_id`) SAME AS `users`",
                choose("CREATE TABLE tweets (id BIGINT, user_id BIGINT, UNIQUE (user_id, id), CONSTRAINT fk FOREIGN KEY (user_id) REFERENCES users (uid))").clause());
        assertEquals("PARTITION BY lookup(`u`) SAME AS `users`",
                choose("CREATE TABLE likes (u BIGINT, f INT, FOREIGN KEY (u) REFERENCES followers (u))").clause(), "a SAME AS parent: its owner");
        assertEquals("PARTITION BY range(`r`) ON (p0 < 10, p1 < 20, p2)",
                choose("CREATE TABLE towns (name VARCHAR(20), r INT, FOREIGN KEY (r) REFERENCES `regions` (`r`))").clause());
    }

    @Test
    void aForeignKeyThatSomeUniqueKeyDoesNotHoldIsNotFollowed() {
        // a second pet 1 of another owner would be on another partition, where nothing refuses it
        var pets = choose("CREATE TABLE pets (id INT PRIMARY KEY, owner_id INT NOT NULL, FOREIGN KEY (owner_id) REFERENCES owners (id))");
        assertEquals("PARTITION BY hash(`id`) ON (p0, p1, p2)", pets.clause());
        assertTrue(pets.reason().contains("(owner_id) references owners (id) (not followed: its unique key (id) does not hold owner_id"), pets.reason());
        assertEquals("PARTITION BY hash(`id`) ON (p0, p1, p2)",
                choose("CREATE TABLE t (id INT PRIMARY KEY, o INT, UNIQUE (o, id), FOREIGN KEY (o) REFERENCES owners (id))").clause());
        assertEquals("PARTITION BY hash(`w`) ON (p0, p1, p2)",
                choose("CREATE TABLE t (w INT NOT NULL, o INT, UNIQUE (w), FOREIGN KEY (o) REFERENCES owners (id))").clause());
    }

    @Test
    void aCompositeForeignKeyRoutesByTheColumnOppositeTheParentsRoutingColumn() {
        assertEquals("PARTITION BY hash(`c_w_id`) ON (p0, p1, p2)", choose("""
                CREATE TABLE customer (c_id INT, c_d_id INT, c_w_id INT, PRIMARY KEY (c_w_id, c_d_id, c_id),
                  FOREIGN KEY (c_d_id, c_w_id) REFERENCES district (d_id, d_w_id))""").clause());
    }

    @Test
    void theFirstForeignKeyToATablePlacedByAKeyDecides() {
        var vetSpecialties = choose("""
                CREATE TABLE vet_specialties (specialty_id INT NOT NULL, vet_id INT NOT NULL,
                  FOREIGN KEY (specialty_id) REFERENCES types (id), FOREIGN KEY (vet_id) REFERENCES owners (id))""");
        assertEquals("PARTITION BY hash(`vet_id`) ON (p1, p2)", vetSpecialties.clause(), "a REPLICATED parent decides nothing");
        assertTrue(!vetSpecialties.reason().contains("other partitions"), vetSpecialties.reason());
        var follows = choose("""
                CREATE TABLE follows (f1 BIGINT NOT NULL, f2 BIGINT NOT NULL, PRIMARY KEY (f2, f1),
                  FOREIGN KEY (f1) REFERENCES users (uid), FOREIGN KEY (f2) REFERENCES users (uid))""");
        assertEquals("PARTITION BY lookup(`f1`) SAME AS `users`", follows.clause(), "before the primary key too");
        assertTrue(follows.reason().endsWith("its foreign key (f2) references users (uid) may reference rows on other partitions"), follows.reason());
        var visits = choose("CREATE TABLE visits (id INT PRIMARY KEY, pet_id INT, FOREIGN KEY (pet_id) REFERENCES followers (f))");
        assertEquals("PARTITION BY hash(`id`) ON (p0, p1, p2)", visits.clause(), "the parent is not placed by the referenced column");
        assertTrue(visits.reason().contains("(pet_id) references followers (f) may reference rows on other partitions"), visits.reason());
    }

    @Test
    void aForeignKeyThatCannotRouteAlikeIsPassedOver() {
        assertEquals("PARTITION BY hash(`o`) ON (p1, p2)",
                choose("CREATE TABLE a (o BIGINT, FOREIGN KEY (o) REFERENCES owners (id))").clause(), "INT and BIGINT are one key type");
        assertEquals("PARTITION BY hash(`id`) ON (p0, p1, p2)",
                choose("CREATE TABLE a (id INT PRIMARY KEY, t VARCHAR(20), FOREIGN KEY (t) REFERENCES tags (name))").clause(),
                "collations not declared: the router cannot tell they are one");
        assertEquals("PARTITION BY hash(`id`) ON (p0, p1, p2)",
                choose("CREATE TABLE a (id INT PRIMARY KEY, n VARCHAR(30), FOREIGN KEY (n) REFERENCES owners (name))").clause(),
                "not the parent's routing column");
        assertEquals("PARTITION BY hash(`id`) ON (p0, p1, p2)",
                choose("CREATE TABLE a (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES nowhere (id))").clause(), "an unknown parent");
        assertEquals("PARTITION BY hash(`id`) ON (p0, p1, p2)",
                choose("CREATE TABLE emp (id INT PRIMARY KEY, boss INT, FOREIGN KEY (boss) REFERENCES emp (id))").clause(), "itself");
    }

    @Test
    void aTableWithoutPrimaryKeyIsHashedOnANotNullColumnOfItsUniqueKeyElseItsFirstNotNullColumn() {
        assertEquals("PARTITION BY hash(`g`) ON (p0, p1, p2)",
                choose("CREATE TABLE ug (note TEXT, u INT NOT NULL, g VARBINARY(20) NOT NULL, UNIQUE KEY ug (g, u))").clause());
        assertEquals("PARTITION BY hash(`u`) ON (p0, p1, p2)",
                choose("CREATE TABLE ug (note TEXT, u INT NOT NULL, g VARBINARY(20), UNIQUE KEY ug (g, u))").clause(), "g may be NULL");
        var history = choose("CREATE TABLE history (h_date DATETIME NOT NULL, h_amount DECIMAL(6,2), h_c_id INT, h_w_id INT NOT NULL, h_data TEXT)");
        assertEquals("PARTITION BY hash(`h_w_id`) ON (p0, p1, p2)", history.clause());
        assertTrue(history.reason().contains("no primary key"), history.reason());
        var twoKeys = assertThrows(SchemaException.class, () -> choose("CREATE TABLE t (a INT NOT NULL, b INT NOT NULL, UNIQUE (a), UNIQUE (b))"));
        assertTrue(twoKeys.getMessage().contains("every unique key holds"), twoKeys.getMessage());
        assertEquals("PARTITION BY hash(`b`) ON (p0, p1, p2)",
                choose("CREATE TABLE t (a INT NOT NULL, b INT NOT NULL, UNIQUE (a, b), UNIQUE KEY (b))").clause());
        var e = assertThrows(SchemaException.class, () -> choose("CREATE TABLE t (x INT, d DATE NOT NULL)"));
        assertTrue(e.getMessage().contains("no primary key"), e.getMessage());
    }

    @Test
    void theOtherRulesDoNotReadTheSchema() {
        assertEquals("REPLICATED ON (p0, p1, p2)",
                DefaultPlacement.REPLICATED.choose("CREATE TABLE pets (owner_id INT, FOREIGN KEY (owner_id) REFERENCES owners (id))", PARENTS).clause());
        assertThrows(SchemaException.class,
                () -> DefaultPlacement.REFUSE.choose("CREATE TABLE pets (owner_id INT, FOREIGN KEY (owner_id) REFERENCES owners (id))", PARENTS));
    }
}
