package org.lutra.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.RowIdLifetime;

/**
 * The answers of DatabaseMetaData that do not depend on the tables: the SQL the router speaks
 * (MySQL's, since statements run on MySQL/MariaDB shards) and what the driver and router can do.
 * Where Lutra behaves as MySQL does, the answers are Connector/J's (tools compare them, and
 * {@code DatabaseMetaDataIT} checks every one against Connector/J on one plain server); where it
 * differs, the reason is next to the method.
 */
abstract class DialectMetaData implements DatabaseMetaData {

    /** The backends' lower_case_table_names is not 0: table names are stored and compared in lower case. */
    abstract boolean lowerCaseTableNames();

    // ---- identifiers -----------------------------------------------------------------------

    @Override public String getIdentifierQuoteString() { return "`"; }
    @Override public String getSearchStringEscape() { return "\\"; }
    @Override public String getExtraNameCharacters() { return "$"; }
    @Override public String getCatalogSeparator() { return "."; }
    @Override public String getCatalogTerm() { return "database"; }
    @Override public String getSchemaTerm() { return ""; }
    @Override public String getProcedureTerm() { return "PROCEDURE"; }
    @Override public boolean isCatalogAtStart() { return true; }
    @Override public boolean storesLowerCaseIdentifiers() { return lowerCaseTableNames(); }
    @Override public boolean storesLowerCaseQuotedIdentifiers() { return lowerCaseTableNames(); }
    @Override public boolean storesMixedCaseIdentifiers() { return !lowerCaseTableNames(); }
    @Override public boolean storesMixedCaseQuotedIdentifiers() { return !lowerCaseTableNames(); }
    @Override public boolean storesUpperCaseIdentifiers() { return false; }
    @Override public boolean storesUpperCaseQuotedIdentifiers() { return false; }
    @Override public boolean supportsMixedCaseIdentifiers() { return !lowerCaseTableNames(); }
    @Override public boolean supportsMixedCaseQuotedIdentifiers() { return !lowerCaseTableNames(); }

    // One logical database, so names never need a catalog; qualified names are not promised.
    @Override public boolean supportsCatalogsInDataManipulation() { return false; }
    @Override public boolean supportsCatalogsInIndexDefinitions() { return false; }
    @Override public boolean supportsCatalogsInPrivilegeDefinitions() { return false; }
    @Override public boolean supportsCatalogsInProcedureCalls() { return false; }
    @Override public boolean supportsCatalogsInTableDefinitions() { return false; }
    @Override public boolean supportsSchemasInDataManipulation() { return false; }
    @Override public boolean supportsSchemasInIndexDefinitions() { return false; }
    @Override public boolean supportsSchemasInPrivilegeDefinitions() { return false; }
    @Override public boolean supportsSchemasInProcedureCalls() { return false; }
    @Override public boolean supportsSchemasInTableDefinitions() { return false; }

    // ---- the SQL dialect: MySQL's ----------------------------------------------------------

