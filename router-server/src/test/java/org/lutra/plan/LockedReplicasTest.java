package org.lutra.plan;

import net.sf.jsqlparser.statement.select.Select;
import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;
import org.lutra.catalog.TableDef;
import org.lutra.sql.LockInShareMode;
import org.lutra.sql.PlanException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Which REPLICATED tables a statement locks with its clauses (MariaDB: its SELECT's own FROM and JOINs), and which it reads at all. */
class LockedReplicasTest {
    static final Catalog CATALOG = SchemaParser.parse("""
            CREATE TABLE users (id INT PRIMARY KEY, karma INT) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE country (code INT PRIMARY KEY, name VARCHAR(9)) REPLICATED;
            CREATE TABLE city (id INT PRIMARY KEY, code INT) REPLICATED;
            """, List.of("p0", "p1", "p2", "p3"));

    private static List<List<String>> replicas(String sql) throws PlanException {
        var locks = LockedReplicas.of((Select) Parsing.parse(sql, 1000), CATALOG);
        return List.of(locks.locked().stream().map(TableDef::name).toList(), locks.read().stream().map(TableDef::name).toList());
    }

    @Test
    void aLockingSelectLocksItsOwnTablesOnly() throws PlanException {
        assertEquals(List.of(List.of(), List.of()), replicas("SELECT * FROM users FOR UPDATE"));
        assertEquals(List.of(List.of("country"), List.of("country")), replicas("SELECT * FROM users u JOIN country c ON c.code = u.karma FOR UPDATE"));
        assertEquals(List.of(List.of("country", "city"), List.of("country", "city")),
                replicas("SELECT * FROM users u JOIN (country c JOIN city t ON t.code = c.code) ON c.code = u.karma LOCK IN SHARE MODE"));
        // a subquery's and a derived table's rows are not locked by the outer clause, but a SERIALIZABLE transaction reads them locked
        assertEquals(List.of(List.of(), List.of("country")), replicas("SELECT * FROM users WHERE karma IN (SELECT code FROM country) FOR UPDATE"));
        assertEquals(List.of(List.of(), List.of("country")), replicas("SELECT * FROM (SELECT * FROM country) c FOR UPDATE"));
        assertEquals(List.of(List.of(), List.of("country")), replicas("SELECT * FROM users u JOIN country c ON c.code = u.karma"));
        // a UNION's clause locks its last SELECT's rows
        assertEquals(List.of(List.of("city"), List.of("country", "city")),
                replicas("SELECT code FROM country UNION ALL SELECT code FROM city FOR UPDATE"));
    }

    @Test
    void aClauseMariaDbDoesNotReadIsRefused() throws Exception {
        var select = (net.sf.jsqlparser.statement.select.PlainSelect) net.sf.jsqlparser.parser.CCJSqlParserUtil.parse("SELECT * FROM users FOR NO KEY UPDATE");
        org.lutra.Refusals.assertRefusal(assertThrows(PlanException.class, () -> LockInShareMode.clause(select)));
        var share = (net.sf.jsqlparser.statement.select.PlainSelect) net.sf.jsqlparser.parser.CCJSqlParserUtil.parse("SELECT * FROM users FOR SHARE SKIP LOCKED");
        assertEquals("LOCK IN SHARE MODE SKIP LOCKED", LockInShareMode.clause(share));
    }
}
