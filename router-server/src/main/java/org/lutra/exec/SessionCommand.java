package org.lutra.exec;

import org.lutra.catalog.TableDef;
import org.lutra.sql.ValueRef;

import java.util.List;

/**
 * A statement the session runs itself, never the {@code Executor}: transaction control, SET of
 * session variables, SHOW WARNINGS, the router's own SHOW statements, named locks, moves and DDL.
 * The planner recognizes them (and caches them with the plans) and the session
 * ({@code org.lutra.server.TransactionWorker}) dispatches them in one place. They live here,
 * next to {@link Plan}, below the planner that makes them and {@code org.lutra.txn} that runs the
 * transaction-control ones; {@link Planned} is sealed over both, which Java allows within one package.
 */
public sealed interface SessionCommand extends Planned {
    /** Whether a JDBC batch may hold it: only commands that answer an update count and change no placement. */
    default boolean batchable() {
        return false;
    }


    /**
     * SET of session variables (sql_mode, time_zone, @x, ...: {@code org.lutra.plan.SessionSettings}): a backend
     * evaluates the expressions and normalizes the values, which the session then carries to every
     * backend connection its statements use.
     */
    record SetVariables(List<Assignment> assignments, int paramCount) implements SessionCommand {
        @Override
        public boolean batchable() {
            return true;
        }
    }

    /** {@code name = expression}: name is {@code @x} for a user variable, else a system variable's lower-case name. */
    record Assignment(String name, String expression) {
        public boolean user() {
            return name.startsWith("@");
        }
    }

    /**
     * SHOW WARNINGS / SHOW ERRORS [LIMIT [offset,] n] and SHOW COUNT(*) WARNINGS / ERRORS: the
     * session answers from what its last statement's backends reported, and clears nothing.
     */
    record ShowWarnings(boolean errors, boolean count, long offset, long limit) implements SessionCommand {
        @Override
        public int paramCount() {
            return 0;
        }
    }

    /**
     * {@code SELECT GET_LOCK(name, timeout)}, {@code RELEASE_LOCK(name)}, {@code IS_FREE_LOCK(name)} or
     * {@code RELEASE_ALL_LOCKS()} alone: run on the session's own lock connection ({@code org.lutra.plan.NamedLocks}).
     *
     * @param args each the index of a bound parameter (an Integer) or a literal's value (a protocol Value)
     */
    record NamedLock(String function, List<Object> args, String label, int paramCount) implements SessionCommand {}

    /** {@code SELECT LAST_INSERT_ID()}: the session's own value, answered by the router ({@code label} as written). */
    record LastInsertId(String label) implements SessionCommand {
        @Override
        public int paramCount() {
            return 0;
        }
    }

    /**
     * SHOW LUTRA STATUS: the router's own counters, answered without any partition; {@code hotKeys}: SHOW LUTRA HOT KEYS,
     * the most routed keys of every lookup table lately (docs/operations.md).
     */
    record RouterStatus(boolean hotKeys) implements SessionCommand {
        @Override
        public int paramCount() {
            return 0;
        }
    }

    /**
     * The administrator's view of placement — SHOW PARTITIONS, SHOW LOOKUP TABLES, SHOW LOOKUP t
     * FOR key — answered from the router's own state when executed (counters and lookup entries
     * move): no partition is asked, no transaction or session state is touched.
     */
    sealed interface ShowPlacement extends SessionCommand {}

    /** SHOW PARTITIONS: one row per logical partition. */
    record ShowPartitions() implements ShowPlacement {
        @Override
        public int paramCount() {
            return 0;
        }
    }

    /** SHOW LOOKUP TABLES: one row per lookup table (an owner table's, shared by its SAME AS tables). */
    record ShowLookupTables() implements ShowPlacement {
        @Override
        public int paramCount() {
            return 0;
        }
    }

    /**
     * SHOW LOOKUP SNAPSHOT: every entry of every lookup table, (Table, Key, Partition); SHOW LOOKUP LOG POSITION: per
     * partition, the change-log entry up to which this router has applied every entry. A table copied after reading the
     * position reflects at least it: what a starting router asks a peer for (docs/placement.md, "Start-up").
     */
    record ShowLookupSnapshot(boolean position) implements ShowPlacement {
        @Override
        public int paramCount() {
            return 0;
        }
    }

    /** SHOW LOOKUP t FOR key: where the placement puts {@code key} of {@code table} (hash or range rule, lookup entry or DEFAULT NEW). */
    record ShowLookup(TableDef table, ValueRef key) implements ShowPlacement {
        @Override
        public int paramCount() {
            return key instanceof ValueRef.Param ? 1 : 0;
        }
    }

    /**
     * {@code ALTER TABLE owner SET PARTITION = p WHERE ...}: moves the keys {@code keys} selects
     * (with every SAME AS row) to {@code targets} (several: the keys are replicated there, the first their primary); the session runs it (a transaction per batch).
     *
     * @param keys {@code SELECT DISTINCT key FROM owner WHERE ...}, planned like any query
     */
    record Move(TableDef table, int[] targets, String keysSql, Plan keys) implements SessionCommand {
        @Override
        public int paramCount() {
            return keys.paramCount();
        }
    }