    /** MySQL's reserved words that SQL:2003 does not reserve (the same list Connector/J gives). */
    static final String SQL_KEYWORDS = String.join(",",
            "ACCESSIBLE", "ADD", "ANALYZE", "ASC", "BEFORE", "CASCADE", "CHANGE", "CONTINUE", "DATABASE", "DATABASES", "DAY_HOUR",
            "DAY_MICROSECOND", "DAY_MINUTE", "DAY_SECOND", "DELAYED", "DESC", "DISTINCTROW", "DIV", "DUAL", "ELSEIF", "EMPTY", "ENCLOSED",
            "ESCAPED", "EXIT", "EXPLAIN", "FIRST_VALUE", "FLOAT4", "FLOAT8", "FORCE", "FULLTEXT", "GENERATED", "GROUPS", "HIGH_PRIORITY",
            "HOUR_MICROSECOND", "HOUR_MINUTE", "HOUR_SECOND", "IF", "IGNORE", "INDEX", "INFILE", "INT1", "INT2", "INT3", "INT4", "INT8",
            "IO_AFTER_GTIDS", "IO_BEFORE_GTIDS", "ITERATE", "JSON_TABLE", "KEY", "KEYS", "KILL", "LAG", "LAST_VALUE", "LEAD", "LEAVE",
            "LIMIT", "LINEAR", "LINES", "LOAD", "LOCK", "LONG", "LONGBLOB", "LONGTEXT", "LOOP", "LOW_PRIORITY", "MANUAL", "MASTER_BIND",
            "MASTER_SSL_VERIFY_SERVER_CERT", "MAXVALUE", "MEDIUMBLOB", "MEDIUMINT", "MEDIUMTEXT", "MIDDLEINT", "MINUTE_MICROSECOND",
            "MINUTE_SECOND", "NO_WRITE_TO_BINLOG", "NTH_VALUE", "NTILE", "OPTIMIZE", "OPTIMIZER_COSTS", "OPTION", "OPTIONALLY", "OUTFILE",
            "PARALLEL", "PURGE", "QUALIFY", "READ", "READ_WRITE", "REGEXP", "RENAME", "REPEAT", "REPLACE", "REQUIRE", "RESIGNAL",
            "RESTRICT", "RLIKE", "SCHEMA", "SCHEMAS", "SECOND_MICROSECOND", "SEPARATOR", "SHOW", "SIGNAL", "SPATIAL", "SQL_BIG_RESULT",
            "SQL_CALC_FOUND_ROWS", "SQL_SMALL_RESULT", "SSL", "STARTING", "STORED", "STRAIGHT_JOIN", "TERMINATED", "TINYBLOB", "TINYINT",
            "TINYTEXT", "UNDO", "UNLOCK", "UNSIGNED", "USAGE", "USE", "UTC_DATE", "UTC_TIME", "UTC_TIMESTAMP", "VARBINARY", "VARCHARACTER",
            "VIRTUAL", "WHILE", "WRITE", "XOR", "YEAR_MONTH", "ZEROFILL");

    @Override public String getSQLKeywords() { return SQL_KEYWORDS; }

    @Override
    public String getNumericFunctions() {
        return "ABS,ACOS,ASIN,ATAN,ATAN2,BIT_COUNT,CEILING,COS,COT,DEGREES,EXP,FLOOR,LOG,LOG10,MAX,MIN,MOD,PI,POW,POWER,RADIANS,RAND,ROUND,SIN,SQRT,TAN,TRUNCATE";
    }

    @Override
    public String getStringFunctions() {
        return "ASCII,BIN,BIT_LENGTH,CHAR,CHARACTER_LENGTH,CHAR_LENGTH,CONCAT,CONCAT_WS,CONV,ELT,EXPORT_SET,FIELD,FIND_IN_SET,HEX,INSERT,"
                + "INSTR,LCASE,LEFT,LENGTH,LOAD_FILE,LOCATE,LOCATE,LOWER,LPAD,LTRIM,MAKE_SET,MATCH,MID,OCT,OCTET_LENGTH,ORD,POSITION,QUOTE,"
                + "REPEAT,REPLACE,REVERSE,RIGHT,RPAD,RTRIM,SOUNDEX,SPACE,STRCMP,SUBSTRING,SUBSTRING,SUBSTRING,SUBSTRING,SUBSTRING_INDEX,TRIM,"
                + "UCASE,UPPER";
    }

    @Override
    public String getSystemFunctions() {
        return "DATABASE,USER,SYSTEM_USER,SESSION_USER,PASSWORD,ENCRYPT,LAST_INSERT_ID,VERSION";
    }

    @Override
    public String getTimeDateFunctions() {
        return "DAYOFWEEK,WEEKDAY,DAYOFMONTH,DAYOFYEAR,MONTH,DAYNAME,MONTHNAME,QUARTER,WEEK,YEAR,HOUR,MINUTE,SECOND,PERIOD_ADD,"
                + "PERIOD_DIFF,TO_DAYS,FROM_DAYS,DATE_FORMAT,TIME_FORMAT,CURDATE,CURRENT_DATE,CURTIME,CURRENT_TIME,NOW,SYSDATE,"
                + "CURRENT_TIMESTAMP,UNIX_TIMESTAMP,FROM_UNIXTIME,SEC_TO_TIME,TIME_TO_SEC";
    }

