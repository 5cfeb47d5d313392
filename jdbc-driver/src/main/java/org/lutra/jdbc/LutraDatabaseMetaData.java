package org.lutra.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * DatabaseMetaData for a Lutra connection. Identity: the database product and version are the
 * backends' ("MariaDB" / "MySQL", "11.4.5-MariaDB", as the router read them at start), because
 * tools choose their SQL dialect by them and the router speaks that dialect; the driver names
 * itself ("Lutra JDBC driver"). Catalog queries are answered by {@link CatalogReader} from the
 * router's SHOW statements, in the columns and order JDBC defines and Connector/J returns.
 */
public final class LutraDatabaseMetaData extends DialectMetaData {
    private final LutraConnection connection;
    private final String database;
    private final CatalogReader reader;

    LutraDatabaseMetaData(LutraConnection connection) {
        this.connection = connection;
        this.database = connection.url().database();
        this.reader = new CatalogReader(connection, database, lowerCaseTableNames());
    }

    @Override
    boolean lowerCaseTableNames() {
        return connection.session().lowerCaseTableNames() != 0;
    }

    // ---- identity --------------------------------------------------------------------------

    /** "MariaDB" or "MySQL", after the backends' version text; the router's name if it did not send one. */
    @Override
    public String getDatabaseProductName() {
        String v = connection.session().backendVersion();
        if (v.isEmpty()) return "Lutra";
        return v.toLowerCase(Locale.ROOT).contains("mariadb") ? "MariaDB" : "MySQL";
    }

    @Override
    public String getDatabaseProductVersion() {
        String v = connection.session().backendVersion();
        return v.isEmpty() ? connection.session().serverVersion() : v;
    }

    @Override
    public int getDatabaseMajorVersion() {
        return versionPart(getDatabaseProductVersion(), 0);
    }

    @Override
    public int getDatabaseMinorVersion() {
        return versionPart(getDatabaseProductVersion(), 1);
    }

