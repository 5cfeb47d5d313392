package org.lutra.catalog;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class SchemaParserTest {
    static final List<String> PARTITIONS = List.of("p0", "p1", "p2", "p3");

    static final String SOCIAL = """
            -- users live where the partitioner put them
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64)) ENGINE=InnoDB
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT, destination INT, PRIMARY KEY (source, destination))
              PARTITION BY lookup(source) SAME AS users;
            CREATE TABLE page (page_title VARCHAR(255) COLLATE utf8mb4_bin PRIMARY KEY, len INT)
              PARTITION BY range(page_title) ON (p0 < 'H', p1 < 'P', p2);
            CREATE TABLE text (id BIGINT PRIMARY KEY, body TEXT) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE country (code CHAR(2) PRIMARY KEY, name VARCHAR(64)) REPLICATED ON (p0, p1, p2, p3);
            """;

    @Test
    void readsEveryPlacementClause() {
        Catalog c = SchemaParser.parse(SOCIAL, PARTITIONS);
        var users = (Partitioning.LookedUp) c.table("users").partitioning();
        var followers = (Partitioning.LookedUp) c.table("FOLLOWERS").partitioning();
        assertTrue(users.unique());
        assertFalse(followers.unique(), "source alone is not unique in followers");
        assertSame(users.table(), followers.table(), "SAME AS shares the owner's lookup table");
        var table = assertInstanceOf(org.lutra.lookup.AdaptiveLookupTable.class, users.table(),
                "a handle whose representation RouterLoader picks once the keys are known");
        assertInstanceOf(org.lutra.lookup.HashLookupTable.class, table.current());
        assertTrue(table.reason().contains("no keys yet"), table.reason());
        assertEquals("users", followers.owner());
        assertEquals("id", followers.ownerColumn());
        assertEquals("CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64)) ENGINE=InnoDB", c.table("users").ddl());

        var page = (Partitioning.Ranged) c.table("page").partitioning();
        assertEquals(0, page.locate("Apple"));
        assertEquals(1, page.locate("H"));
        assertEquals(2, page.locate("Zebra"));
        assertEquals(2, page.locate("apple"), "binary collation: lower case sorts after upper case");

        var text = (Partitioning.Hashed) c.table("text").partitioning();
        assertEquals(3, text.locate(7L));
        assertInstanceOf(Partitioning.Replicated.class, c.table("country").partitioning());
    }

    @Test
    void rejectsWhatCannotRouteCorrectly() {
        assertError("routing columns must be integers (TINYINT to BIGINT) or strings",
                "CREATE TABLE t (body TEXT) PARTITION BY hash(body) ON (p0, p1);");
        assertError("unknown partition 'p9'", "CREATE TABLE t (id INT) PARTITION BY hash(id) ON (p0, p9);");
        assertError("needs a placement clause", "CREATE TABLE t (id INT);");
        assertError("not one of its columns", "CREATE TABLE t (id INT) PARTITION BY hash(nope) ON (p0);");
        assertError("not defined above it", "CREATE TABLE t (id INT) PARTITION BY lookup(id) SAME AS nosuch;");
        assertError("range bounds must increase", "CREATE TABLE t (id INT) PARTITION BY range(id) ON (p0 < 10, p1 < 5, p2);");
        assertError("only CREATE TABLE", "DROP TABLE users;");
        assertError("range partitioning of 'name' (collation utf8mb4_general_ci) is not supported",
                "CREATE TABLE t (name VARCHAR(10) COLLATE utf8mb4_general_ci) PARTITION BY range(name) ON (p0 < 'm', p1);");
        assertError("range partitioning of 'name' (the table's default collation) is not supported",
                "CREATE TABLE t (name VARCHAR(10)) PARTITION BY range(name) ON (p0 < 'm', p1);");
        assertError("SAME AS 'a', which is not partitioned by lookup", "CREATE TABLE a (n VARCHAR(9)) PARTITION BY hash(n) ON (p0);"
                + "CREATE TABLE b (n VARCHAR(9)) PARTITION BY lookup(n) SAME AS a;");
        assertError("have different key types", "CREATE TABLE a (n VARCHAR(9) COLLATE utf8mb4_general_ci) PARTITION BY lookup(n) ON (p0);"
                + "CREATE TABLE b (n VARCHAR(9) COLLATE utf8mb4_unicode_ci) PARTITION BY lookup(n) SAME AS a;");
    }

    @Test
    void errorsNameTheLine() {
        var e = assertThrows(SchemaException.class, () -> SchemaParser.parse(
                "CREATE TABLE a (id INT) REPLICATED;\n\n-- comment\nCREATE TABLE b (id INT) PARTITION BY hash(id) ON (p7);", PARTITIONS));
        assertTrue(e.getMessage().startsWith("schema line 4:"), e.getMessage());
    }

    private static void assertError(String expected, String schema) {
        var e = assertThrows(SchemaException.class, () -> SchemaParser.parse(SOCIAL + schema, PARTITIONS));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void aCreateTableWithoutAColumnListIsASchemaErrorNotANullPointer() {
        // ProtocolFuzzIT's seed 62996191036486: the parser reads this without column definitions
        for (String create : List.of("CREATE TABLE SUM(k) (a INT)", "CREATE TABLE t LIKE u")) {
            var e = assertThrows(SchemaException.class, () -> DefaultPlacement.HASH.clauseFor(create, PARTITIONS), create);
            assertTrue(e.getMessage().contains("needs the table's columns in parentheses"), e.getMessage());
        }
    }
}
