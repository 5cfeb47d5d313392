package org.lutra.placement;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.SchemaParser;

import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** A locking read of a REPLICATED table runs only where every other locking read of its rows locks them: its first partition. */
class ReplicaLocksTest {
    static final Catalog CATALOG = SchemaParser.parse("""
            CREATE TABLE users (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE country (code INT PRIMARY KEY) REPLICATED;
            CREATE TABLE city (id INT PRIMARY KEY) REPLICATED ON (p2, p3);
            """, List.of("p0", "p1", "p2", "p3"));

    @Test
    void onlyOnTheTablesFirstPartition() throws SQLException {
        var country = CATALOG.table("country");
        var city = CATALOG.table("city");
        var locking = new ReplicaLocks(List.of(country), List.of(country));
        locking.check(country, false); // alone: read on its first partition
        locking.check(country, true);
        org.lutra.Refusals.assertRefusal(assertThrows(SQLException.class, () -> locking.check(CATALOG.table("users"), false)));
        org.lutra.Refusals.assertRefusal(assertThrows(SQLException.class, () -> locking.check(city, false))); // run on p2
        // read in a subquery, not locked by the clause: refused only in a SERIALIZABLE transaction, where every read locks
        var subquery = new ReplicaLocks(List.of(), List.of(country));
        subquery.check(CATALOG.table("users"), false);
        org.lutra.Refusals.assertRefusal(assertThrows(SQLException.class, () -> subquery.check(CATALOG.table("users"), true)));
    }
}