    /** The index-th number of a version text: 11 and 4 of "11.4.5-MariaDB". */
    static int versionPart(String version, int index) {
        int seen = 0;
        for (String p : version.split("[^0-9]+")) {
            if (p.isEmpty()) continue;
            if (seen++ == index) {
                try {
                    return Integer.parseInt(p);
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }

    @Override public String getDriverName() { return "Lutra JDBC driver"; }
    @Override public String getDriverVersion() { return LutraDriver.VERSION; }
    @Override public int getDriverMajorVersion() { return LutraDriver.MAJOR_VERSION; }
    @Override public int getDriverMinorVersion() { return LutraDriver.MINOR_VERSION; }
    @Override public String getURL() { return JdbcUrl.redact(connection.url().url()); }
    @Override public String getUserName() { return connection.url().user(); }
    @Override public Connection getConnection() { return connection; }
    @Override public boolean isReadOnly() throws SQLException { return connection.isReadOnly(); }

    // ---- catalogs and tables ---------------------------------------------------------------

    @Override
    public ResultSet getCatalogs() throws SQLException {
        var rows = new MetaRows().varchar("TABLE_CAT");
        rows.row(database);
        return rows.toResultSet(connection);
    }

    @Override
    public ResultSet getSchemas() throws SQLException {
        return getSchemas(null, null);
    }

    @Override
    public ResultSet getSchemas(String catalog, String schemaPattern) throws SQLException {
        return new MetaRows().text("TABLE_SCHEM", "TABLE_CATALOG").toResultSet(connection);
    }

    @Override
    public ResultSet getTableTypes() throws SQLException {
        var rows = new MetaRows().varchar("TABLE_TYPE");
        rows.row("TABLE"); // the router has base tables only: no views, no temporary tables it would list
        return rows.toResultSet(connection);
    }

    @Override
    public ResultSet getTables(String catalog, String schemaPattern, String tableNamePattern, String[] types) throws SQLException {
        var rows = new MetaRows().varchar("TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE", "REMARKS", "TYPE_CAT", "TYPE_SCHEM",
                "TYPE_NAME", "SELF_REFERENCING_COL_NAME", "REF_GENERATION");
        if (types == null || List.of(types).stream().anyMatch(t -> "TABLE".equalsIgnoreCase(t))) {
            for (String t : reader.tables(catalog, tableNamePattern)) {
                rows.row(database, null, t, "TABLE", "", null, null, null, null, null);
            }
        }
        return rows.orderBy(4, 1, 2, 3).toResultSet(connection);
    }

    @Override
    public ResultSet getColumns(String catalog, String schemaPattern, String tableNamePattern, String columnNamePattern) throws SQLException {
        var rows = new MetaRows().text("TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "COLUMN_NAME").integer("DATA_TYPE").text("TYPE_NAME")
                .integer("COLUMN_SIZE", "BUFFER_LENGTH", "DECIMAL_DIGITS", "NUM_PREC_RADIX", "NULLABLE").text("REMARKS", "COLUMN_DEF")
                .integer("SQL_DATA_TYPE", "SQL_DATETIME_SUB", "CHAR_OCTET_LENGTH", "ORDINAL_POSITION").text("IS_NULLABLE", "SCOPE_CATALOG",
                        "SCOPE_SCHEMA", "SCOPE_TABLE").smallint("SOURCE_DATA_TYPE").text("IS_AUTOINCREMENT", "IS_GENERATEDCOLUMN");
        for (String t : reader.tables(catalog, tableNamePattern)) {
            for (var c : reader.columns(t)) {
                if (!CatalogReader.Like.matches(columnNamePattern, c.name(), true)) continue; // column names are case-insensitive in MySQL
                var type = ColumnTypes.describe(c.type());
                rows.row(database, null, t, c.name(), type.jdbcType(), type.typeName(), type.columnSize(), 65535, type.decimalDigits(), 10,
                        c.nullable() ? columnNullable : columnNoNulls, c.comment(), c.defaultValue(), 0, 0, type.charOctetLength(),
                        c.position(), c.nullable() ? "YES" : "NO", null, null, null, null, c.autoIncrement() ? "YES" : "NO",
                        c.generated() ? "YES" : "NO");
            }
        }
        return rows.toResultSet(connection); // tables in name order, columns in table order
    }

    @Override
    public ResultSet getPrimaryKeys(String catalog, String schema, String table) throws SQLException {
        var rows = new MetaRows().text("TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "COLUMN_NAME").smallint("KEY_SEQ").text("PK_NAME");
        for (String t : exactTable(catalog, table)) {
            for (var i : reader.indexes(t)) {
                if (i.indexName().equals("PRIMARY")) rows.row(database, null, t, i.column(), i.seq(), "PRIMARY");
            }
        }
        return rows.orderBy(4).toResultSet(connection);
    }

    @Override
    public ResultSet getIndexInfo(String catalog, String schema, String table, boolean unique, boolean approximate) throws SQLException {
        var rows = new MetaRows().text("TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME").bool("NON_UNIQUE").text("INDEX_QUALIFIER", "INDEX_NAME")
                .smallint("TYPE", "ORDINAL_POSITION").text("COLUMN_NAME", "ASC_OR_DESC").bigint("CARDINALITY", "PAGES").text("FILTER_CONDITION");
        for (String t : exactTable(catalog, table)) {
            for (var i : reader.indexes(t)) {
                if (unique && i.nonUnique()) continue;
                int type = i.indexType().equalsIgnoreCase("HASH") ? tableIndexHashed : tableIndexOther;
                // CARDINALITY is one partition's estimate: the partition that answered SHOW INDEX
                rows.row(database, null, t, i.nonUnique(), null, i.indexName(), type, i.seq(), i.column(), i.collation(),
                        i.cardinality(), 0L, null);
            }
        }
        return rows.orderBy(4, 7, 6, 8).toResultSet(connection);
    }

    @Override
    public ResultSet getImportedKeys(String catalog, String schema, String table) throws SQLException {
        var rows = keyRows();
        for (String t : exactTable(catalog, table)) {
            for (var fk : reader.foreignKeys(t)) addKey(rows, fk);
        }
        return rows.orderBy(1, 2, 3, 9).toResultSet(connection);
    }

    @Override
    public ResultSet getExportedKeys(String catalog, String schema, String table) throws SQLException {
        var rows = keyRows();
        for (String parent : exactTable(catalog, table)) {
            for (String t : reader.tables(catalog, null)) {
                for (var fk : reader.foreignKeys(t)) {
                    if (sameTable(fk.referencedTable(), parent)) addKey(rows, fk);
                }
            }
        }
        return rows.orderBy(5, 6, 7, 9).toResultSet(connection);
    }

    @Override
    public ResultSet getCrossReference(String parentCatalog, String parentSchema, String parentTable, String foreignCatalog,
                                       String foreignSchema, String foreignTable) throws SQLException {
        var rows = keyRows();
        if (reader.isOurs(parentCatalog)) {
            for (String t : exactTable(foreignCatalog, foreignTable)) {
                for (var fk : reader.foreignKeys(t)) {
                    if (parentTable != null && sameTable(fk.referencedTable(), parentTable)) addKey(rows, fk);
                }
            }
        }
        return rows.orderBy(5, 6, 7, 9).toResultSet(connection);
    }

    private static MetaRows keyRows() {
        return new MetaRows().text("PKTABLE_CAT", "PKTABLE_SCHEM", "PKTABLE_NAME", "PKCOLUMN_NAME", "FKTABLE_CAT", "FKTABLE_SCHEM",
                "FKTABLE_NAME", "FKCOLUMN_NAME").smallint("KEY_SEQ", "UPDATE_RULE", "DELETE_RULE").text("FK_NAME", "PK_NAME")
                .smallint("DEFERRABILITY");
    }

    private void addKey(MetaRows rows, CatalogReader.ForeignKey fk) {
        for (int i = 0; i < fk.columns().size(); i++) {
            rows.row(database, null, fk.referencedTable(), fk.referencedColumns().get(i), database, null, fk.table(), fk.columns().get(i),
                    i + 1, fk.updateRule(), fk.deleteRule(), fk.name(), null, importedKeyNotDeferrable);
        }
    }

    private boolean sameTable(String a, String b) {
        return lowerCaseTableNames() ? a.equalsIgnoreCase(b) : a.equals(b);
    }

    /** The table named exactly (not a pattern), as the catalog lists it; none if it does not exist. */
    private List<String> exactTable(String catalog, String table) throws SQLException {
        var out = new ArrayList<String>();
        if (table == null) return out;
        for (String t : reader.tables(catalog, null)) {
            if (sameTable(t, table)) out.add(t);
        }
        return out;
    }

    @Override
    public ResultSet getBestRowIdentifier(String catalog, String schema, String table, int scope, boolean nullable) throws SQLException {
        var rows = rowIdRows();
        for (String t : exactTable(catalog, table)) {
            var columns = reader.columns(t);
            for (var i : reader.indexes(t)) {
                if (!i.indexName().equals("PRIMARY")) continue;
                for (var c : columns) {
                    if (c.name().equals(i.column())) addRowId(rows, bestRowSession, c);
                }
            }
        }
        return rows.toResultSet(connection);
    }

    @Override
    public ResultSet getVersionColumns(String catalog, String schema, String table) throws SQLException {
        var rows = rowIdRows();
        for (String t : exactTable(catalog, table)) {
            for (var c : reader.columns(t)) {
                if (c.onUpdateCurrentTimestamp()) addRowId(rows, null, c); // MySQL changes them on every update
            }
        }
        return rows.toResultSet(connection);
    }

    private static MetaRows rowIdRows() {
        return new MetaRows().smallint("SCOPE").text("COLUMN_NAME").integer("DATA_TYPE").text("TYPE_NAME")
                .integer("COLUMN_SIZE", "BUFFER_LENGTH").smallint("DECIMAL_DIGITS", "PSEUDO_COLUMN");
    }

    private static void addRowId(MetaRows rows, Integer scope, CatalogReader.ColumnInfo c) {
        var type = ColumnTypes.describe(c.type());
        rows.row(scope, c.name(), type.jdbcType(), type.typeName(), type.columnSize(), 65535, type.decimalDigits(), bestRowNotPseudo);
    }

    @Override
    public ResultSet getTypeInfo() throws SQLException {
        var rows = new MetaRows().text("TYPE_NAME").integer("DATA_TYPE", "PRECISION").text("LITERAL_PREFIX", "LITERAL_SUFFIX", "CREATE_PARAMS")
                .smallint("NULLABLE").bool("CASE_SENSITIVE").smallint("SEARCHABLE").bool("UNSIGNED_ATTRIBUTE", "FIXED_PREC_SCALE", "AUTO_INCREMENT")
                .text("LOCAL_TYPE_NAME").smallint("MINIMUM_SCALE", "MAXIMUM_SCALE").integer("SQL_DATA_TYPE", "SQL_DATETIME_SUB", "NUM_PREC_RADIX");
        for (var t : ColumnTypes.TYPES) {
            String quote = t.quoted() ? "'" : "";
            rows.row(t.name(), t.jdbcType(), t.precision(), quote, quote, t.createParams(), typeNullable, true, typeSearchable,
                    t.unsigned(), false, t.autoIncrement(), t.localName(), t.minScale(), t.maxScale(), 0, 0, 10);
        }
        return rows.toResultSet(connection);
    }

    // ---- what Lutra does not have: empty answers with JDBC's columns -----------------------

    @Override
    public ResultSet getProcedures(String catalog, String schemaPattern, String procedureNamePattern) throws SQLException {
        return new MetaRows().text("PROCEDURE_CAT", "PROCEDURE_SCHEM", "PROCEDURE_NAME", "reserved1", "reserved2", "reserved3", "REMARKS")
                .smallint("PROCEDURE_TYPE").text("SPECIFIC_NAME").toResultSet(connection);
    }

    @Override
    public ResultSet getProcedureColumns(String catalog, String schemaPattern, String procedureNamePattern, String columnNamePattern)
            throws SQLException {
        return new MetaRows().text("PROCEDURE_CAT", "PROCEDURE_SCHEM", "PROCEDURE_NAME", "COLUMN_NAME", "COLUMN_TYPE").smallint("DATA_TYPE")
                .text("TYPE_NAME").integer("PRECISION", "LENGTH").smallint("SCALE", "RADIX", "NULLABLE").text("REMARKS", "COLUMN_DEF")
                .integer("SQL_DATA_TYPE", "SQL_DATETIME_SUB", "CHAR_OCTET_LENGTH", "ORDINAL_POSITION").text("IS_NULLABLE", "SPECIFIC_NAME")
                .toResultSet(connection);
    }

    @Override
    public ResultSet getFunctions(String catalog, String schemaPattern, String functionNamePattern) throws SQLException {
        return new MetaRows().text("FUNCTION_CAT", "FUNCTION_SCHEM", "FUNCTION_NAME", "REMARKS").smallint("FUNCTION_TYPE")
                .text("SPECIFIC_NAME").toResultSet(connection);
    }

    @Override
    public ResultSet getFunctionColumns(String catalog, String schemaPattern, String functionNamePattern, String columnNamePattern)
            throws SQLException {
        return new MetaRows().varchar("FUNCTION_CAT", "FUNCTION_SCHEM", "FUNCTION_NAME", "COLUMN_NAME", "COLUMN_TYPE").smallint("DATA_TYPE")
                .varchar("TYPE_NAME").integer("PRECISION", "LENGTH").smallint("SCALE", "RADIX", "NULLABLE").varchar("REMARKS")
                .integer("CHAR_OCTET_LENGTH", "ORDINAL_POSITION").varchar("IS_NULLABLE", "SPECIFIC_NAME").toResultSet(connection);
    }

    @Override
    public ResultSet getUDTs(String catalog, String schemaPattern, String typeNamePattern, int[] types) throws SQLException {
        return new MetaRows().varchar("TYPE_CAT", "TYPE_SCHEM", "TYPE_NAME", "CLASS_NAME").integer("DATA_TYPE").varchar("REMARKS")
                .smallint("BASE_TYPE").toResultSet(connection);
    }

    @Override
    public ResultSet getSuperTypes(String catalog, String schemaPattern, String typeNamePattern) throws SQLException {
        return new MetaRows().text("TYPE_CAT", "TYPE_SCHEM", "TYPE_NAME", "SUPERTYPE_CAT", "SUPERTYPE_SCHEM", "SUPERTYPE_NAME")
                .toResultSet(connection);
    }

    @Override
    public ResultSet getSuperTables(String catalog, String schemaPattern, String tableNamePattern) throws SQLException {
        return new MetaRows().text("TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "SUPERTABLE_NAME").toResultSet(connection);
    }

    @Override
    public ResultSet getAttributes(String catalog, String schemaPattern, String typeNamePattern, String attributeNamePattern)
            throws SQLException {
        return new MetaRows().text("TYPE_CAT", "TYPE_SCHEM", "TYPE_NAME", "ATTR_NAME").smallint("DATA_TYPE").text("ATTR_TYPE_NAME")
                .integer("ATTR_SIZE", "DECIMAL_DIGITS", "NUM_PREC_RADIX", "NULLABLE").text("REMARKS", "ATTR_DEF")
                .integer("SQL_DATA_TYPE", "SQL_DATETIME_SUB", "CHAR_OCTET_LENGTH", "ORDINAL_POSITION")
                .text("IS_NULLABLE", "SCOPE_CATALOG", "SCOPE_SCHEMA", "SCOPE_TABLE").smallint("SOURCE_DATA_TYPE").toResultSet(connection);
    }

    /** Router logins are the router's own (its config), not MySQL accounts: there are no grants to list. */
    @Override
    public ResultSet getColumnPrivileges(String catalog, String schema, String table, String columnNamePattern) throws SQLException {
        return new MetaRows().text("TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "COLUMN_NAME", "GRANTOR", "GRANTEE", "PRIVILEGE", "IS_GRANTABLE")
                .toResultSet(connection);
    }

    @Override
    public ResultSet getTablePrivileges(String catalog, String schemaPattern, String tableNamePattern) throws SQLException {
        return new MetaRows().text("TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "GRANTOR", "GRANTEE", "PRIVILEGE", "IS_GRANTABLE")
                .toResultSet(connection);
    }

    @Override
    public ResultSet getPseudoColumns(String catalog, String schemaPattern, String tableNamePattern, String columnNamePattern)
            throws SQLException {
        return new MetaRows().varchar("TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "COLUMN_NAME").integer("DATA_TYPE", "COLUMN_SIZE",
                "DECIMAL_DIGITS", "NUM_PREC_RADIX").varchar("COLUMN_USAGE", "REMARKS").integer("CHAR_OCTET_LENGTH").varchar("IS_NULLABLE")
                .toResultSet(connection);
    }

    @Override
    public ResultSet getClientInfoProperties() throws SQLException {
        return new MetaRows().varchar("NAME").integer("MAX_LEN").varchar("DEFAULT_VALUE", "DESCRIPTION").toResultSet(connection);
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return Wrappers.unwrap(this, iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return Wrappers.isWrapperFor(this, iface);
    }
}
