package org.lutra.catalog;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The catalog as DDL changes it: a table added, one removed, all rebuilt from stored texts, the default placement. */
class CatalogChangeTest {
    static final List<String> PARTITIONS = List.of("p0", "p1", "p2");
    static final Catalog BASE = SchemaParser.parse("""
            CREATE TABLE users (id INT PRIMARY KEY) PARTITION BY lookup(id) ON (p0, p1, p2) DEFAULT NEW ON hash(id);
            CREATE TABLE friends (a INT, b INT, PRIMARY KEY (a, b)) PARTITION BY lookup(a) SAME AS users;
            """, PARTITIONS);

    @Test
    void withTableChecksThePlacementAgainstTheCatalog() {
        Catalog next = SchemaParser.withTable(BASE, "CREATE TABLE posts (user_id INT, n INT, PRIMARY KEY (user_id, n)) PARTITION BY lookup(user_id) SAME AS users");
        var posts = (Partitioning.LookedUp) next.table("posts").partitioning();
        assertSame(((Partitioning.LookedUp) BASE.table("users").partitioning()).table(), posts.table(), "shares the owner's lookup table");
        assertEquals("PARTITION BY lookup(user_id) SAME AS users", next.table("posts").placement());
        assertNull(BASE.table("posts"), "the base is unchanged");
        var missing = assertThrows(SchemaException.class, () -> SchemaParser.withTable(BASE,
                "CREATE TABLE x (id INT PRIMARY KEY) PARTITION BY lookup(id) SAME AS nobody"));
        assertTrue(missing.getMessage().startsWith("CREATE TABLE: ") && missing.getMessage().contains("nobody"), missing.getMessage());
        assertTrue(assertThrows(SchemaException.class, () -> SchemaParser.withTable(BASE,
                "CREATE TABLE x (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0, p7)")).getMessage().contains("unknown partition 'p7'"));
    }

    @Test
    void aRebuildFromStoredTextsKeepsTheLookupTablesOfOwnersWhosePlacementStayed() {
        var texts = new ArrayList<String>();
        BASE.tablesInSchemaOrder().forEach(t -> texts.add(t.createText()));
        texts.set(0, "CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(9))\n  PARTITION BY lookup(id) ON (p0, p1, p2) DEFAULT NEW ON hash(id)");
        Catalog rebuilt = SchemaParser.rebuild(texts, PARTITIONS, BASE);
        var before = ((Partitioning.LookedUp) BASE.table("users").partitioning()).table();
        assertSame(before, ((Partitioning.LookedUp) rebuilt.table("users").partitioning()).table());
        assertSame(before, ((Partitioning.LookedUp) rebuilt.table("friends").partitioning()).table());
        assertEquals(2, rebuilt.table("users").columns().size());
        texts.set(0, "CREATE TABLE users (id INT PRIMARY KEY) PARTITION BY lookup(id) ON (p0, p1) DEFAULT NEW ON hash(id)");
        assertNotSame(before, ((Partitioning.LookedUp) SchemaParser.rebuild(texts, PARTITIONS, BASE).table("users").partitioning()).table(),
                "other partitions: a new lookup table, filled from the rows");
        assertNull(BASE.without("FRIENDS").table("friends"));
    }

    @Test
    void aClauseWithoutItsPartitionListIsGivenEveryPartitionWrittenOut() {
        assertEquals("CREATE TABLE t (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0, p1, p2)",
                SchemaParser.withPartitionList("CREATE TABLE t (id INT PRIMARY KEY) PARTITION BY hash(id)", PARTITIONS));
        assertEquals("CREATE TABLE t (id INT PRIMARY KEY) PARTITION BY lookup(`id`) ON (p0, p1, p2) DEFAULT NEW ON hash(id)",
                SchemaParser.withPartitionList("CREATE TABLE t (id INT PRIMARY KEY) PARTITION BY lookup(`id`)\n DEFAULT NEW ON hash(id)", PARTITIONS));
        for (String as : new String[] {"CREATE TABLE t (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p1)",
                "CREATE TABLE t (id INT PRIMARY KEY) PARTITION BY range(id) ON (p0 < 5, p1)", "CREATE TABLE t (id INT PRIMARY KEY) REPLICATED",
                "CREATE TABLE f (u INT) PARTITION BY lookup(u) SAME AS t", "CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(9) COMMENT 'hash(id)')",
                "CREATE TABLE t (id INT PRIMARY KEY) PARTITION BY hash(id) garbage"}) {
            assertEquals(as, SchemaParser.withPartitionList(as, PARTITIONS), "left as written (the parser says what is wrong with it)");
        }
        var t = SchemaParser.withTable(BASE, SchemaParser.withPartitionList("CREATE TABLE h (id INT PRIMARY KEY) PARTITION BY hash(id)", PARTITIONS)).table("h");
        assertArrayEquals(new int[] {0, 1, 2}, t.partitioning().partitions());
    }

    @Test
    void theDefaultPlacementHashesTheFirstPrimaryKeyColumnAndRefusesATableWithoutOne() {
        assertFalse(SchemaParser.hasPlacementClause("CREATE TABLE t (id INT PRIMARY KEY, note VARCHAR(9) COMMENT 'hash(id)')"));
        assertTrue(SchemaParser.hasPlacementClause("CREATE TABLE t (id INT PRIMARY KEY) REPLICATED"));
        assertEquals("PARTITION BY hash(`a`) ON (p0, p1, p2)", DefaultPlacement.HASH.clauseFor("CREATE TABLE t (a INT, b INT, PRIMARY KEY (a, b))", PARTITIONS));
        assertEquals("PARTITION BY hash(`id`) ON (p0, p1, p2)", DefaultPlacement.HASH.clauseFor("CREATE TABLE t (x INT, id BIGINT PRIMARY KEY)", PARTITIONS));
        assertEquals("REPLICATED ON (p0, p1, p2)", DefaultPlacement.REPLICATED.clauseFor("CREATE TABLE t (x INT)", PARTITIONS));
        assertTrue(assertThrows(SchemaException.class, () -> DefaultPlacement.HASH.clauseFor("CREATE TABLE t (x INT, y DOUBLE NOT NULL)", PARTITIONS))
                .getMessage().contains("no primary key"));
        assertThrows(SchemaException.class, () -> DefaultPlacement.REFUSE.clauseFor("CREATE TABLE t (x INT PRIMARY KEY)", PARTITIONS));
        assertThrows(IllegalArgumentException.class, () -> DefaultPlacement.of("random"));
    }

    @Test
    void theLiveCatalogTellsListenersWhichTablesCameAndWent() {
        var live = new LiveCatalog(BASE, 1);
        var heard = new ArrayList<String>();
        live.listen(new LiveCatalog.Listener() {
            @Override
            public void tableAdded(TableDef t) {
                heard.add("+" + t.name());
            }

            @Override
            public void tableRemoved(TableDef t) {
                heard.add("-" + t.name());
            }
        });
        live.install(SchemaParser.withTable(BASE.without("friends"), "CREATE TABLE posts (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0)"), 2);
        assertEquals(List.of("+posts", "-friends"), heard);
        assertEquals(2, live.version());
    }
}
