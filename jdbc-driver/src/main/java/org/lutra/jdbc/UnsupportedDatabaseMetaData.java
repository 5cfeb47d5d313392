package org.lutra.jdbc;

/**
 * Every method of {@link java.sql.DatabaseMetaData} throwing
 * SQLFeatureNotSupportedException (SQLState 0A000). Generated from the interface by reflection so
 * that the real class only holds what Lutra supports; it overrides the methods it implements.
 */
@SuppressWarnings("unused")
abstract class UnsupportedDatabaseMetaData implements java.sql.DatabaseMetaData {

    @Override
    public boolean allProceduresAreCallable() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.allProceduresAreCallable");
    }

    @Override
    public boolean allTablesAreSelectable() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.allTablesAreSelectable");
    }

    @Override
    public boolean autoCommitFailureClosesAllResultSets() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.autoCommitFailureClosesAllResultSets");
    }

    @Override
    public boolean dataDefinitionCausesTransactionCommit() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.dataDefinitionCausesTransactionCommit");
    }

    @Override
    public boolean dataDefinitionIgnoredInTransactions() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.dataDefinitionIgnoredInTransactions");
    }

    @Override
    public boolean deletesAreDetected(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.deletesAreDetected");
    }

    @Override
    public boolean doesMaxRowSizeIncludeBlobs() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.doesMaxRowSizeIncludeBlobs");
    }

    @Override
    public boolean generatedKeyAlwaysReturned() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.generatedKeyAlwaysReturned");
    }

    @Override
    public java.sql.ResultSet getAttributes(String a0, String a1, String a2, String a3) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getAttributes");
    }

    @Override
    public java.sql.ResultSet getBestRowIdentifier(String a0, String a1, String a2, int a3, boolean a4) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getBestRowIdentifier");
    }

    @Override
    public String getCatalogSeparator() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getCatalogSeparator");
    }

    @Override
    public String getCatalogTerm() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getCatalogTerm");
    }

    @Override
    public java.sql.ResultSet getCatalogs() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getCatalogs");
    }

    @Override
    public java.sql.ResultSet getClientInfoProperties() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getClientInfoProperties");
    }

    @Override
    public java.sql.ResultSet getColumnPrivileges(String a0, String a1, String a2, String a3) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getColumnPrivileges");
    }

    @Override
    public java.sql.ResultSet getColumns(String a0, String a1, String a2, String a3) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getColumns");
    }

    @Override
    public java.sql.Connection getConnection() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getConnection");
    }

    @Override
    public java.sql.ResultSet getCrossReference(String a0, String a1, String a2, String a3, String a4, String a5) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getCrossReference");
    }

    @Override
    public int getDatabaseMajorVersion() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getDatabaseMajorVersion");
    }

    @Override
    public int getDatabaseMinorVersion() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getDatabaseMinorVersion");
    }

    @Override
    public String getDatabaseProductName() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getDatabaseProductName");
    }

    @Override
    public String getDatabaseProductVersion() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getDatabaseProductVersion");
    }

    @Override
    public int getDefaultTransactionIsolation() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getDefaultTransactionIsolation");
    }

    @Override
    public int getDriverMajorVersion() {
        throw new UnsupportedOperationException("DatabaseMetaData.getDriverMajorVersion");
    }

    @Override
    public int getDriverMinorVersion() {
        throw new UnsupportedOperationException("DatabaseMetaData.getDriverMinorVersion");
    }

    @Override
    public String getDriverName() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getDriverName");
    }

    @Override
    public String getDriverVersion() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getDriverVersion");
    }

    @Override
    public java.sql.ResultSet getExportedKeys(String a0, String a1, String a2) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getExportedKeys");
    }

    @Override
    public String getExtraNameCharacters() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getExtraNameCharacters");
    }

    @Override
    public java.sql.ResultSet getFunctionColumns(String a0, String a1, String a2, String a3) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getFunctionColumns");
    }

    @Override
    public java.sql.ResultSet getFunctions(String a0, String a1, String a2) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getFunctions");
    }

    @Override
    public String getIdentifierQuoteString() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getIdentifierQuoteString");
    }

    @Override
    public java.sql.ResultSet getImportedKeys(String a0, String a1, String a2) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getImportedKeys");
    }

    @Override
    public java.sql.ResultSet getIndexInfo(String a0, String a1, String a2, boolean a3, boolean a4) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getIndexInfo");
    }

    @Override
    public int getJDBCMajorVersion() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getJDBCMajorVersion");
    }

    @Override
    public int getJDBCMinorVersion() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getJDBCMinorVersion");
    }

    @Override
    public int getMaxBinaryLiteralLength() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxBinaryLiteralLength");
    }

    @Override
    public int getMaxCatalogNameLength() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxCatalogNameLength");
    }

    @Override
    public int getMaxCharLiteralLength() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxCharLiteralLength");
    }

    @Override
    public int getMaxColumnNameLength() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxColumnNameLength");
    }

    @Override
    public int getMaxColumnsInGroupBy() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxColumnsInGroupBy");
    }

    @Override
    public int getMaxColumnsInIndex() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxColumnsInIndex");
    }

    @Override
    public int getMaxColumnsInOrderBy() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxColumnsInOrderBy");
    }

    @Override
    public int getMaxColumnsInSelect() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxColumnsInSelect");
    }

    @Override
    public int getMaxColumnsInTable() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxColumnsInTable");
    }

    @Override
    public int getMaxConnections() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxConnections");
    }

    @Override
    public int getMaxCursorNameLength() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxCursorNameLength");
    }

    @Override
    public int getMaxIndexLength() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxIndexLength");
    }

    @Override
    public int getMaxProcedureNameLength() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxProcedureNameLength");
    }

    @Override
    public int getMaxRowSize() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxRowSize");
    }

    @Override
    public int getMaxSchemaNameLength() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxSchemaNameLength");
    }

    @Override
    public int getMaxStatementLength() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxStatementLength");
    }

    @Override
    public int getMaxStatements() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxStatements");
    }

    @Override
    public int getMaxTableNameLength() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxTableNameLength");
    }

    @Override
    public int getMaxTablesInSelect() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxTablesInSelect");
    }

    @Override
    public int getMaxUserNameLength() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getMaxUserNameLength");
    }

    @Override
    public String getNumericFunctions() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getNumericFunctions");
    }

    @Override
    public java.sql.ResultSet getPrimaryKeys(String a0, String a1, String a2) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getPrimaryKeys");
    }

    @Override
    public java.sql.ResultSet getProcedureColumns(String a0, String a1, String a2, String a3) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getProcedureColumns");
    }

    @Override
    public String getProcedureTerm() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getProcedureTerm");
    }

    @Override
    public java.sql.ResultSet getProcedures(String a0, String a1, String a2) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getProcedures");
    }

    @Override
    public java.sql.ResultSet getPseudoColumns(String a0, String a1, String a2, String a3) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getPseudoColumns");
    }

    @Override
    public int getResultSetHoldability() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getResultSetHoldability");
    }

    @Override
    public java.sql.RowIdLifetime getRowIdLifetime() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getRowIdLifetime");
    }

    @Override
    public String getSQLKeywords() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getSQLKeywords");
    }

    @Override
    public int getSQLStateType() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getSQLStateType");
    }

    @Override
    public String getSchemaTerm() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getSchemaTerm");
    }

    @Override
    public java.sql.ResultSet getSchemas() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getSchemas");
    }

    @Override
    public java.sql.ResultSet getSchemas(String a0, String a1) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getSchemas");
    }

    @Override
    public String getSearchStringEscape() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getSearchStringEscape");
    }

    @Override
    public String getStringFunctions() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getStringFunctions");
    }

    @Override
    public java.sql.ResultSet getSuperTables(String a0, String a1, String a2) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getSuperTables");
    }

    @Override
    public java.sql.ResultSet getSuperTypes(String a0, String a1, String a2) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getSuperTypes");
    }

    @Override
    public String getSystemFunctions() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getSystemFunctions");
    }

    @Override
    public java.sql.ResultSet getTablePrivileges(String a0, String a1, String a2) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getTablePrivileges");
    }

    @Override
    public java.sql.ResultSet getTableTypes() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getTableTypes");
    }

    @Override
    public java.sql.ResultSet getTables(String a0, String a1, String a2, String[] a3) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getTables");
    }

    @Override
    public String getTimeDateFunctions() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getTimeDateFunctions");
    }

    @Override
    public java.sql.ResultSet getTypeInfo() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getTypeInfo");
    }

    @Override
    public java.sql.ResultSet getUDTs(String a0, String a1, String a2, int[] a3) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getUDTs");
    }

    @Override
    public String getURL() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getURL");
    }

    @Override
    public String getUserName() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getUserName");
    }

    @Override
    public java.sql.ResultSet getVersionColumns(String a0, String a1, String a2) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.getVersionColumns");
    }

    @Override
    public boolean insertsAreDetected(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.insertsAreDetected");
    }

    @Override
    public boolean isCatalogAtStart() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.isCatalogAtStart");
    }

    @Override
    public boolean isReadOnly() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.isReadOnly");
    }

    @Override
    public boolean isWrapperFor(Class<?> a0) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.isWrapperFor");
    }

    @Override
    public boolean locatorsUpdateCopy() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.locatorsUpdateCopy");
    }

    @Override
    public boolean nullPlusNonNullIsNull() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.nullPlusNonNullIsNull");
    }

    @Override
    public boolean nullsAreSortedAtEnd() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.nullsAreSortedAtEnd");
    }

    @Override
    public boolean nullsAreSortedAtStart() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.nullsAreSortedAtStart");
    }

    @Override
    public boolean nullsAreSortedHigh() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.nullsAreSortedHigh");
    }

    @Override
    public boolean nullsAreSortedLow() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.nullsAreSortedLow");
    }

    @Override
    public boolean othersDeletesAreVisible(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.othersDeletesAreVisible");
    }

    @Override
    public boolean othersInsertsAreVisible(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.othersInsertsAreVisible");
    }

    @Override
    public boolean othersUpdatesAreVisible(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.othersUpdatesAreVisible");
    }

    @Override
    public boolean ownDeletesAreVisible(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.ownDeletesAreVisible");
    }

    @Override
    public boolean ownInsertsAreVisible(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.ownInsertsAreVisible");
    }

    @Override
    public boolean ownUpdatesAreVisible(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.ownUpdatesAreVisible");
    }

    @Override
    public boolean storesLowerCaseIdentifiers() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.storesLowerCaseIdentifiers");
    }

    @Override
    public boolean storesLowerCaseQuotedIdentifiers() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.storesLowerCaseQuotedIdentifiers");
    }

    @Override
    public boolean storesMixedCaseIdentifiers() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.storesMixedCaseIdentifiers");
    }

    @Override
    public boolean storesMixedCaseQuotedIdentifiers() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.storesMixedCaseQuotedIdentifiers");
    }

    @Override
    public boolean storesUpperCaseIdentifiers() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.storesUpperCaseIdentifiers");
    }

    @Override
    public boolean storesUpperCaseQuotedIdentifiers() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.storesUpperCaseQuotedIdentifiers");
    }

    @Override
    public boolean supportsANSI92EntryLevelSQL() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsANSI92EntryLevelSQL");
    }

    @Override
    public boolean supportsANSI92FullSQL() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsANSI92FullSQL");
    }

    @Override
    public boolean supportsANSI92IntermediateSQL() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsANSI92IntermediateSQL");
    }

    @Override
    public boolean supportsAlterTableWithAddColumn() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsAlterTableWithAddColumn");
    }

    @Override
    public boolean supportsAlterTableWithDropColumn() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsAlterTableWithDropColumn");
    }

    @Override
    public boolean supportsBatchUpdates() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsBatchUpdates");
    }

    @Override
    public boolean supportsCatalogsInDataManipulation() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsCatalogsInDataManipulation");
    }

    @Override
    public boolean supportsCatalogsInIndexDefinitions() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsCatalogsInIndexDefinitions");
    }

    @Override
    public boolean supportsCatalogsInPrivilegeDefinitions() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsCatalogsInPrivilegeDefinitions");
    }

    @Override
    public boolean supportsCatalogsInProcedureCalls() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsCatalogsInProcedureCalls");
    }

    @Override
    public boolean supportsCatalogsInTableDefinitions() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsCatalogsInTableDefinitions");
    }

    @Override
    public boolean supportsColumnAliasing() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsColumnAliasing");
    }

    @Override
    public boolean supportsConvert() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsConvert");
    }

    @Override
    public boolean supportsConvert(int a0, int a1) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsConvert");
    }

    @Override
    public boolean supportsCoreSQLGrammar() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsCoreSQLGrammar");
    }

    @Override
    public boolean supportsCorrelatedSubqueries() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsCorrelatedSubqueries");
    }

    @Override
    public boolean supportsDataDefinitionAndDataManipulationTransactions() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsDataDefinitionAndDataManipulationTransactions");
    }

    @Override
    public boolean supportsDataManipulationTransactionsOnly() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsDataManipulationTransactionsOnly");
    }

    @Override
    public boolean supportsDifferentTableCorrelationNames() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsDifferentTableCorrelationNames");
    }

    @Override
    public boolean supportsExpressionsInOrderBy() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsExpressionsInOrderBy");
    }

    @Override
    public boolean supportsExtendedSQLGrammar() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsExtendedSQLGrammar");
    }

    @Override
    public boolean supportsFullOuterJoins() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsFullOuterJoins");
    }

    @Override
    public boolean supportsGetGeneratedKeys() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsGetGeneratedKeys");
    }

    @Override
    public boolean supportsGroupBy() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsGroupBy");
    }

    @Override
    public boolean supportsGroupByBeyondSelect() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsGroupByBeyondSelect");
    }

    @Override
    public boolean supportsGroupByUnrelated() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsGroupByUnrelated");
    }

    @Override
    public boolean supportsIntegrityEnhancementFacility() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsIntegrityEnhancementFacility");
    }

    @Override
    public boolean supportsLikeEscapeClause() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsLikeEscapeClause");
    }

    @Override
    public boolean supportsLimitedOuterJoins() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsLimitedOuterJoins");
    }

    @Override
    public boolean supportsMinimumSQLGrammar() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsMinimumSQLGrammar");
    }

    @Override
    public boolean supportsMixedCaseIdentifiers() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsMixedCaseIdentifiers");
    }

    @Override
    public boolean supportsMixedCaseQuotedIdentifiers() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsMixedCaseQuotedIdentifiers");
    }

    @Override
    public boolean supportsMultipleOpenResults() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsMultipleOpenResults");
    }

    @Override
    public boolean supportsMultipleResultSets() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsMultipleResultSets");
    }

    @Override
    public boolean supportsMultipleTransactions() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsMultipleTransactions");
    }

    @Override
    public boolean supportsNamedParameters() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsNamedParameters");
    }

    @Override
    public boolean supportsNonNullableColumns() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsNonNullableColumns");
    }

    @Override
    public boolean supportsOpenCursorsAcrossCommit() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsOpenCursorsAcrossCommit");
    }

    @Override
    public boolean supportsOpenCursorsAcrossRollback() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsOpenCursorsAcrossRollback");
    }

    @Override
    public boolean supportsOpenStatementsAcrossCommit() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsOpenStatementsAcrossCommit");
    }

    @Override
    public boolean supportsOpenStatementsAcrossRollback() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsOpenStatementsAcrossRollback");
    }

    @Override
    public boolean supportsOrderByUnrelated() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsOrderByUnrelated");
    }

    @Override
    public boolean supportsOuterJoins() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsOuterJoins");
    }

    @Override
    public boolean supportsPositionedDelete() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsPositionedDelete");
    }

    @Override
    public boolean supportsPositionedUpdate() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsPositionedUpdate");
    }

    @Override
    public boolean supportsResultSetConcurrency(int a0, int a1) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsResultSetConcurrency");
    }

    @Override
    public boolean supportsResultSetHoldability(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsResultSetHoldability");
    }

    @Override
    public boolean supportsResultSetType(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsResultSetType");
    }

    @Override
    public boolean supportsSavepoints() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsSavepoints");
    }

    @Override
    public boolean supportsSchemasInDataManipulation() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsSchemasInDataManipulation");
    }

    @Override
    public boolean supportsSchemasInIndexDefinitions() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsSchemasInIndexDefinitions");
    }

    @Override
    public boolean supportsSchemasInPrivilegeDefinitions() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsSchemasInPrivilegeDefinitions");
    }

    @Override
    public boolean supportsSchemasInProcedureCalls() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsSchemasInProcedureCalls");
    }

    @Override
    public boolean supportsSchemasInTableDefinitions() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsSchemasInTableDefinitions");
    }

    @Override
    public boolean supportsSelectForUpdate() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsSelectForUpdate");
    }

    @Override
    public boolean supportsStatementPooling() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsStatementPooling");
    }

    @Override
    public boolean supportsStoredFunctionsUsingCallSyntax() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsStoredFunctionsUsingCallSyntax");
    }

    @Override
    public boolean supportsStoredProcedures() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsStoredProcedures");
    }

    @Override
    public boolean supportsSubqueriesInComparisons() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsSubqueriesInComparisons");
    }

    @Override
    public boolean supportsSubqueriesInExists() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsSubqueriesInExists");
    }

    @Override
    public boolean supportsSubqueriesInIns() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsSubqueriesInIns");
    }

    @Override
    public boolean supportsSubqueriesInQuantifieds() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsSubqueriesInQuantifieds");
    }

    @Override
    public boolean supportsTableCorrelationNames() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsTableCorrelationNames");
    }

    @Override
    public boolean supportsTransactionIsolationLevel(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsTransactionIsolationLevel");
    }

    @Override
    public boolean supportsTransactions() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsTransactions");
    }

    @Override
    public boolean supportsUnion() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsUnion");
    }

    @Override
    public boolean supportsUnionAll() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.supportsUnionAll");
    }

    @Override
    public <T> T unwrap(Class<T> a0) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.unwrap");
    }

    @Override
    public boolean updatesAreDetected(int a0) throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.updatesAreDetected");
    }

    @Override
    public boolean usesLocalFilePerTable() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.usesLocalFilePerTable");
    }

    @Override
    public boolean usesLocalFiles() throws java.sql.SQLException {
        throw Errors.unsupported("DatabaseMetaData.usesLocalFiles");
    }
}
