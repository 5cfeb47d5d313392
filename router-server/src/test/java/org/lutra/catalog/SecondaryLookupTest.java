package org.lutra.catalog;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class SecondaryLookupTest {
    private static final List<String> PARTITIONS = List.of("p0", "p1", "p2", "p3");
    private static Catalog stored(String texts) {
        return SchemaParser.rebuild(SqlScript.split(texts).stream().map(SqlScript.Statement::text).toList(), PARTITIONS, null);
    }

    private static final String TABLES = """
            CREATE TABLE customers (id INT PRIMARY KEY, tax_id VARCHAR(32) COLLATE utf8mb4_bin, nick VARCHAR(32) COLLATE utf8mb4_general_ci,
              note TEXT, region INT) PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE country (code INT PRIMARY KEY, name VARCHAR(20) COLLATE utf8mb4_bin) REPLICATED;
            """;

    @Test
    void theStoredTextReadsBackButTheSchemaFileMayNotHoldIt() {
        var file = assertThrows(SchemaException.class, () -> SchemaParser.parse(TABLES + "CREATE SECONDARY LOOKUP r ON customers (region);", PARTITIONS));
        assertTrue(file.getMessage().contains("through the router"), file.getMessage());
        var s = new SecondaryLookup("cust_tax", "customers", "tax_id", true, true);
        assertEquals(s, SecondaryLookup.parse(s.createText()));
        assertEquals(s.built(), SecondaryLookup.parse(s.built().createText()));
        Catalog c = stored(TABLES + "CREATE SECONDARY LOOKUP By_Region ON customers (REGION);");
        var region = c.secondary("by_region");
        assertEquals(new SecondaryLookup("by_region", "customers", "region", false, false), region);
        assertEquals(List.of(region), c.secondariesOf("CUSTOMERS"));
        assertTrue(c.without("customers").secondaries().isEmpty(), "dropping the table drops its lookups");
        assertEquals("lutra_sec_by_region", region.indexTable());
    }

    @Test
    void homesSpreadValuesOverTheTablesPartitionsAsHashPlacementDoes() {
        Catalog c = stored(TABLES + "CREATE SECONDARY LOOKUP r ON customers (region);");
        var t = c.table("customers");
        var r = c.secondary("r");
        assertEquals(7L, r.key(t, "7"));
        assertEquals(3, r.home(t, 7L));
        assertNull(r.key(t, 7.5), "a value the column would round is not indexed as another");
    }

    @Test
    void refusesWhatItCannotIndexExactly() {
        assertRefused("not a column", "CREATE SECONDARY LOOKUP x ON customers (nope);");
        assertRefused("must be an integer, CHAR, VARCHAR", "CREATE SECONDARY LOOKUP x ON customers (note);");
        assertRefused("REPLICATED", "CREATE SECONDARY LOOKUP x ON country (name);");
        assertRefused("placed by id already", "CREATE SECONDARY LOOKUP x ON customers (id);");
        assertRefused("not defined before it", "CREATE SECONDARY LOOKUP x ON nowhere (id);");
        assertRefused("defined twice", "CREATE SECONDARY LOOKUP x ON customers (region); CREATE SECONDARY LOOKUP x ON customers (tax_id);");
    }

    private static void assertRefused(String expected, String statements) {
        var e = assertThrows(SchemaException.class, () -> stored(TABLES + statements));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
