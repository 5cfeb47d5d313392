package org.lutra.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.RowIdLifetime;
import java.sql.SQLException;

/**
 * What the driver can say about Lutra without asking the router. Catalog queries (getTables,
 * getColumns, ...) need router support that does not exist yet and throw 0A000 (see the
 * generated base class).
 */
public final class LutraDatabaseMetaData extends UnsupportedDatabaseMetaData {
    private final LutraConnection connection;

    LutraDatabaseMetaData(LutraConnection connection) {
        this.connection = connection;
    }

    // ---- identity --------------------------------------------------------------------------

    @Override
    public String getDatabaseProductName() {
        return "Lutra";
    }

    @Override
    public String getDatabaseProductVersion() {
        return connection.session().serverVersion();
    }

    @Override
    public int getDatabaseMajorVersion() {
        return versionPart(0);
    }

    @Override
    public int getDatabaseMinorVersion() {
        return versionPart(1);
    }

    /** The leading numbers of the router's version text, e.g. 0 and 1 of "0.1.0-SNAPSHOT". */
    private int versionPart(int index) {
        String[] parts = getDatabaseProductVersion().split("[^0-9]+", -1);
        int seen = 0;
        for (String p : parts) {
            if (p.isEmpty()) {
                continue;
            }
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

    @Override
    public String getDriverName() {
        return "Lutra JDBC driver";
    }

    @Override
    public String getDriverVersion() {
        return LutraDriver.VERSION;
    }

    @Override
    public int getDriverMajorVersion() {
        return LutraDriver.MAJOR_VERSION;
    }

    @Override
    public int getDriverMinorVersion() {
        return LutraDriver.MINOR_VERSION;
    }

    @Override
    public int getJDBCMajorVersion() {
        return 4;
    }

    @Override
    public int getJDBCMinorVersion() {
        return 3;
    }

    @Override
    public String getURL() {
        return JdbcUrl.redact(connection.url().url());
    }

    @Override
    public String getUserName() {
        return connection.url().user();
    }

    @Override
    public Connection getConnection() {
        return connection;
    }

    @Override
    public boolean isReadOnly() throws SQLException {
        return connection.isReadOnly();
    }

    // ---- SQL dialect: MySQL's, as the shards speak it --------------------------------------

    @Override
    public String getIdentifierQuoteString() {
        return "`";
    }

    @Override
    public String getSearchStringEscape() {
        return "\\";
    }

    @Override
    public String getExtraNameCharacters() {
        return "$";
    }

    @Override
    public String getCatalogSeparator() {
        return ".";
    }

    @Override
    public String getCatalogTerm() {
        return "database";
    }

    @Override
    public String getSchemaTerm() {
        return "";
    }

    @Override
    public String getProcedureTerm() {
        return "procedure";
    }

    @Override
    public boolean isCatalogAtStart() {
        return true;
    }

    @Override
    public boolean storesLowerCaseIdentifiers() {
        return false;
    }

    @Override
    public boolean storesMixedCaseIdentifiers() {
        return true;
    }

    @Override
    public boolean storesUpperCaseIdentifiers() {
        return false;
    }

    @Override
    public boolean supportsMixedCaseIdentifiers() {
        return true;
    }

    @Override
    public boolean supportsMixedCaseQuotedIdentifiers() {
        return true;
    }

    @Override
    public boolean nullsAreSortedLow() {
        return true; // MySQL: NULL first in ascending order
    }

    @Override
    public boolean nullsAreSortedHigh() {
        return false;
    }

    @Override
    public boolean nullsAreSortedAtStart() {
        return false;
    }

    @Override
    public boolean nullsAreSortedAtEnd() {
        return false;
    }

    // ---- what the driver supports ----------------------------------------------------------

    @Override
    public boolean supportsTransactions() {
        return true; // single- and multi-shard, the latter with XA two-phase commit in the router
    }

    @Override
    public boolean supportsMultipleTransactions() {
        return true; // one per connection, any number of connections
    }

    @Override
    public int getDefaultTransactionIsolation() {
        return Connection.TRANSACTION_REPEATABLE_READ; // InnoDB's default, which the shards keep
    }

    @Override
    public boolean supportsTransactionIsolationLevel(int level) {
        return TransactionStatus.isLevel(level);
    }

    // DDL as in MySQL (the shards' dialect): it commits the open transaction first.

    @Override
    public boolean dataDefinitionCausesTransactionCommit() {
        return true;
    }

    @Override
    public boolean dataDefinitionIgnoredInTransactions() {
        return false;
    }

    @Override
    public boolean supportsDataDefinitionAndDataManipulationTransactions() {
        return false;
    }

    @Override
    public boolean supportsDataManipulationTransactionsOnly() {
        return false; // DDL is not refused inside a transaction, it ends it (Connector/J says the same)
    }

    // commit() and rollback() close CLOSE_CURSORS_AT_COMMIT results; statements stay usable.

    @Override
    public boolean supportsOpenCursorsAcrossCommit() {
        return false;
    }

    @Override
    public boolean supportsOpenCursorsAcrossRollback() {
        return false;
    }

    @Override
    public boolean supportsOpenStatementsAcrossCommit() {
        return true;
    }

    @Override
    public boolean supportsOpenStatementsAcrossRollback() {
        return true;
    }

    @Override
    public boolean supportsSavepoints() {
        return false; // the router has none; Connection.setSavepoint throws 0A000
    }

    @Override
    public boolean supportsResultSetType(int type) {
        return type == ResultSet.TYPE_FORWARD_ONLY;
    }

    @Override
    public boolean supportsResultSetConcurrency(int type, int concurrency) {
        return type == ResultSet.TYPE_FORWARD_ONLY && concurrency == ResultSet.CONCUR_READ_ONLY;
    }

    @Override
    public boolean supportsResultSetHoldability(int holdability) {
        return holdability == ResultSet.CLOSE_CURSORS_AT_COMMIT;
    }

    @Override
    public int getResultSetHoldability() {
        return ResultSet.CLOSE_CURSORS_AT_COMMIT;
    }

    @Override
    public boolean supportsBatchUpdates() {
        return true;
    }

    @Override
    public boolean supportsGetGeneratedKeys() {
        return false;
    }

    @Override
    public boolean supportsMultipleResultSets() {
        return false;
    }

    @Override
    public boolean supportsMultipleOpenResults() {
        return false;
    }

    @Override
    public boolean supportsNamedParameters() {
        return false;
    }

    @Override
    public boolean supportsStoredProcedures() {
        return false;
    }

    @Override
    public boolean supportsStatementPooling() {
        return false;
    }

    @Override
    public boolean supportsColumnAliasing() {
        return true;
    }

    @Override
    public boolean supportsGroupBy() {
        return true;
    }

    @Override
    public boolean supportsOrderByUnrelated() {
        return true;
    }

    @Override
    public boolean supportsLikeEscapeClause() {
        return true;
    }

    @Override
    public boolean supportsOuterJoins() {
        return true;
    }

    @Override
    public boolean supportsMinimumSQLGrammar() {
        return true;
    }

    @Override
    public boolean supportsANSI92EntryLevelSQL() {
        return true;
    }

    @Override
    public boolean allProceduresAreCallable() {
        return false;
    }

    @Override
    public boolean allTablesAreSelectable() {
        return true;
    }

    @Override
    public boolean usesLocalFiles() {
        return false;
    }

    @Override
    public boolean usesLocalFilePerTable() {
        return false;
    }

    @Override
    public boolean locatorsUpdateCopy() {
        return true;
    }

    @Override
    public boolean supportsStoredFunctionsUsingCallSyntax() {
        return false;
    }

    @Override
    public boolean autoCommitFailureClosesAllResultSets() {
        return false;
    }

    @Override
    public boolean generatedKeyAlwaysReturned() {
        return false;
    }

    @Override
    public boolean supportsSharding() {
        return false; // java.sql.ShardingKey: Lutra shards behind the router, invisibly
    }

    @Override
    public RowIdLifetime getRowIdLifetime() {
        return RowIdLifetime.ROWID_UNSUPPORTED;
    }

    @Override
    public int getMaxConnections() {
        return 0; // unknown
    }

    @Override
    public int getMaxStatements() {
        return 0;
    }

    @Override
    public int getSQLStateType() {
        return sqlStateSQL;
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
