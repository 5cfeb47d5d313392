package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;
import org.lutra.exec.Plan;
import org.lutra.sql.PlanException;
import org.lutra.sql.ValueRef;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/** REPLACE (and INSERT ... SET) as the planner sends them, and the REPLACEs it refuses because a row to delete may be elsewhere. */
class ReplacePlanTest {
    private static final String SCHEMA = """
            CREATE TABLE kv (k INT PRIMARY KEY, v INT, UNIQUE KEY kv_u (k, v)) PARTITION BY hash(k) ON (p0, p1);
            CREATE TABLE ids (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, note VARCHAR(20)) PARTITION BY hash(id) ON (p0, p1);
            CREATE TABLE mail (k INT PRIMARY KEY, email VARCHAR(40), UNIQUE KEY (email)) PARTITION BY hash(k) ON (p0, p1);
            CREATE TABLE nick (k INT PRIMARY KEY, nick VARCHAR(40) UNIQUE) PARTITION BY range(k) ON (p0 < 10, p1);
            CREATE TABLE named (name VARCHAR(40) COLLATE utf8mb4_bin NOT NULL, n INT, PRIMARY KEY (name), UNIQUE KEY (name(3), n)) PARTITION BY hash(name) ON (p0, p1);
            CREATE TABLE owners (id INT PRIMARY KEY, v INT) PARTITION BY lookup(id) ON (p0, p1) DEFAULT NEW ON hash(id);
            CREATE TABLE kids (owner INT NOT NULL, seq INT NOT NULL, code INT, PRIMARY KEY (owner, seq), UNIQUE KEY (code)) PARTITION BY lookup(owner) SAME AS owners;
            CREATE TABLE visits (owner INT NOT NULL, seq INT NOT NULL, PRIMARY KEY (owner, seq)) PARTITION BY lookup(owner) SAME AS owners;
            CREATE TABLE pairs (k INT NOT NULL, seq INT NOT NULL, u INT, PRIMARY KEY (k, seq), UNIQUE KEY (k, u)) PARTITION BY lookup(k) SAME AS owners;
            CREATE TABLE notes (k INT NOT NULL, body TEXT, PRIMARY KEY (k, body(10)), UNIQUE KEY (k, body)) PARTITION BY lookup(k) SAME AS owners;
            CREATE TABLE sums (k INT NOT NULL PRIMARY KEY, a INT, twice INT AS (a * 2)) PARTITION BY lookup(k) SAME AS owners;
            CREATE TABLE refs (k INT NOT NULL PRIMARY KEY, o INT, FOREIGN KEY (o) REFERENCES owners (id)) PARTITION BY lookup(k) SAME AS owners;
            CREATE TABLE stamped (k INT NOT NULL PRIMARY KEY, at TIMESTAMP NOT NULL DEFAULT '2020-01-01 00:00:00' ON UPDATE CURRENT_TIMESTAMP)
              PARTITION BY lookup(k) SAME AS owners;
            CREATE TABLE tags (id INT PRIMARY KEY, name VARCHAR(20) UNIQUE) REPLICATED;
            """;

    private final Catalog catalog = SchemaParser.parse(SCHEMA, List.of("p0", "p1"));
    private final Planner planner = new Planner(catalog, "demo", 100);

    private Plan.Insert insert(String sql) throws PlanException {
        return (Plan.Insert) planner.plan(sql);
    }

    @Test
    void replaceValuesIsSentAsReplaceAndRoutedPerRowLikeAnInsert() throws PlanException {
        var plan = insert("REPLACE INTO kv (k, v) VALUES (1, 2), (?, 3)");
        assertEquals("REPLACE INTO kv (k, v) VALUES (1, 2), (?, 3)", plan.rows().render(new int[] {0, 1}));
        assertEquals("REPLACE INTO kv (k, v) VALUES (?, 3)", plan.rows().render(new int[] {1}));
        assertEquals(1, plan.paramCount());
        assertEquals(List.of(new ValueRef.Literal(1L), new ValueRef.Param(0)), plan.keyPerRow());
        assertEquals("REPLACE INTO kv VALUES (5, 6)", insert("REPLACE kv VALUES (5, 6)").rows().render(new int[] {0}));
    }