    @Override public boolean nullsAreSortedLow() { return true; } // NULL first in ascending order
    @Override public boolean nullsAreSortedHigh() { return false; }
    @Override public boolean nullsAreSortedAtStart() { return false; }
    @Override public boolean nullsAreSortedAtEnd() { return false; }
    @Override public boolean nullPlusNonNullIsNull() { return true; }
    @Override public boolean supportsMinimumSQLGrammar() { return true; }
    @Override public boolean supportsCoreSQLGrammar() { return true; }
    @Override public boolean supportsExtendedSQLGrammar() { return false; }
    @Override public boolean supportsANSI92EntryLevelSQL() { return true; }
    @Override public boolean supportsANSI92IntermediateSQL() { return false; }
    @Override public boolean supportsANSI92FullSQL() { return false; }
    @Override public boolean supportsIntegrityEnhancementFacility() { return false; }
    @Override public boolean supportsColumnAliasing() { return true; }
    @Override public boolean supportsTableCorrelationNames() { return true; }
    @Override public boolean supportsDifferentTableCorrelationNames() { return true; }
    @Override public boolean supportsExpressionsInOrderBy() { return true; }
    @Override public boolean supportsOrderByUnrelated() { return true; } // MySQL does; Connector/J says false
    @Override public boolean supportsGroupBy() { return true; }
    @Override public boolean supportsGroupByUnrelated() { return true; }
    @Override public boolean supportsGroupByBeyondSelect() { return true; }
    @Override public boolean supportsLikeEscapeClause() { return true; }
    @Override public boolean supportsNonNullableColumns() { return true; }
    @Override public boolean supportsOuterJoins() { return true; }
    @Override public boolean supportsFullOuterJoins() { return false; }
    @Override public boolean supportsLimitedOuterJoins() { return true; }
    @Override public boolean supportsUnion() { return true; }
    @Override public boolean supportsUnionAll() { return true; }
    @Override public boolean supportsSelectForUpdate() { return true; }
    // Subqueries are answered as MySQL answers them; what the router cannot run exactly it refuses (42000/1235, docs/sql.md).
    @Override public boolean supportsSubqueriesInComparisons() { return true; }
    @Override public boolean supportsSubqueriesInExists() { return true; }
    @Override public boolean supportsSubqueriesInIns() { return true; }
    @Override public boolean supportsSubqueriesInQuantifieds() { return true; }
    @Override public boolean supportsCorrelatedSubqueries() { return true; }
    @Override public boolean supportsConvert() { return false; }
    @Override public boolean supportsConvert(int fromType, int toType) { return false; }
    @Override public boolean supportsPositionedDelete() { return false; }
    @Override public boolean supportsPositionedUpdate() { return false; }
    // The router takes its tables from its schema file: DDL through it is refused.
    @Override public boolean supportsAlterTableWithAddColumn() { return false; }
    @Override public boolean supportsAlterTableWithDropColumn() { return false; }

    // ---- MySQL's limits (0 = none or unknown) ----------------------------------------------

    @Override public int getMaxBinaryLiteralLength() { return 16777208; }
    @Override public int getMaxCharLiteralLength() { return 16777208; }
    @Override public int getMaxCatalogNameLength() { return 32; }
    @Override public int getMaxColumnNameLength() { return 64; }
    @Override public int getMaxColumnsInGroupBy() { return 64; }
    @Override public int getMaxColumnsInIndex() { return 16; }
    @Override public int getMaxColumnsInOrderBy() { return 64; }
    @Override public int getMaxColumnsInSelect() { return 256; }
    @Override public int getMaxColumnsInTable() { return 512; }
    @Override public int getMaxCursorNameLength() { return 64; }
    @Override public int getMaxIndexLength() { return 256; }
    @Override public int getMaxRowSize() { return Integer.MAX_VALUE - 8; }
    @Override public boolean doesMaxRowSizeIncludeBlobs() { return true; }
    @Override public int getMaxTableNameLength() { return 64; }
    @Override public int getMaxTablesInSelect() { return 256; }
    @Override public int getMaxSchemaNameLength() { return 0; }
    @Override public int getMaxProcedureNameLength() { return 0; }
    @Override public int getMaxConnections() { return 0; }
    @Override public int getMaxStatements() { return 0; }
    @Override public long getMaxLogicalLobSize() { return 0; }
    // Statements are bounded by the router's frame limit, users by nothing MySQL defines (router logins).
    @Override public int getMaxStatementLength() { return 0; }
    @Override public int getMaxUserNameLength() { return 0; }

    // ---- transactions ----------------------------------------------------------------------

