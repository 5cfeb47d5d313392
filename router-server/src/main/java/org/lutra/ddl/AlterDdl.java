package org.lutra.ddl;

import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.create.table.ColumnDefinition;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.LiveCatalog;
import org.lutra.catalog.Partition;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.SchemaException;
import org.lutra.catalog.SchemaParser;
import org.lutra.catalog.TableDef;
import org.lutra.config.RouterConfig;
import org.lutra.backend.Backends;
import org.lutra.exec.SessionCommand;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * ALTER TABLE, CREATE INDEX and DROP INDEX through the router ({@link DdlRunner}): checked ({@link AlterCheck},
 * {@link ForeignKeyDdl}), applied on each partition of the table, stopping at the first refusal (the error names where it
 * applied); once all applied, the new definition (SHOW CREATE TABLE of a partition, with the placement clause) is recorded
 * and the statement waits one lease, so every router has it when the statement returns (not for a change of plain
 * indexes alone, which routes alike: {@link PlainIndexChange}).
 */
final class AlterDdl {
    private static final Logger log = LoggerFactory.getLogger(AlterDdl.class);

    private final RouterConfig config;
    private final LiveCatalog live;
    private final CatalogLease lease;
    private final Backends backends;
    private final DdlPartitions run;

    AlterDdl(RouterConfig config, LiveCatalog live, CatalogLease lease, Backends backends, DdlPartitions run) {
        this.config = config;
        this.live = live;
        this.lease = lease;
        this.backends = backends;
        this.run = run;
    }

    /** {@code a} on table {@code t}; {@code foreignKeyChecks}: the session's foreign_key_checks. */
    long alter(Connection store, SessionCommand.AlterTable a, TableDef t, boolean foreignKeyChecks) throws SQLException {
        DdlRunner.refuseSequence(t, a.text().split("\\s+")[0].toUpperCase(Locale.ROOT) + " TABLE/INDEX");
        Set<String> droppedIndexes = AlterCheck.check(t, a.clauses(), live.current().secondariesOf(t.name()).stream().flatMap(s -> s.columns().stream()).toList());
        if (!droppedIndexes.isEmpty() && t.partitioning() instanceof Partitioning.LookedUp l && l.unique()) {
            Set<String> unique = uniqueIndexesOn(t, l.column());
            if (!unique.isEmpty() && droppedIndexes.containsAll(unique)) {
                throw AlterCheck.refused(t, String.join(", ", a.clauses()), "it drops the last unique index on the lookup column "
                        + l.column() + " (the router validates its lookup table by counting the rows of unique keys)");
            }
        }
        String sql = a.sql().replaceFirst("(?i)(TABLE\\s+|ON\\s+)`" + java.util.regex.Pattern.quote(a.table().replace("`", "``")) + "`",
                "$1" + java.util.regex.Matcher.quoteReplacement(DdlRunner.quote(t.name())));
        if (backends.mariaDb()) {
            // one time for every partition: a column added with DEFAULT CURRENT_TIMESTAMP gets the same value on every copy of a row
            // (a REPLICATED table's, a replicated key's), as the writes of copies do (exec.SameOnEveryCopy)
            var now = java.time.Instant.now();
            sql = String.format(Locale.ROOT, "SET STATEMENT timestamp = %d.%06d FOR ", now.getEpochSecond(), now.getNano() / 1000) + sql;
        }
        // a foreign key added whose rows may be apart: the shards' own checks off (they would look on their own partition only)
        boolean checks = foreignKeyChecks && ForeignKeyDdl.checkAlter(live.current(), t, a.clauses(), backends, config.database());
        var done = new ArrayList<Integer>();
        int[] partitions = t.partitioning().partitions();
        String before = shownOn(partitions[0], t);
        for (int i = 0; i < partitions.length; i++) {
            try {
                run.apply(partitions[i], sql, checks);
                done.add(partitions[i]);
            } catch (SQLException e) {
                var notTried = new ArrayList<Integer>();
                for (int k = i + 1; k < partitions.length; k++) notTried.add(partitions[k]);
                throw run.located(partitions[i], e, a.text().split("\\s+")[0].toUpperCase(Locale.ROOT) + " on " + t.name() + " applied on "
                        + (done.isEmpty() ? "no partition" : run.names(done)) + ", failed here" + (notTried.isEmpty() ? "" : ", not tried on " + run.names(notTried))
                        + "; the catalog keeps the old definition: run the statement again (with IF [NOT] EXISTS clauses, MariaDB) to finish");
            }
        }
        String after = shownOn(partitions[0], t);
        String newText = definition(after, t);
        Catalog next;
        try {
            var texts = new ArrayList<String>();
            for (TableDef other : live.current().tablesInSchemaOrder()) texts.add(other == t ? newText : other.createText());
            for (var s : live.current().secondaries()) texts.add(s.createText());
            next = SchemaParser.rebuild(texts, live.current().partitions().stream().map(Partition::name).toList(), live.current());
        } catch (SchemaException e) {
            throw new SQLException("the ALTER ran on every partition of " + t.name() + ", but the router cannot read the new definition ("
                    + e.getMessage() + "); the catalog keeps the old one", "HY000", 0, e);
        }
        long version = CatalogStore.record(store, config.transactions().routerName(), List.of(new CatalogStore.Change(t.name(), newText)));
        lease.install(next, version);
        boolean plainIndexes = PlainIndexChange.only(before, after);
        // the statement returns once every router routes with the new definition, or with one that routes alike
        if (!plainIndexes) DdlRunner.sleep(lease.waitMillis());
        log.info("{} on {} ({}), catalog version {}{}", a.text().split("\\s+")[0], t.name(), run.names(done), version,
                plainIndexes ? " (plain indexes only: no lease wait)" : "");
        return 0;
    }

