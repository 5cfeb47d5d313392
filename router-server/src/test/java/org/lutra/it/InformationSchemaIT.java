package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * information_schema queries of the kind ORMs, migration tools and database browsers send
 * (Hibernate's schema validation, Liquibase's and DBeaver's foreign-key and index reads) through
 * Lutra over four partitions and on one plain MariaDB holding the same tables (DatabaseMetaDataIT's
 * schema: foreign keys, unique and descending keys, AUTO_INCREMENT, defaults, every column type):
 * labels, column types, values and their classes must agree, the reference's database name read
 * as the logical one. The partitions hold the router's own lutra_ tables too, which must not show.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InformationSchemaIT {
    Differential differential;
    String database;
    String referenceDatabase;

    @BeforeAll
    void start(Shards shards) throws Exception {
        differential = new Differential(shards, "infoschemait", DatabaseMetaDataIT.SCHEMA + FAR);
        database = differential.router.database;
        referenceDatabase = database + "_ref";
    }

    @AfterAll
    void stop() throws Exception {
        if (differential != null) differential.close();
    }

    /** A table whose partitions do not include the one answering: its rows come as literals. */
    static final String FAR = """
            CREATE TABLE country_id (id INT PRIMARY KEY, name VARCHAR(8) DEFAULT 'n/a') PARTITION BY hash(id) ON (p2, p3);
            CREATE TABLE far (id BIGINT UNSIGNED NOT NULL, owner INT, note TEXT, PRIMARY KEY (id), KEY by_owner (owner, id),
              CONSTRAINT fk_owner FOREIGN KEY (owner) REFERENCES country_id (id)) COMMENT = 'far away: it''s \\\\ far'
              PARTITION BY hash(id) ON (p2, p3);
            CREATE TABLE counted (id INT PRIMARY KEY, g INT, KEY by_g (g)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            """;

    /** Statements with a '?' for the database, and '?' for a table where {@code perTable}. */
    record Query(String sql, boolean perTable) {}

    static final List<Query> QUERIES = List.of(
            // Hibernate's / Liquibase's column reads
            new Query("SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION,"
                    + " NUMERIC_SCALE, DATETIME_PRECISION, CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_KEY, EXTRA, COLUMN_COMMENT"
                    + " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", true),
            new Query("SELECT * FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION", false),
            new Query("SELECT table_name, column_name, ordinal_position FROM information_schema.columns WHERE table_schema = ?"
                    + " AND column_name LIKE 'd%' ORDER BY 1, 3", false),
            new Query("SELECT TABLE_NAME, COUNT(*) AS n, MAX(ORDINAL_POSITION) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ?"
                    + " GROUP BY TABLE_NAME ORDER BY TABLE_NAME", false),
            new Query("SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = 'id'", true),
            new Query("SELECT c.TABLE_NAME, c.COLUMN_NAME, c.DATA_TYPE FROM information_schema.TABLES t JOIN information_schema.COLUMNS c"
                    + " ON c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME WHERE t.TABLE_SCHEMA = ? AND t.TABLE_TYPE = 'BASE TABLE'"
                    + " ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION", false),
            // tables with what their definitions decide (Connector/J's DatabaseMetaData.getTables asks TABLE_COMMENT)
            new Query("SELECT TABLE_SCHEMA AS TABLE_CAT, NULL AS TABLE_SCHEM, TABLE_NAME, CASE WHEN TABLE_TYPE='BASE TABLE' THEN CASE WHEN"
                    + " TABLE_SCHEMA = 'mysql' OR TABLE_SCHEMA = 'performance_schema' THEN 'SYSTEM TABLE' ELSE 'TABLE' END WHEN TABLE_TYPE='TEMPORARY'"
                    + " THEN 'LOCAL_TEMPORARY' ELSE TABLE_TYPE END AS TABLE_TYPE, TABLE_COMMENT AS REMARKS, NULL AS TYPE_CAT, NULL AS TYPE_SCHEM,"
                    + " NULL AS TYPE_NAME, NULL AS SELF_REFERENCING_COL_NAME, NULL AS REF_GENERATION FROM INFORMATION_SCHEMA.TABLES"
                    + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME LIKE ? HAVING TABLE_TYPE IN ('TABLE','VIEW',null,null,null)"
                    + " ORDER BY TABLE_TYPE, TABLE_SCHEMA, TABLE_NAME", true),
            new Query("SELECT TABLE_NAME, TABLE_TYPE, ENGINE, ROW_FORMAT, TABLE_COLLATION, CREATE_OPTIONS, TABLE_COMMENT FROM information_schema.TABLES"
                    + " WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME", false),
            new Query("SELECT t.TABLE_NAME, t.TABLE_COMMENT, COUNT(*) FROM information_schema.TABLES t JOIN information_schema.COLUMNS c"
                    + " ON c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME WHERE t.TABLE_SCHEMA = ? GROUP BY 1, 2 ORDER BY 1", false),
            // the server's own tables (Connector/J's getSQLKeywords reads KEYWORDS; character sets)
            new Query("SELECT WORD FROM INFORMATION_SCHEMA.KEYWORDS ORDER BY WORD", false), // MariaDB has no RESERVED column (MySQL 8 has)
            new Query("SELECT c.COLLATION_NAME, c.ID, s.MAXLEN FROM information_schema.COLLATIONS c JOIN information_schema.CHARACTER_SETS s"
                    + " USING (CHARACTER_SET_NAME) WHERE c.IS_DEFAULT = 'Yes' ORDER BY c.ID", false),
            new Query("SELECT t.TABLE_NAME, s.CHARACTER_SET_NAME FROM information_schema.TABLES t JOIN information_schema.COLLATION_CHARACTER_SET_APPLICABILITY s"
                    + " ON s.COLLATION_NAME = 'utf8mb4_bin' WHERE t.TABLE_SCHEMA = ? ORDER BY 1", false),
            // indexes (DBeaver, Liquibase's snapshot)
            new Query("SELECT TABLE_SCHEMA, TABLE_NAME, NON_UNIQUE, INDEX_SCHEMA, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, COLLATION, SUB_PART,"
                    + " PACKED, NULLABLE, INDEX_TYPE, COMMENT, INDEX_COMMENT FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
                    + " ORDER BY INDEX_NAME, SEQ_IN_INDEX", true),
            new Query("SELECT DISTINCT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND NON_UNIQUE = 0 ORDER BY 1", false),
            // keys and foreign keys
            new Query("SELECT * FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION", false),
            new Query("SELECT CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME"
                    + " FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND REFERENCED_TABLE_NAME IS NOT NULL"
                    + " ORDER BY CONSTRAINT_NAME, POSITION_IN_UNIQUE_CONSTRAINT", true),
            new Query("SELECT * FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? ORDER BY CONSTRAINT_NAME", false),
            new Query("SELECT rc.CONSTRAINT_NAME, rc.UPDATE_RULE, rc.DELETE_RULE, rc.TABLE_NAME, rc.REFERENCED_TABLE_NAME, kcu.COLUMN_NAME,"
                    + " kcu.REFERENCED_COLUMN_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS rc JOIN information_schema.KEY_COLUMN_USAGE kcu"
                    + " ON rc.CONSTRAINT_SCHEMA = kcu.CONSTRAINT_SCHEMA AND rc.CONSTRAINT_NAME = kcu.CONSTRAINT_NAME AND rc.TABLE_NAME = kcu.TABLE_NAME"
                    + " WHERE rc.CONSTRAINT_SCHEMA = ? ORDER BY rc.CONSTRAINT_NAME, kcu.ORDINAL_POSITION", false),
            new Query("SELECT * FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, CONSTRAINT_NAME", false),
            new Query("SELECT tc.CONSTRAINT_NAME, k.COLUMN_NAME FROM information_schema.TABLE_CONSTRAINTS tc JOIN information_schema.KEY_COLUMN_USAGE k"
                    + " USING (CONSTRAINT_SCHEMA, CONSTRAINT_NAME, TABLE_NAME) WHERE tc.TABLE_SCHEMA = ? AND tc.CONSTRAINT_TYPE = 'PRIMARY KEY'"
                    + " ORDER BY tc.TABLE_NAME, k.ORDINAL_POSITION", false));

    @Test
    void typicalToolQueriesAnswerAsOneMariaDb() throws SQLException {
        int compared = 0;
        for (Query q : QUERIES) {
            for (String table : q.perTable() ? List.of("users", "followers", "v", "country", "far", "country_id", "nosuch") : List.of("")) {
                var expected = answer(differential.reference, q.sql(), referenceDatabase, table);
                var actual = answer(differential.lutra, q.sql(), database, table);
                assertEquals(expected.labels, actual.labels, q.sql());
                // rows of tables away from the answering partition are literals in a UNION, which widens the long text columns
                assertEquals(expected.types, actual.types.stream().map(t -> t.equals("LONGTEXT/-1") ? "MEDIUMTEXT/-1" : t).toList(), q.sql());
                assertEquals(expected.rows, actual.rows, q.sql() + " [" + table + "]");
                compared += expected.rows.size();
            }
        }
        assertTrue(compared > 200, "rows compared: " + compared);
    }

    @Test
    void theRoutersOwnTablesAndOtherDatabasesDoNotShow() throws SQLException {
        var lutra = answer(differential.lutra, "SELECT DISTINCT TABLE_NAME FROM information_schema.COLUMNS ORDER BY 1", null, "");
        assertEquals(List.of(List.of("counted"), List.of("country"), List.of("country_id"), List.of("far"), List.of("followers"), List.of("users"), List.of("v")), lutra.rows.stream()
                .map(r -> r.subList(0, 1).stream().map(v -> v.replaceAll(" .*", "")).toList()).toList());
        var schemas = answer(differential.lutra, "SELECT DISTINCT TABLE_SCHEMA, INDEX_SCHEMA FROM information_schema.STATISTICS", null, "");
        assertEquals(1, schemas.rows.size());
        assertTrue(schemas.rows.getFirst().getFirst().startsWith(database + " "), schemas.rows.toString());
    }

    /**
     * STATISTICS.CARDINALITY, the server's estimate of an index's distinct keys, is the sum of the partitions' own: a unique key's
     * is then the table's row count, as one MariaDB's, and any other index's what the partitions say together.
     */
    @Test
    void cardinalitiesAreSummedOverThePartitions() throws SQLException {
        differential.both("INSERT INTO counted VALUES (1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3), (7, 3), (8, 4), (9, 4), (10, 5), (11, 5)");
        long direct = 0;
        for (int p = 0; p < 4; p++) {
            try (var c = differential.router.partition(p); var st = c.createStatement()) {
                st.execute("ANALYZE TABLE counted");
                try (var rs = st.executeQuery("SELECT CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()"
                        + " AND TABLE_NAME = 'counted' AND INDEX_NAME = 'by_g'")) {
                    assertTrue(rs.next());
                    direct += rs.getLong(1);
                }
            }
        }
        try (var st = differential.reference.createStatement()) {
            st.execute("ANALYZE TABLE counted");
        }
        String sql = "SELECT INDEX_NAME, CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'counted' ORDER BY 1";
        var lutra = answer(differential.lutra, sql, database, "");
        var reference = answer(differential.reference, sql, referenceDatabase, "");
        // by_g sorts first (information_schema's names compare case-insensitively)
        assertEquals(reference.rows.get(1), lutra.rows.get(1), "PRIMARY: the row count on both");
        assertEquals(List.of("PRIMARY String", "11 Long"), lutra.rows.get(1));
        assertEquals(List.of("by_g String", direct + " Long"), lutra.rows.get(0));
        assertEquals(reference.types, lutra.types);
    }

    record Answer(List<String> labels, List<String> types, List<List<String>> rows) {}

    /** The answer with the reference's database name read as the logical one; each value with its class. */
    private Answer answer(Connection c, String sql, String db, String table) throws SQLException {
        try (var ps = c.prepareStatement(sql)) {
            int params = ps.getParameterMetaData().getParameterCount();
            if (params > 0) ps.setString(1, db);
            if (params > 1) ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                var md = rs.getMetaData();
                var labels = new ArrayList<String>();
                var types = new ArrayList<String>();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    labels.add(md.getColumnLabel(i));
                    types.add(md.getColumnTypeName(i) + "/" + md.getColumnType(i));
                }
                var rows = new ArrayList<List<String>>();
                while (rs.next()) {
                    var row = new ArrayList<String>();
                    for (int i = 1; i <= md.getColumnCount(); i++) {
                        Object v = rs.getObject(i);
                        row.add(v == null ? "NULL" : v.toString().replace(referenceDatabase, database) + " " + v.getClass().getSimpleName());
                    }
                    rows.add(row);
                }
                return new Answer(labels, types, rows);
            }
        }
    }
}
