package org.lutra.ddl;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.TableDef;
import org.lutra.config.RouterConfig;
import org.lutra.backend.BackendSetup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;

/**
 * At start: the stored catalog, seeded from the schema file. The stored catalog wins for every table
 * it has (created, altered or dropped through DDL since); a schema-file table it has never held is
 * recorded (the first start records them all). A schema-file table that differs from the stored one is
 * logged and ignored; one dropped through DDL stays dropped (its tombstone).
 */
public final class CatalogSeed {
    private static final Logger log = LoggerFactory.getLogger(CatalogSeed.class);
    private static final int LOCK_WAIT_SECONDS = 60;

    private CatalogSeed() {}

    public static CatalogStore.Snapshot load(RouterConfig config, Catalog fromSchema) throws SQLException {
        try (Connection c = BackendSetup.connectCreating(config, 0)) {
            CatalogStore.ensureTables(c);
            if (!CatalogStore.lock(c, LOCK_WAIT_SECONDS)) {
                throw new SQLException("another router held the catalog's DDL lock for " + LOCK_WAIT_SECONDS + " s; start again", "HY000", 0);
            }
            try {
                var stored = CatalogStore.read(c);
                var changes = new ArrayList<CatalogStore.Change>();
                for (TableDef t : fromSchema.tablesInSchemaOrder()) {
                    var entry = stored.entry(t.name());
                    if (entry == null) {
                        changes.add(new CatalogStore.Change(t.name(), t.createText()));
                    } else if (entry.dropped()) {
                        log.info("schema file: table {} was dropped through DDL; it stays dropped (the stored catalog wins)", t.name());
                    } else if (!squeezed(entry.createSql()).equalsIgnoreCase(squeezed(t.createText()))) {
                        log.warn("schema file: table {} differs from the stored catalog's, which is used (changed through DDL since)", t.name());
                    }
                }
                if (changes.isEmpty()) return stored;
                String router = config.transactions().routerName();
                long version = CatalogStore.record(c, router, changes);
                log.info("stored catalog: recorded {} table(s) from the schema file (version {})", changes.size(), version);
                return CatalogStore.read(c);
            } finally {
                CatalogStore.unlock(c);
            }
        }
    }

    private static String squeezed(String sql) {
        return sql.replaceAll("\\s+", " ").strip();
    }
}