    @Test
    void setBecomesAColumnListAndOneRow() throws PlanException {
        assertEquals("REPLACE INTO kv (k, v) VALUES (?, v + 1)", insert("REPLACE kv SET k = ?, v = v + 1").rows().render(new int[] {0}));
        assertEquals("REPLACE INTO kv (v, k) VALUES ((6), 5)", insert("REPLACE kv SET v = (6), k = 5").rows().render(new int[] {0}));
        assertEquals("INSERT INTO kv (k) VALUES (7)", insert("INSERT INTO kv SET k = 7").rows().render(new int[] {0}));
        assertEquals(List.of(new ValueRef.Literal(7L)), insert("INSERT INTO kv SET k = 7").keyPerRow());
        assertEquals("INSERT INTO kv (k, v) VALUES (4, 5) ON DUPLICATE KEY UPDATE v = 6",
                insert("INSERT INTO kv SET k = 4, v = 5 ON DUPLICATE KEY UPDATE v = 6").rows().render(new int[] {0}));
    }

    @Test
    void generatedIdsAreFilledAsForAnInsertAndTheRowsAreNotCombinedIntoOneBatchStatement() throws PlanException {
        var plan = insert("REPLACE INTO ids (note) VALUES ('a'), ('b')");
        assertEquals("REPLACE INTO ids (note, `id`) VALUES ('a', ?), ('b', ?)", plan.rows().render(new int[] {0, 1}));
        assertFalse(plan.auto().upsert() || plan.auto().ignore(), "every row of a REPLACE goes in: its id is its key");
        assertNull(InsertBatch.combine(insert("REPLACE INTO kv (k, v) VALUES (?, ?)"), 2, 3), "a REPLACE entry counts 1 or 2: entry by entry");
    }

    @Test
    void replicatedTablesAndKeysHoldingTheRoutingColumnRun() throws PlanException {
        assertTrue(insert("REPLACE INTO tags VALUES (1, 'red')").keyPerRow().isEmpty());
        assertEquals("REPLACE INTO kv (k, v) VALUES (1, NULL)", insert("REPLACE INTO kv (k, v) VALUES (1, NULL)").rows().render(new int[] {0}));
    }

    @Test
    void onALookupPlacedTableWithOneUniqueKeyTheRowsGoAsAnUpsertOfEveryColumnWithSeveralAsWritten() throws PlanException {
        assertEquals("INSERT INTO visits (seq, owner) VALUES (1, 2) ON DUPLICATE KEY UPDATE `owner` = VALUES(`owner`), `seq` = VALUES(`seq`)",
                insert("REPLACE INTO visits (seq, owner) VALUES (1, 2)").rows().render(new int[] {0}));
        assertEquals("REPLACE INTO pairs VALUES (1, 2, 3)", insert("REPLACE INTO pairs VALUES (1, 2, 3)").rows().render(new int[] {0}));
        assertNull(InsertBatch.combine(insert("REPLACE INTO visits VALUES (?, ?)"), 2, 3), "entry by entry");
    }

    @Test
    void aUniqueKeyWithoutTheWholeRoutingColumnIsRefusedNamingIt() {
        for (var refused : List.of(
                List.of("REPLACE INTO mail VALUES (1, 'a@b')", "(email)"),
                List.of("REPLACE INTO nick SET k = 1, nick = 'x'", "(nick)"),
                List.of("REPLACE INTO named VALUES ('abc', 1)", "(name (3), n)"),
                List.of("REPLACE INTO kids VALUES (1, 1, 7)", "(code)"),
                List.of("REPLACE INTO notes VALUES (1, 'x')", "long unique key"),
                List.of("REPLACE INTO sums (k, a) VALUES (1, 2)", "generated column"),
                List.of("REPLACE INTO stamped (k) VALUES (1)", "ON UPDATE CURRENT_TIMESTAMP"),
                List.of("REPLACE INTO owners SET id = 1, v = 2", "refs has a foreign key referencing it"),
                List.of("REPLACE INTO mail (k, email) SELECT k, v FROM kv", "(email)"))) {
            var e = assertThrows(PlanException.class, () -> planner.plan(refused.get(0)), refused.get(0));
            assertRefusal(e, refused.get(0));
            assertTrue(e.getMessage().contains(refused.get(1)) && e.getMessage().contains("REPLACE"), e.getMessage());
        }
    }

    @Test
    void replaceSelectAndUpsertSyntaxesMariadbHasNot() throws PlanException {
        assertInstanceOf(Plan.InsertSelect.class, planner.plan("REPLACE INTO kv (k, v) SELECT k, v FROM kv WHERE k > 3"));
        var e = assertThrows(PlanException.class, () -> planner.plan("REPLACE INTO kv VALUES (1, 2) ON DUPLICATE KEY UPDATE v = 3"));
        assertEquals(1064, e.getErrorCode());
        var modifier = assertThrows(PlanException.class, () -> planner.plan(" replace DELAYED INTO kv VALUES (1, 2)"));
        assertRefusal(modifier);
        assertTrue(modifier.getMessage().contains("REPLACE LOW_PRIORITY and REPLACE DELAYED"), modifier.getMessage());
    }
}