    @Override public boolean supportsTransactions() { return true; } // multi-shard ones with XA two-phase commit
    @Override public boolean supportsMultipleTransactions() { return true; }
    @Override public int getDefaultTransactionIsolation() { return Connection.TRANSACTION_REPEATABLE_READ; }
    @Override public boolean supportsTransactionIsolationLevel(int level) { return TransactionStatus.isLevel(level); }
    @Override public boolean dataDefinitionCausesTransactionCommit() { return true; }
    @Override public boolean dataDefinitionIgnoredInTransactions() { return false; }
    @Override public boolean supportsDataDefinitionAndDataManipulationTransactions() { return false; }
    @Override public boolean supportsDataManipulationTransactionsOnly() { return false; }
    @Override public boolean supportsSavepoints() { return true; }
    @Override public boolean autoCommitFailureClosesAllResultSets() { return false; }
    // commit() and rollback() close CLOSE_CURSORS_AT_COMMIT results; statements stay usable.
    @Override public boolean supportsOpenCursorsAcrossCommit() { return false; }
    @Override public boolean supportsOpenCursorsAcrossRollback() { return false; }
    @Override public boolean supportsOpenStatementsAcrossCommit() { return true; }
    @Override public boolean supportsOpenStatementsAcrossRollback() { return true; }

    // ---- the driver ------------------------------------------------------------------------

    @Override public boolean supportsResultSetType(int type) { return type == ResultSet.TYPE_FORWARD_ONLY || type == ResultSet.TYPE_SCROLL_INSENSITIVE; }
    @Override public boolean supportsResultSetConcurrency(int type, int concurrency) {
        return supportsResultSetType(type) && (concurrency == ResultSet.CONCUR_READ_ONLY || concurrency == ResultSet.CONCUR_UPDATABLE);
    }
    @Override public boolean supportsResultSetHoldability(int holdability) { return holdability == ResultSet.CLOSE_CURSORS_AT_COMMIT; }
    @Override public int getResultSetHoldability() { return ResultSet.CLOSE_CURSORS_AT_COMMIT; }
    // TYPE_SCROLL_SENSITIVE is given as TYPE_SCROLL_INSENSITIVE (with a warning on the connection), so it is not "supported".
    // An updatable result does show its own changes (updateRow reads the row back, deleteRow drops it, insertRow adds it at
    // the end), but Connector/J, which does the same, answers false, and so does Lutra; rowUpdated/rowDeleted/rowInserted
    // are not implemented (0A000), as in Connector/J, so nothing is "detected" either.
    @Override public boolean ownUpdatesAreVisible(int type) { return false; }
    @Override public boolean ownDeletesAreVisible(int type) { return false; }
    @Override public boolean ownInsertsAreVisible(int type) { return false; }
    @Override public boolean othersUpdatesAreVisible(int type) { return false; }
    @Override public boolean othersDeletesAreVisible(int type) { return false; }
    @Override public boolean othersInsertsAreVisible(int type) { return false; }
    @Override public boolean updatesAreDetected(int type) { return false; }
    @Override public boolean deletesAreDetected(int type) { return false; }
    @Override public boolean insertsAreDetected(int type) { return false; }
    @Override public boolean supportsBatchUpdates() { return true; }
    @Override public boolean supportsGetGeneratedKeys() { return true; }
    @Override public boolean generatedKeyAlwaysReturned() { return true; }
    @Override public boolean supportsMultipleResultSets() { return false; } // one statement, one result
    @Override public boolean supportsMultipleOpenResults() { return false; }
    @Override public boolean supportsNamedParameters() { return false; }
    @Override public boolean supportsStoredProcedures() { return false; }
    @Override public boolean supportsStoredFunctionsUsingCallSyntax() { return false; }
    @Override public boolean allProceduresAreCallable() { return false; }
    @Override public boolean allTablesAreSelectable() { return true; } // any router login may read every table
    @Override public boolean supportsStatementPooling() { return false; }
    @Override public boolean supportsRefCursors() { return false; }
    @Override public boolean supportsSharding() { return false; } // java.sql.ShardingKey: Lutra shards behind the router
    @Override public boolean usesLocalFiles() { return false; }
    @Override public boolean usesLocalFilePerTable() { return false; }
    @Override public boolean locatorsUpdateCopy() { return true; }
    @Override public RowIdLifetime getRowIdLifetime() { return RowIdLifetime.ROWID_UNSUPPORTED; }
    @Override public int getSQLStateType() { return sqlStateSQL; }
    @Override public int getJDBCMajorVersion() { return 4; }
    @Override public int getJDBCMinorVersion() { return 3; }
}
