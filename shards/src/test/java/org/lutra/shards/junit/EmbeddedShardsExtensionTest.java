package org.lutra.shards.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.ShardDatabase;
import org.lutra.shards.Shards;

@ExtendWith(EmbeddedShardsExtension.class)
class EmbeddedShardsExtensionTest {

    @Test
    void resolvesFourSharedShards(Shards shards) {
        assertEquals(EmbeddedShardsExtension.SHARD_COUNT, shards.size());
        assertSame(EmbeddedShardsExtension.shards(), shards);
    }

    @Test
    void givesEachClassItsOwnDatabaseOnEveryShard(ShardDatabase db) throws SQLException {
        assertTrue(db.name().startsWith("embeddedshardsextensiontest_"), db.name());
        for (int i = 0; i < db.size(); i++) {
            try (var c = db.connect(i); var rs = c.createStatement().executeQuery("SELECT DATABASE()")) {
                rs.next();
                assertEquals(db.name(), rs.getString(1));
            }
        }
    }

    @Test
    void sameDatabaseForAllTestsOfTheClass(ShardDatabase a, ShardDatabase b) {
        assertSame(a, b);
    }
}
