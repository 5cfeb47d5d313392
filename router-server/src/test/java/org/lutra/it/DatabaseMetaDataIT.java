package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.*;

/**
 * DatabaseMetaData through Lutra next to Connector/J's on one plain MariaDB holding the same
 * tables (Connector/J with useInformationSchema=false: it reads SHOW statements as the Lutra
 * driver does; its information_schema variant differs from itself in a few columns, e.g. NULL
 * defaults). Every catalog answer must match row for row — labels, column types, values and
 * their classes — with the catalog name mapped; the flag and limit answers must match except for
 * the listed, explained differences.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatabaseMetaDataIT {
    static final String SCHEMA = """
            CREATE TABLE users (id INT NOT NULL AUTO_INCREMENT, name VARCHAR(64) NOT NULL COMMENT 'display name', karma DECIMAL(10,2) DEFAULT 0,
              born DATE, flag TINYINT(1) DEFAULT 1, region CHAR(2) COLLATE utf8mb4_bin, PRIMARY KEY (id), UNIQUE KEY uname (name), KEY k2 (karma, born))
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT NOT NULL, destination INT NOT NULL, since TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
              PRIMARY KEY (source, destination), KEY dest (destination DESC),
              CONSTRAINT fk_src FOREIGN KEY (source) REFERENCES users (id) ON DELETE CASCADE,
              CONSTRAINT fk_dst FOREIGN KEY (destination) REFERENCES users (id) ON UPDATE NO ACTION ON DELETE RESTRICT)
              PARTITION BY lookup(source) SAME AS users;
            CREATE TABLE v (id INT PRIMARY KEY, flag TINYINT(1), bit1 BIT(1), bit8 BIT(8), ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT UNSIGNED, mi MEDIUMINT,
              mu MEDIUMINT UNSIGNED, iu INT UNSIGNED ZEROFILL, bi BIGINT, bu BIGINT UNSIGNED, de DECIMAL(12,4), du DECIMAL(5,0) UNSIGNED, fl FLOAT, fl2 FLOAT(7,3),
              db DOUBLE, db2 DOUBLE(10,2), dt DATE DEFAULT '2020-01-01', tm TIME(3), tm0 TIME, dtm DATETIME(6), dtm0 DATETIME, ts TIMESTAMP(3) NULL, yr YEAR,
              ch CHAR(4) CHARACTER SET utf8mb4, chl CHAR(4) CHARACTER SET latin1, vc VARCHAR(32) CHARACTER SET utf8mb4 DEFAULT 'x''y', tt TINYTEXT,
              tx TEXT CHARACTER SET utf8mb4, mt MEDIUMTEXT, lt LONGTEXT, tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB, bn BINARY(3), vb VARBINARY(8),
              en ENUM('x','yy','z'), st SET('a','b','c'), js JSON, bo BOOLEAN DEFAULT TRUE, u UUID, de2 DECIMAL(10,2) NOT NULL DEFAULT 1.5)
              PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE country (code CHAR(2) COLLATE utf8mb4_bin PRIMARY KEY, name VARCHAR(64)) REPLICATED;
            """;

    Differential differential;
    DatabaseMetaData lutra;
    DatabaseMetaData reference;
    String database;
    String referenceDatabase;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "metadatait", SCHEMA);
        database = differential.router.database;
        referenceDatabase = database + "_ref";
        lutra = differential.lutra.getMetaData();
        // the reference as Connector/J answers it when reading SHOW statements, as Lutra's driver does
        Connection showReading = DriverManager.getConnection(shards.url(0, referenceDatabase) + (shards.url(0, referenceDatabase).contains("?") ? "&" : "?")
                + "useInformationSchema=false", shards.user(), shards.password());
        reference = showReading.getMetaData();
    }

    @AfterAll
    void stop() throws Exception {
        if (reference != null) reference.getConnection().close();
        if (differential != null) differential.close();
    }

    @Test
    void identifiesAsTheBackendProduct() throws SQLException {
        assertEquals(reference.getDatabaseProductVersion(), lutra.getDatabaseProductVersion());
        assertEquals(reference.getDatabaseMajorVersion(), lutra.getDatabaseMajorVersion());
        assertEquals(reference.getDatabaseMinorVersion(), lutra.getDatabaseMinorVersion());
        // Connector/J calls every server "MySQL"; MariaDB's own driver says "MariaDB", which is what tools look for
        assertEquals(lutra.getDatabaseProductVersion().contains("MariaDB") ? "MariaDB" : "MySQL", lutra.getDatabaseProductName());
        assertEquals("Lutra JDBC driver", lutra.getDriverName());
        assertTrue(lutra.getURL().startsWith("jdbc:lutra://"), lutra.getURL());
    }

    @Test
    void catalogsAreTheLogicalDatabaseOnly() throws SQLException {
        assertEquals(List.of(List.of(database)), rows(lutra.getCatalogs()));
        assertEquals(List.of(List.of("TABLE")), rows(lutra.getTableTypes()));
        assertEquals(List.of(), rows(lutra.getTables("other_db", null, "%", null)));
        assertEquals(List.of(), rows(lutra.getColumns("other_db", null, "%", "%")));
        assertEquals(List.of(), rows(lutra.getTables(database, null, "%", new String[] {"VIEW"})));
    }

    @Test
    void tablesMatch() throws SQLException {
        compare("getTables", lutra.getTables(database, null, "%", null), reference.getTables(referenceDatabase, null, "%", null));
        compare("getTables null catalog", lutra.getTables(null, null, null, new String[] {"TABLE"}),
                reference.getTables(referenceDatabase, null, null, new String[] {"TABLE"}));
        compare("getTables pattern", lutra.getTables(database, null, "_s%", null), reference.getTables(referenceDatabase, null, "_s%", null));
        compare("getTables none", lutra.getTables(database, null, "nosuch%", null), reference.getTables(referenceDatabase, null, "nosuch%", null));
        compare("getSchemas", lutra.getSchemas(), reference.getSchemas());
    }

    @Test
    void columnsMatch() throws SQLException {
        for (String table : List.of("users", "followers", "v", "country")) {
            compare("getColumns " + table, lutra.getColumns(database, null, table, "%"), reference.getColumns(referenceDatabase, null, table, "%"));
        }
        compare("getColumns all", lutra.getColumns(database, null, "%", null), reference.getColumns(referenceDatabase, null, "%", null));
        compare("getColumns pattern", lutra.getColumns(database, null, "v", "d%"), reference.getColumns(referenceDatabase, null, "v", "d%"));
    }

    @Test
    void keysAndIndexesMatch() throws SQLException {
        for (String table : List.of("users", "followers", "v", "country", "nosuch")) {
            compare("getPrimaryKeys " + table, lutra.getPrimaryKeys(database, null, table), reference.getPrimaryKeys(referenceDatabase, null, table));
            for (boolean unique : new boolean[] {false, true}) {
                compare("getIndexInfo " + table + " " + unique, lutra.getIndexInfo(database, null, table, unique, true),
                        reference.getIndexInfo(referenceDatabase, null, table, unique, true));
            }
            compare("getImportedKeys " + table, lutra.getImportedKeys(database, null, table), reference.getImportedKeys(referenceDatabase, null, table));
            compare("getExportedKeys " + table, lutra.getExportedKeys(database, null, table), reference.getExportedKeys(referenceDatabase, null, table));
            compare("getBestRowIdentifier " + table, lutra.getBestRowIdentifier(database, null, table, DatabaseMetaData.bestRowSession, true),
                    reference.getBestRowIdentifier(referenceDatabase, null, table, DatabaseMetaData.bestRowSession, true));
            compare("getVersionColumns " + table, lutra.getVersionColumns(database, null, table), reference.getVersionColumns(referenceDatabase, null, table));
        }
        compare("getCrossReference", lutra.getCrossReference(database, null, "users", database, null, "followers"),
                reference.getCrossReference(referenceDatabase, null, "users", referenceDatabase, null, "followers"));
        assertEquals(2, rows(lutra.getImportedKeys(database, null, "followers")).size(), "the two foreign keys of followers");
    }

    @Test
    void typeInfoMatches() throws SQLException {
        var expected = rows(reference.getTypeInfo());
        // Connector/J lists MySQL 9's VECTOR for any server version >= 9, so for MariaDB 11 too, which has none
        expected.removeIf(r -> r.getFirst().equals("VECTOR"));
        assertEquals(expected, rows(lutra.getTypeInfo()));
        assertEquals(labels(reference.getTypeInfo()), labels(lutra.getTypeInfo()));
    }

    @Test
    void emptyAnswersHaveJdbcColumns() throws SQLException {
        compare("getProcedures", lutra.getProcedures(database, null, "%"), reference.getProcedures(referenceDatabase, null, "%"));
        compare("getProcedureColumns", lutra.getProcedureColumns(database, null, "%", "%"), reference.getProcedureColumns(referenceDatabase, null, "%", "%"));
        compare("getFunctions", lutra.getFunctions(database, null, "%"), reference.getFunctions(referenceDatabase, null, "%"));
        compare("getFunctionColumns", lutra.getFunctionColumns(database, null, "%", "%"), reference.getFunctionColumns(referenceDatabase, null, "%", "%"));
        compare("getUDTs", lutra.getUDTs(database, null, "%", null), reference.getUDTs(referenceDatabase, null, "%", null));
        compare("getSuperTypes", lutra.getSuperTypes(database, null, "%"), reference.getSuperTypes(referenceDatabase, null, "%"));
        compare("getSuperTables", lutra.getSuperTables(database, null, "%"), reference.getSuperTables(referenceDatabase, null, "%"));
        compare("getAttributes", lutra.getAttributes(database, null, "%", "%"), reference.getAttributes(referenceDatabase, null, "%", "%"));
        compare("getPseudoColumns", lutra.getPseudoColumns(database, null, "%", "%"), reference.getPseudoColumns(referenceDatabase, null, "%", "%"));
        compare("getClientInfoProperties", lutra.getClientInfoProperties(), reference.getClientInfoProperties());
        assertEquals(labels(reference.getTablePrivileges(referenceDatabase, null, "%")), labels(lutra.getTablePrivileges(database, null, "%")));
        assertEquals(labels(reference.getColumnPrivileges(referenceDatabase, null, "v", "%")), labels(lutra.getColumnPrivileges(database, null, "v", "%")));
    }

    /** Where Lutra answers otherwise than Connector/J on one server, and why. */
    static final Map<String, String> DIFFERENCES = Map.ofEntries(
            Map.entry("getDatabaseProductName", "MariaDB's own name for a MariaDB backend (Connector/J says MySQL for all)"),
            Map.entry("getDriverName", "the Lutra driver"), Map.entry("getDriverVersion", "the Lutra driver"),
            Map.entry("getDriverMajorVersion", "the Lutra driver"), Map.entry("getDriverMinorVersion", "the Lutra driver"),
            Map.entry("getURL", "jdbc:lutra"), Map.entry("getUserName", "a router login, not user@host"),
            Map.entry("getJDBCMinorVersion", "the driver implements JDBC 4.3"),
            Map.entry("allTablesAreSelectable", "router logins may read every table of the catalog"),
            Map.entry("supportsOrderByUnrelated", "MySQL does order by columns not selected; Connector/J says no"),
            Map.entry("supportsMultipleOpenResults", "one result per statement"), Map.entry("supportsMultipleResultSets", "one result per statement"),
            Map.entry("supportsOpenStatementsAcrossCommit", "statements stay usable after commit"),
            Map.entry("supportsOpenStatementsAcrossRollback", "statements stay usable after rollback"),
            Map.entry("supportsStoredProcedures", "no procedures through the router"),
            Map.entry("supportsStoredFunctionsUsingCallSyntax", "no procedures through the router"),
            Map.entry("supportsAlterTableWithAddColumn", "DDL is refused: tables come from the schema file"),
            Map.entry("supportsAlterTableWithDropColumn", "DDL is refused: tables come from the schema file"),
            Map.entry("supportsCatalogsInDataManipulation", "one catalog; qualified names not promised"),
            Map.entry("supportsCatalogsInIndexDefinitions", "one catalog; qualified names not promised"),
            Map.entry("supportsCatalogsInPrivilegeDefinitions", "one catalog; qualified names not promised"),
            Map.entry("supportsCatalogsInProcedureCalls", "one catalog; qualified names not promised"),
            Map.entry("supportsCatalogsInTableDefinitions", "one catalog; qualified names not promised"),
            Map.entry("getResultSetHoldability", "results close at commit by default"),
            Map.entry("supportsResultSetHoldability(1)", "results close at commit by default"),
            Map.entry("supportsResultSetHoldability(2)", "Connector/J says no to both"),
            Map.entry("getMaxStatementLength", "bounded by the router's frame limit instead"),
            Map.entry("getMaxUserNameLength", "router logins have no MySQL limit"));

    @Test
    void flagsAndLimitsMatchExceptWhereLutraDiffers() throws Exception {
        var differing = new TreeMap<String, String>();
        for (Method m : DatabaseMetaData.class.getMethods()) {
            if (m.getReturnType() == ResultSet.class || m.getReturnType() == Connection.class || m.isDefault()) continue;
            for (Object[] args : argumentsFor(m)) {
                Object ours = call(m, lutra, args), theirs = call(m, reference, args);
                if (!Objects.equals(ours, theirs)) {
                    String name = args.length == 0 ? m.getName() : m.getName() + Arrays.toString(args).replace("[", "(").replace("]", ")").replace(" ", "");
                    differing.put(name, ours + " (Connector/J: " + theirs + ")");
                }
            }
        }
        var unexplained = new TreeMap<>(differing);
        unexplained.keySet().removeAll(DIFFERENCES.keySet());
        assertEquals(Map.of(), unexplained, "answers that differ from Connector/J's without a reason");
        var gone = new ArrayList<>(DIFFERENCES.keySet());
        gone.removeAll(differing.keySet());
        assertEquals(List.of(), gone, "listed differences that are no longer there");
    }

    private static List<Object[]> argumentsFor(Method m) {
        var types = m.getParameterTypes();
        if (types.length == 0) return List.<Object[]>of(new Object[0]);
        var out = new ArrayList<Object[]>();
        if (m.getName().equals("supportsResultSetConcurrency")) {
            for (int t : new int[] {1003, 1004}) for (int c : new int[] {1007, 1008}) out.add(new Object[] {t, c});
        } else if (m.getName().equals("supportsResultSetHoldability")) {
            out.add(new Object[] {1});
            out.add(new Object[] {2});
        } else if (m.getName().equals("supportsTransactionIsolationLevel")) {
            for (int l : new int[] {1, 2, 4, 8}) out.add(new Object[] {l});
        } else if (types.length == 1 && types[0] == int.class) {
            for (int t : new int[] {1003, 1004}) out.add(new Object[] {t});
        }
        // supportsConvert(int, int), unwrap, isWrapperFor: not compared
        return out;
    }

    private static Object call(Method m, Object target, Object[] args) throws IllegalAccessException {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            return "throws " + e.getCause().getClass().getSimpleName();
        }
    }

    // ---- comparing result sets -------------------------------------------------------------

    private void compare(String what, ResultSet ours, ResultSet theirs) throws SQLException {
        assertEquals(labels(theirs), labels(ours), what + ": columns");
        assertEquals(rows(theirs), rows(ours), what);
    }

    /** Labels with their java.sql.Types (trimmed: Connector/J's getAttributes says "NULLABLE ", JDBC "NULLABLE"). */
    private static List<String> labels(ResultSet rs) throws SQLException {
        var md = rs.getMetaData();
        var out = new ArrayList<String>();
        for (int i = 1; i <= md.getColumnCount(); i++) out.add(md.getColumnLabel(i).trim() + ":" + md.getColumnType(i));
        return out;
    }

    /** Values with their classes; the reference database's name reads as the logical database's. */
    private List<List<Object>> rows(ResultSet rs) throws SQLException {
        var out = new ArrayList<List<Object>>();
        try (rs) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                var row = new ArrayList<Object>();
                for (int i = 1; i <= n; i++) {
                    Object v = rs.getObject(i);
                    if (referenceDatabase != null && referenceDatabase.equals(v)) v = database;
                    row.add(v == null ? "null" : v instanceof String ? v : v + " (" + v.getClass().getSimpleName() + ")");
                }
                out.add(row);
            }
        }
        return out;
    }
}
