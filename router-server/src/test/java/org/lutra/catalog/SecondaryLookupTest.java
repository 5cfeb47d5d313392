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
        assertEquals(7L, r.key(t, new Object[] {"7"}));
        assertEquals(3, r.home(t, 7L));
        assertNull(r.key(t, new Object[] {7.5}), "a value the column would round is not indexed as another");
    }

    @Test
    void overSeveralColumnsTheValueIsTheTuple() {
        Catalog c = stored(TABLES + "CREATE SECONDARY LOOKUP by_name ON customers (region, `TAX_ID`) UNIQUE;");
        var t = c.table("customers");
        var s = c.secondary("by_name");
        assertEquals(List.of("region", "tax_id"), s.columns(), "as the table spells them, in the lookup's order");
        assertEquals("CREATE SECONDARY LOOKUP `by_name` ON `customers` (`region`, `tax_id`) UNIQUE", s.createText());
        assertEquals(s, SecondaryLookup.parse(s.createText()));
        assertEquals(List.of("v1", "v2"), s.valueColumns());
        assertEquals("v1 = ? AND v2 = ?", s.entriesMatch(1));
        assertEquals("(v1 = ? AND v2 = ?) OR (v1 = ? AND v2 = ?)", s.entriesMatch(2));
        assertEquals("`region` = ? AND `tax_id` = ?", s.rowsMatch());
        Object k = s.key(t, new Object[] {"7", "A-1 "});
        assertEquals(new TupleKey(new Object[] {7L, "A-1"}), k, "each part normalized as its column compares it");
        assertEquals(List.of(7L, "A-1"), SecondaryLookup.parts(k));
        assertEquals("7-A-1", k.toString(), "named as MariaDB names a value of a unique key over several columns");
        assertNull(s.key(t, new Object[] {7, null}), "a NULL part: no entry (= never matches it)");
        assertNull(s.key(t, new Object[] {7.5, "x"}), "a part the column would round");
        assertNotEquals(new TupleKey(new Object[] {"a:1", "b"}).lookupText(), new TupleKey(new Object[] {"a", "1:b"}).lookupText(), "parts are delimited");
        int[] homes = new int[4];
        for (long region = 0; region < 400; region++) homes[s.home(t, s.key(t, new Object[] {region, "x"}))]++;
        for (int h : homes) assertTrue(h > 60, "tuples spread over the partitions: " + java.util.Arrays.toString(homes));
        assertEquals(s.home(t, k), s.home(t, s.key(t, new Object[] {7L, "A-1"})), "equal tuples, one home");
        assertTrue(org.lutra.catalog.KeyValues.compare(k, s.key(t, new Object[] {7L, "B"})) < 0);
        Catalog one = stored(TABLES + "CREATE SECONDARY LOOKUP `cust_tax` ON `customers` (`tax_id`) UNIQUE;");
        assertEquals(List.of("v"), one.secondary("cust_tax").valueColumns(), "a one-column lookup's entries keep their column v");
    }

    @Test
    void refusesWhatItCannotIndexExactly() {
        assertRefused("not a column", "CREATE SECONDARY LOOKUP x ON customers (nope);");
        assertRefused("must be an integer, CHAR, VARCHAR", "CREATE SECONDARY LOOKUP x ON customers (note);");
        assertRefused("REPLICATED", "CREATE SECONDARY LOOKUP x ON country (name);");
        assertRefused("placed by id already", "CREATE SECONDARY LOOKUP x ON customers (id);");
        assertRefused("not defined before it", "CREATE SECONDARY LOOKUP x ON nowhere (id);");
        assertRefused("names region twice", "CREATE SECONDARY LOOKUP x ON customers (region, REGION);");
        assertRefused("placed by id already", "CREATE SECONDARY LOOKUP x ON customers (region, id);");
        assertRefused("'nope' is not a column", "CREATE SECONDARY LOOKUP x ON customers (region, nope);");
        assertRefused("must be an integer, CHAR, VARCHAR", "CREATE SECONDARY LOOKUP x ON customers (region, note);");
        assertRefused("defined twice", "CREATE SECONDARY LOOKUP x ON customers (region); CREATE SECONDARY LOOKUP x ON customers (tax_id);");
    }

    private static void assertRefused(String expected, String statements) {
        var e = assertThrows(SchemaException.class, () -> stored(TABLES + statements));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
