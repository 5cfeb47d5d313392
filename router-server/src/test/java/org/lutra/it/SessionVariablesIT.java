package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/**
 * System variables a MySQL client reads by habit (SELECT @@..., SHOW VARIABLES), and read-only
 * sessions (Connection.setReadOnly): through Lutra as Connector/J straight to one MariaDB answers,
 * while the session changes auto-commit, isolation and read-only on both sides alike.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SessionVariablesIT {
    Differential differential;
    Connection lutra;
    Connection reference;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "sessionvarsit", "CREATE TABLE kv (k INT PRIMARY KEY, v VARCHAR(10)) PARTITION BY hash(k) ON (p0, p1, p2, p3);");
        lutra = differential.lutra;
        reference = differential.reference;
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    @AfterEach
    void reset() throws SQLException {
        for (Connection c : List.of(lutra, reference)) {
            c.setReadOnly(false);
            if (!c.getAutoCommit()) c.rollback();
            c.setAutoCommit(true);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        }
        reference.createStatement().execute("SET SESSION TRANSACTION READ WRITE");
    }

    /** Connection.setReadOnly through Lutra; on the reference the statement Connector/J would send (it also refuses writes itself). */
    private void readOnly(Connection c, boolean on) throws SQLException {
        if (c == lutra) c.setReadOnly(on);
        else c.createStatement().execute(on ? "SET SESSION TRANSACTION READ ONLY" : "SET SESSION TRANSACTION READ WRITE");
    }

    private void same(String sql) throws SQLException {
        assertEquals(answer(reference, sql), answer(lutra, sql), sql);
    }

    /** Labels, then rows of getString values. */
    private static List<List<String>> answer(Connection c, String sql) throws SQLException {
        var out = new ArrayList<List<String>>();
        try (var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            var labels = new ArrayList<String>();
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) labels.add(rs.getMetaData().getColumnLabel(i));
            out.add(labels);
            while (rs.next()) {
                var row = new ArrayList<String>();
                for (int i = 1; i <= labels.size(); i++) row.add(rs.getString(i));
                out.add(row);
            }
        }
        return out;
    }

    private static final String READ = "SELECT @@autocommit, @@session.transaction_isolation AS iso, @@tx_isolation, @@transaction_read_only,"
            + " @@in_transaction, @@version, @@sql_mode, @@time_zone, @@lower_case_table_names, @@character_set_client, @@global.autocommit";

    @Test
    void variablesReadAsOnOneServer() throws SQLException {
        same(READ);
        same("SELECT @@version");
        // the longest statement the router takes bounds it: a client sizing batches by it stays under the router's limit
        try (var l = lutra.createStatement(); var lr = l.executeQuery("SELECT @@max_allowed_packet AS `packet`");
             var r = reference.createStatement(); var rr = r.executeQuery("SELECT @@max_allowed_packet AS `packet`")) {
            assertTrue(lr.next() && rr.next());
            assertEquals(Math.min(rr.getLong(1), 1 << 20), lr.getLong(1)); // test routers take frames of 1 MiB
            assertEquals(rr.getMetaData().getColumnLabel(1), lr.getMetaData().getColumnLabel(1));
        }
        same("SHOW VARIABLES LIKE 'autocommit'");
        same("SHOW SESSION VARIABLES LIKE 'tx\\_%'");
        same("SHOW VARIABLES LIKE 'lower_case_table_names'");
        same("SHOW VARIABLES LIKE 'transaction_%'");
        for (Connection c : List.of(lutra, reference)) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            readOnly(c, true);
            try (var st = c.createStatement()) {
                st.executeQuery("SELECT * FROM kv").close(); // a transaction is open now
            }
        }
        same(READ);
        same("SHOW VARIABLES LIKE 'autocommit'");
        same("SHOW VARIABLES LIKE 'tx\\_%'");
        same("SHOW VARIABLES LIKE 'transaction_%'");
    }

    @Test
    void whatOnlyABackendSessionKnowsIsRefusedOrLeftOut() throws SQLException {
        var e = assertThrows(SQLException.class, () -> answer(lutra, "SELECT @@last_insert_id"));
        assertRefusal(e, e.getMessage());
        assertThrows(SQLException.class, () -> answer(lutra, "SELECT @@session.warning_count"));
        for (String sql : List.of("SHOW SESSION STATUS LIKE 'Com_%'", "SET sql_mode = 'ANSI_QUOTES'", "SET GLOBAL time_zone = '+00:00'", "SET @x = (SELECT 1)", "SET wait_timeout = 10", "SELECT @@autocommit + 1")) {
            var refused = assertThrows(SQLException.class, () -> lutra.createStatement().execute(sql), sql);
            assertRefusal(refused, sql + ": " + refused.getMessage());
            assertFalse(refused.getMessage().contains("schema file"), refused.getMessage());
        }
        var all = answer(lutra, "SHOW VARIABLES");
        assertTrue(all.size() > 100, "all variables: " + all.size());
        assertTrue(all.stream().noneMatch(r -> r.getFirst().equals("pseudo_thread_id")), "a pooled connection's thread id is not this session's");
        assertTrue(all.stream().anyMatch(r -> r.equals(List.of("autocommit", "ON"))));
    }

    @Test
    void aReadOnlySessionRefusesWritesAsMySqlDoes() throws SQLException {
        for (Connection c : List.of(lutra, reference)) {
            readOnly(c, true);
            var e = assertThrows(SQLException.class, () -> c.createStatement().executeUpdate("INSERT INTO kv VALUES (1, 'one')"), c.toString());
            assertEquals(1792, e.getErrorCode(), e.getMessage());
            assertEquals("25006", e.getSQLState());
            c.setAutoCommit(false);
            assertThrows(SQLException.class, () -> c.createStatement().executeUpdate("UPDATE kv SET v = 'x'"));
            c.rollback();
            c.setAutoCommit(true);
            readOnly(c, false);
            assertEquals(1, c.createStatement().executeUpdate("INSERT INTO kv VALUES (1, 'one')"));
            assertEquals(1, c.createStatement().executeUpdate("DELETE FROM kv"));
        }
        lutra.setReadOnly(true);
        assertTrue(lutra.isReadOnly());
        lutra.setReadOnly(false);
        // the SQL form, for the next transaction only
        try (var st = lutra.createStatement()) {
            st.execute("SET TRANSACTION READ ONLY");
            st.execute("START TRANSACTION");
            assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO kv VALUES (2, 'two')"));
            st.execute("ROLLBACK");
            st.execute("START TRANSACTION");
            assertEquals(1, st.executeUpdate("INSERT INTO kv VALUES (2, 'two')"));
            st.execute("ROLLBACK");
        }
    }
}