    /** SHOW CREATE TABLE of {@code t} on partition {@code p}. */
    private String shownOn(int p, TableDef t) throws SQLException {
        try (Connection c = backends.placement(p).borrow(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SHOW CREATE TABLE " + DdlRunner.quote(t.name()))) {
            rs.next();
            return rs.getString(2);
        }
    }

    /**
     * The table's definition as a partition's SHOW CREATE TABLE {@code shown} gives it, with the placement clause,
     * except that the routing column keeps its original definition (SHOW CREATE TABLE leaves out a collation equal to
     * the table's default, which the router must see on the column).
     */
    private static String definition(String shown, TableDef t) {
        String routing = t.partitioning().column();
        if (routing != null) {
            String original = originalColumn(t, routing);
            var lines = new ArrayList<String>();
            for (String line : shown.split("\n")) {
                if (original != null && line.strip().toLowerCase(Locale.ROOT).startsWith("`" + routing.toLowerCase(Locale.ROOT) + "` ")) {
                    line = "  " + original + (line.strip().endsWith(",") ? "," : "");
                }
                lines.add(line);
            }
            shown = String.join("\n", lines);
        }
        return shown + "\n  " + t.placement();
    }

    private static String originalColumn(TableDef t, String column) {
        try {
            var create = (CreateTable) CCJSqlParserUtil.parse(t.ddl());
            for (ColumnDefinition c : org.lutra.catalog.CreateTableColumns.columnList(create)) {
                if (c.getColumnName().replace("`", "").equalsIgnoreCase(column)) return c.toString();
            }
        } catch (JSQLParserException | ClassCastException e) {
            return null;
        }
        return null;
    }

    /** Unique indexes of exactly {@code column}, on the table's first partition. */
    private Set<String> uniqueIndexesOn(TableDef t, String column) throws SQLException {
        var out = new HashSet<String>();
        try (Connection c = backends.placement(t.partitioning().partitions()[0]).borrow();
             PreparedStatement ps = c.prepareStatement("SELECT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()"
                     + " AND TABLE_NAME = ? AND NON_UNIQUE = 0 GROUP BY INDEX_NAME HAVING COUNT(*) = 1 AND MAX(LOWER(COLUMN_NAME)) = LOWER(?)")) {
            ps.setString(1, t.name());
            ps.setString(2, column);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.add(rs.getString(1).toLowerCase(Locale.ROOT));
            }
        }
        return out;
    }
}
