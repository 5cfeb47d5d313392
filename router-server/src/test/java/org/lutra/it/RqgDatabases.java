package org.lutra.it;

import org.lutra.it.rqg.Expr;
import org.lutra.it.rqg.Query;
import org.lutra.it.rqg.RqgSchema;
import org.lutra.it.rqg.Runner;
import org.lutra.shards.Shards;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A random schema ({@link RqgSchema}) behind a router and, beside it, in one plain MariaDB database,
 * both holding its rows. The reference session runs with ONLY_FULL_GROUP_BY, so that it rejects a
 * generated statement whose answer one server would pick by row order (a column neither grouped nor
 * aggregated) instead of answering it one way that Lutra might answer another.
 */
final class RqgDatabases implements AutoCloseable {
    private static final Pattern WRITTEN = Pattern.compile("(?is)\\s*(?:UPDATE|DELETE\\s+FROM|(?:INSERT|REPLACE)\\s+(?:IGNORE\\s+)?INTO)\\s+(\\w+).*");

    final RqgSchema schema;
    final Differential differential;
    final TestRouter router;
    final Connection lutra;
    /** Connector/J at the router's MySQL listener: the runner sends a share of the reads through it too. */
    final Connection mysql;
    final Connection reference;

    RqgDatabases(Shards shards, String prefix, RqgSchema schema) throws Exception {
        this.schema = schema;
        this.differential = new Differential(shards, prefix, schema.ddl);
        this.router = differential.router;
        this.lutra = differential.lutra;
        this.reference = differential.reference;
        this.mysql = router.connectMysql("");
        org.lutra.it.rqg.Incidents.install();
        org.lutra.it.rqg.Outcome.timeout(Integer.getInteger("lutra.rqg.timeout", 5));
        try (var st = reference.createStatement()) {
            st.execute("SET SESSION sql_mode = CONCAT(@@sql_mode, ',ONLY_FULL_GROUP_BY')");
        }
        // the rows reference their parents; where a foreign key crosses partitions a shard could not check it
        both("SET foreign_key_checks = 0");
        for (String insert : schema.inserts) {
            try (var l = lutra.createStatement(); var r = reference.createStatement()) {
                assertEquals(r.executeUpdate(insert), l.executeUpdate(insert), insert);
            }
        }
        both("SET foreign_key_checks = 1");
    }

    private void both(String sql) throws SQLException {
        try (var l = lutra.createStatement(); var r = reference.createStatement()) {
            l.execute(sql);
            r.execute(sql);
        }
    }

    Runner runner() {
        return new Runner(lutra, mysql, reference, schema);
    }

    /** A write given as text, judged by its count and the table it writes afterwards. */
    static Query.Dml write(String sql) {
        var m = WRITTEN.matcher(sql);
        if (!m.matches()) throw new IllegalArgumentException("not a write of one table: " + sql);
        return new Query.Dml(sql, m.group(1), List.<Expr>of(), Set.of("write"));
    }

    @Override
    public void close() throws Exception {
        mysql.close();
        differential.close();
    }
}