    /**
     * The administrator's statements about moves ({@code org.lutra.plan.PlacementStatements}), run by the session
     * through {@code org.lutra.maintain.MoveJobs}: none takes parameters, none joins a transaction.
     */
    sealed interface MoveStatement extends SessionCommand {
        @Override
        default int paramCount() {
            return 0;
        }
    }

    /**
     * {@code LOAD LOOKUP TABLE t FROM 'file' FORMAT f [APPLY]}.
     *
     * @param table  the table named (its owner's lookup table is loaded; a schism file's rows are this table's)
     * @param file   the path as written, resolved by the router against its map directory
     * @param format csv, metis or schism
     * @param text   the statement, for SHOW MOVES
     */
    record LoadLookup(TableDef table, String file, String format, boolean apply, String text) implements MoveStatement {}

    record ShowMoves() implements MoveStatement {}

    record PauseMove(long id) implements MoveStatement {}

    record ResumeMove(long id) implements MoveStatement {}

    /**
     * DDL through the router ({@code org.lutra.plan.DdlStatements}): run by {@code org.lutra.ddl.DdlRunner} on every
     * partition holding the table, recorded in the stored catalog. Table names are unqualified, as the
     * client wrote them (the catalog decides their case on the backends).
     */
    sealed interface Ddl extends SessionCommand {
        @Override
        default int paramCount() {
            return 0;
        }

        @Override
        default boolean batchable() {
            return true;
        }

        /** The statement as the client wrote it, for messages. */
        String text();
    }

    /** @param create CREATE TABLE `table` (...) [placement clause], without IF NOT EXISTS */
    record CreateTable(String table, boolean ifNotExists, String create, String text) implements Ddl {}

    record DropTables(List<String> tables, boolean ifExists, String text) implements Ddl {}

    record Truncate(String table, String text) implements Ddl {}

    /** {@code CREATE SECONDARY LOOKUP name ON table (column [, column ...]) [UNIQUE]} (see {@code org.lutra.catalog.SecondaryLookup}). */
    record CreateSecondary(String name, String table, List<String> columns, boolean unique, String text) implements Ddl {}

    record DropSecondary(String name, boolean ifExists, String text) implements Ddl {}

    /**
     * ALTER TABLE, CREATE INDEX, DROP INDEX: changes that keep the table's placement.
     *
     * @param sql          the statement for each partition, the table name unqualified
     * @param clauses      ALTER TABLE's clauses (one for CREATE/DROP INDEX), as written
     */
    record AlterTable(String table, String sql, List<String> clauses, String text) implements Ddl {}

    /**
     * {@code CREATE SEQUENCE [IF NOT EXISTS] s options [ON p]} (see {@code org.lutra.catalog.Sequences}).
     *
     * @param options   what follows the name, as written, for the backend
     * @param partition the partition named by {@code ON p}, or null for the catalog's first
     */
    record CreateSequence(String name, boolean ifNotExists, String options, String partition, String text) implements Ddl {}

    /** {@code ALTER SEQUENCE [IF EXISTS] s options}. */
    record AlterSequence(String name, boolean ifExists, String options, String text) implements Ddl {}

    record DropSequences(List<String> names, boolean ifExists, String text) implements Ddl {}

    /** Transaction control: the session handles these, they never reach a partition. */
    sealed interface Control extends SessionCommand {
        @Override
        default int paramCount() {
            return 0;
        }

        @Override
        default boolean batchable() {
            return true;
        }
    }

    /** BEGIN / START TRANSACTION [READ ONLY | READ WRITE | WITH CONSISTENT SNAPSHOT]. */
    record Begin(boolean readOnly) implements Control {}

    /**
     * SET [SESSION] TRANSACTION READ ONLY | READ WRITE, SET transaction_read_only = ..: writes are
     * refused (MySQL's 1792) in the session's transactions, or in the next one only without SESSION.
     */
    record SetReadOnly(boolean readOnly, boolean forSession) implements Control {}

    record Commit() implements Control {}

    record Rollback() implements Control {}

    /** SAVEPOINT name: MySQL's rules (a name set again moves to the end; outside a transaction nothing is kept). */
    record Savepoint(String name) implements Control {}

    /** ROLLBACK [WORK] TO [SAVEPOINT] name: undoes what followed it, keeps it, drops the later ones. */
    record RollbackToSavepoint(String name) implements Control {}

    /** RELEASE SAVEPOINT name: drops it and the later ones; changes no row. */
    record ReleaseSavepoint(String name) implements Control {}

    /** SET autocommit = 0 | 1. */
    record SetAutocommit(boolean on) implements Control {}

    /**
     * SET [SESSION] TRANSACTION ISOLATION LEVEL ...
     *
     * @param level      a java.sql.Connection.TRANSACTION_* level
     * @param forSession SESSION: every later transaction; without it, the next transaction only
     */
    record SetIsolation(int level, boolean forSession) implements Control {}
}
