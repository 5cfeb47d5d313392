package org.lutra.exec;

import org.lutra.backend.ShardQuery;
import org.lutra.catalog.TableDef;
import org.lutra.sql.AutoFill;
import org.lutra.sql.KeyMatch;
import org.lutra.sql.PlanException;
import org.lutra.sql.SqlTemplate;
import org.lutra.sql.ValueRef;

import java.util.List;

/**
 * An executable plan: what the {@code Executor} runs for a statement, many times with different
 * parameters. The planner makes it once per SQL text (statements the session runs itself are
 * {@link SessionCommand}s); plans are immutable and shared between sessions through the plan cache.
 */
public sealed interface Plan extends Planned {
    /**
     * A write's plan: the root of its tree of {@link Write}s (with the reads it runs first as inputs), which the executor
     * runs; the planner builds it once, as it builds a read's {@link Query}.
     */
    sealed interface Writing extends Plan, Write permits Routed, Insert, InsertSelect, RowsMoved, WriteAfterSubqueries, CopiesLockedFirst {}

    /**
     * EXPLAIN ROUTE / EXPLAIN FORMAT=LUTRA (route: the router's tree and the SQL each partition gets),
     * or plain EXPLAIN, which MySQL answers where the statement targets one partition.
     */
    record Explain(Plan statement, boolean route) implements Plan {
        @Override
        public int paramCount() {
            return statement.paramCount();
        }
    }

    /** Rows the router answers itself (SHOW TABLES, SHOW DATABASES): text columns. */
    record Rows(List<String> labels, List<List<String>> rows) implements Plan {
        @Override
        public int paramCount() {
            return 0;
        }
    }

    /** A statement one partition answers for the logical database (SHOW COLUMNS, SHOW CREATE TABLE, ...). */
    record OnePartition(int partition, String sql) implements Plan {
        @Override
        public int paramCount() {
            return 0;
        }
    }

    /**
     * A statement with nothing for the router to do: USE of the logical database; SET NAMES and
     * the character_set_* variables to a Unicode set (text travels as Unicode between driver and
     * router, and the backend connections are utf8mb4).
     */
    record NoOp() implements Plan {
        @Override
        public int paramCount() {
            return 0;
        }
    }

    /**
     * A read of system variables ({@code org.lutra.plan.SessionVariables}): {@code sql} runs on a partition, then
     * the session puts in the values it keeps itself — in the columns whose {@code managed} entry
     * names a variable (SELECT @@...), or, for SHOW VARIABLES ({@code show}), in the rows of those
     * variables, leaving out the rows no pooled connection can answer for this session.
     */
    record SessionVariables(String sql, List<String> managed, boolean show) implements Plan {
        @Override
        public int paramCount() {
            return 0;
        }
    }

    /** A statement that returns rows: a tree of operators, opened once per execution, and what its tree says of it. */
    record Query(org.lutra.exec.Operator root, int paramCount, QueryTraits traits) implements Plan {
        public Query(org.lutra.exec.Operator root, int paramCount) {
            this(root, paramCount, QueryTraits.of(root));
        }
    }

    /**
     * UPDATE or DELETE on one table.
     *
     * @param sql        the whole statement as sent to a partition (schema qualifiers removed)
     * @param keys       what the WHERE clause pins the routing column to, or null (broadcast)
     * @param mergeNeed  null when counts from several partitions simply add up; else what would
     *                   need the router to coordinate them ("UPDATE with ORDER BY or LIMIT")
     */
    /**
     * @param setsInsertId an UPDATE whose SET has {@code c = LAST_INSERT_ID(expr)}: it sets the session's LAST_INSERT_ID()
     * @param references   the foreign keys the router enforces for it, or null: none ({@link WriteReferences})
     */
    record Routed(TableDef table, String sql, KeyMatch keys, String mergeNeed, int paramCount, List<SecondarySet> sets,
                  SecondaryMatch secondary, boolean setsInsertId, WriteReferences references) implements Writing {
        public Routed(TableDef table, String sql, KeyMatch keys, String mergeNeed, int paramCount) {
            this(table, sql, keys, mergeNeed, paramCount, List.of(), null, false, null);
        }

        /** The write itself, once the router did what its foreign keys ask. */
        public Routed withoutReferences() {
            return new Routed(table, sql, keys, mergeNeed, paramCount, sets, secondary, setsInsertId, null);
        }

        @Override
        public Result.Count run(Context ctx) throws java.sql.SQLException {
            return RoutedWrite.run(this, ctx);
        }

        @Override
        public String describe() {
            return "Write " + table.name();
        }

        @Override
        public List<Node> inputs() {
            return List.of();
        }

        /** The statements of the first try (before any lookup validation). */
        @Override
        public List<ShardQuery> shardQueries(Context ctx) {
            return Routes.primary(ctx.stats(), this, ctx.params());
        }
    }

    /** Plans the router's own statements of a write: lookups of parent and child rows, a foreign key's cascades. */
    interface Statements {
        Plan plan(String sql) throws PlanException;
    }

    /**
     * The values an INSERT's rows (or an UPDATE's SET, one "row") give the columns of a foreign key the router checks.
     *
     * @param perRow           per row, one value per column of the key; null where the row leaves the column NULL
     * @param referencedPerRow a self-referencing key's: per row, the values of the columns it references (a row may
     *                         reference itself, or a row the same INSERT wrote before it); else null
     */
    record ChildValues(org.lutra.catalog.ForeignKey fk, List<List<ValueRef>> perRow, List<List<ValueRef>> referencedPerRow) {}

    /**
     * An INSERT's (or REPLACE's) foreign keys the router checks (docs/foreign-keys.md, {@code org.lutra.exec.ForeignKeyChecks}):
     * every key of the table, since one of them is crossing and the shards' checks are off for the statement.
     *
     * @param ignore       INSERT IGNORE: a row without its parent is left out with warning 1452, as MariaDB does
     * @param upsert       ON DUPLICATE KEY UPDATE: a row without its parent that repeats the primary key updates that row
     * @param primaryKey   the table's PRIMARY KEY columns (empty without one): MariaDB finds a row repeating it before it looks
     *                     for the row's parent
     * @param primaryPerRow per row, the values of those columns (a null row where one is computed)
     * @param otherUnique  whether the table has UNIQUE keys besides the primary key
     */
    record InsertReferences(List<ChildValues> keys, boolean ignore, boolean upsert, List<String> primaryKey, List<List<ValueRef>> primaryPerRow,
                            boolean otherUnique, String database, Statements statements) {}

    /**
     * What an UPDATE or DELETE asks of the foreign keys the router enforces ({@code org.lutra.exec.ReferentialWrite}).
     *
     * @param children   UPDATE: the keys of the table whose columns its SET gives (checked like an INSERT's), when one of them
     *                   is crossing ({@code checksOff}); else empty
     * @param parents    the keys referencing the table whose rows the write deletes or whose referenced columns it changes:
     *                   the crossing ones (all of them when {@code checksOff})
     * @param newValues  UPDATE: the table's columns its SET gives a literal or parameter, by lower-case name (computed ones absent)
     * @param assigned   UPDATE: every column its SET assigns, lower case
     * @param from       the table as the statement names it ({@code `t` AS x})
     * @param where      the WHERE condition's text, or null
     * @param orderLimit ORDER BY and LIMIT as written, or ""
     * @param whereParam the index of the first parameter after the SET (the WHERE's, ORDER BY's and LIMIT's are the rest)
     * @param checksOff  whether the write runs with the shards' foreign key checks off ({@code SET STATEMENT foreign_key_checks = 0})
     */
    record WriteReferences(boolean delete, boolean ignore, List<ChildValues> children, List<org.lutra.catalog.ForeignKey> parents,
                           java.util.Map<String, ValueRef> newValues, java.util.Set<String> assigned, String from, String where,
                           String orderLimit, int whereParam, boolean checksOff, String database, Statements statements) {}

    /**
     * UPDATE or DELETE whose uncorrelated subqueries (in WHERE and SET's values) run first, through their own plans,
     * in the statement's transaction (the session's, or one the router starts); their values are then bound into the
     * write as parameters ({@code org.lutra.exec.SubqueryRounds#bind}) and the write, planned for that text like any
     * UPDATE or DELETE of values, runs: routed, validated and counted as that one is. A subquery reading the target
     * table reads it as before the write, as one MariaDB materializes it.
     *
     * @param pieces  the write's text around one slot per subquery
     * @param plain   the subqueries as plain reads (an UPDATE's at READ COMMITTED, READ UNCOMMITTED)
     * @param locking the same as locking reads ({@code LOCK IN SHARE MODE}: InnoDB reads a write's subqueries with shared
     *                locks, the latest rows: a DELETE's at every level, an UPDATE's at REPEATABLE READ and SERIALIZABLE),
     *                or null where the router cannot
     * @param writes  the write's plan for its text with the values bound
     * @param delete  a DELETE (else an UPDATE)
     */
    record WriteAfterSubqueries(TableDef table, List<String> pieces, List<org.lutra.exec.SubqueryRounds.Subquery> plain,
                                List<org.lutra.exec.SubqueryRounds.Subquery> locking, BoundWrite writes, int paramCount, boolean delete) implements Writing {
        @Override
        public Result.Count run(Context ctx) throws java.sql.SQLException {
            return SubqueryWrite.run(this, ctx);
        }

        @Override
        public String describe() {
            return "Write " + table.name() + " after its subqueries, their values bound into it";
        }

        /** The subqueries' reads, as locking reads where the router can read them so. */
        @Override
        public List<Node> inputs() {
            return (locking != null ? locking : plain).stream().<Node>map(SubqueryRounds.Subquery::plan).toList();
        }
    }

    /**
     * An UPDATE or DELETE whose subqueries run inside each partition of the target ({@code WriteSubqueries#inPlace}) and read
     * REPLICATED tables there, each partition its own copy. InnoDB reads a write's subqueries with shared locks (a DELETE's at
     * every level, an UPDATE's at REPEATABLE READ and SERIALIZABLE), and the copy of a REPLICATED table's row that locking
     * reads lock is its first partition's ({@code org.lutra.placement.ReplicaLocks}): {@code locks} take them there, on at least
     * the rows the subqueries read, in the write's transaction before the write, so that it waits for a {@code FOR UPDATE}
     * another transaction holds on them, as on one MariaDB.
     */
    record CopiesLockedFirst(List<CopyLock> locks, Plan write, boolean delete) implements Writing {
        @Override
        public int paramCount() {
            return write.paramCount();
        }

        @Override
        public Result.Count run(Context ctx) throws java.sql.SQLException {
            return CopyLockReads.run(this, ctx);
        }

        @Override
        public String describe() {
            return "Locking reads of the REPLICATED tables its subqueries read (their first partitions) first, then";
        }

        @Override
        public List<Node> inputs() {
            return write instanceof Node n ? List.of(n) : List.of();
        }
    }

    /**
     * A locking read of {@link CopiesLockedFirst}, whose parameters are the write's from {@code firstParam} on; or, where
     * {@code read} is null, the refusal to answer where the locks are needed ({@code refusal}: what the router cannot lock).
     */
    record CopyLock(Query read, int firstParam, String refusal) {
        public CopyLock(Query read, int firstParam) {
            this(read, firstParam, null);
        }
    }

    /** Plans an UPDATE or DELETE whose subqueries became values. */
    interface BoundWrite {
        Plan write(String sql) throws PlanException;
    }

    /** An UPDATE's {@code SET col = value} of a secondary lookup's columns (every one of them, in its order): its rows need entries for the value. */
    record SecondarySet(org.lutra.catalog.SecondaryLookup lookup, List<ValueRef> values) {}

    /**
     * What a WHERE clause pins a secondary lookup's columns to, one match per column in its order: the statement may route
     * by it. One column: {@code Equals} or {@code In}; several: {@code Equals} on each (the one tuple they make).
     */
    record SecondaryMatch(org.lutra.catalog.SecondaryLookup lookup, List<KeyMatch> keys) {}

    /** An INSERT's values of a secondary lookup's columns, per row one per column (parameter positions as in {@code keyPerRow}). */
    record SecondaryValues(org.lutra.catalog.SecondaryLookup lookup, List<List<ValueRef>> perRow) {}

    /**
     * INSERT ... VALUES with one row per item of {@code rows}.
     *
     * @param keyPerRow  the routing column's value in each row (empty for replicated tables); parameter
     *                   positions count the parameters as sent to partitions (see {@link AutoFill})
     * @param paramCount the client's parameters
     * @param auto       where the router fills AUTO_INCREMENT ids; null for a table without such a column
     * @param references the foreign keys the router checks for its rows, or null: none (the shards check them)
     */
    record Insert(TableDef table, SqlTemplate rows, List<ValueRef> keyPerRow, int paramCount, AutoFill auto, List<SecondaryValues> secondaries,
                  InsertReferences references) implements Writing {
        public Insert(TableDef table, SqlTemplate rows, List<ValueRef> keyPerRow, int paramCount) {
            this(table, rows, keyPerRow, paramCount, null);
        }

        public Insert(TableDef table, SqlTemplate rows, List<ValueRef> keyPerRow, int paramCount, AutoFill auto) {
            this(table, rows, keyPerRow, paramCount, auto, List.of(), null);
        }

        @Override
        public Result.Count run(Context ctx) throws java.sql.SQLException {
            return InsertWrite.run(this, ctx);
        }

        /** The rows are split by their routing column as it runs. */
        @Override
        public String describe() {
            return "Insert " + table.name() + " (" + rows.itemCount() + " rows, split by their routing column)";
        }

        @Override
        public List<Node> inputs() {
            return List.of();
        }
    }

    /**
     * {@code INSERT ... SELECT}: the SELECT's rows read first through the router's own read path (so the
     * statement's own table is read as before the insert, as MySQL materializes it), then inserted by
     * the plans of {@code INSERT ... VALUES} for that many rows that {@code batches} gives, all in one transaction.
     *
     * @param columns    the values each row gives (the INSERT's column list, or the table's columns)
     * @param paramCount the client's parameters, all the SELECT's
     * @param upsert     with ON DUPLICATE KEY UPDATE (a row may update instead of insert)
     * @param locking    the SELECT as a locking read ({@code LOCK IN SHARE MODE}), as InnoDB reads an INSERT ... SELECT's
     *                   rows at REPEATABLE READ and SERIALIZABLE; null where the router cannot read it so (a UNION, subqueries:
     *                   it would lock only part of what it reads), refused at those levels
     * @param lockRefusal why {@code locking} is null
     */
    record InsertSelect(TableDef table, Query select, Query locking, String lockRefusal, int columns, Batches batches, int paramCount,
                        boolean upsert) implements Writing {
        /** Rows inserted per statement. */
        public static final int BATCH = 500;

        @Override
        public Result.Count run(Context ctx) throws java.sql.SQLException {
            return InsertSelectWrite.run(this, ctx);
        }

        @Override
        public String describe() {
            return "Insert " + table.name() + " the rows its SELECT reads (all read first, then inserted " + BATCH + " at a time, split by their routing column)";
        }

        /** The SELECT, as the locking read it is at REPEATABLE READ and SERIALIZABLE where the router can read it so. */
        @Override
        public List<Node> inputs() {
            return List.of((locking != null ? locking : select).root());
        }
    }

    /**
     * An UPDATE that sets the routing column ({@code plan/RoutingUpdate}): each row it matches is read with a lock,
     * deleted where it is and inserted where its new values place it, all in the statement's transaction (the session's,
     * or one the router starts; two-phase where it spans backends).
     *
     * @param read      per matched row: its new values ({@code columns} of them, in the inserts' column order), then its
     *                  routing column's old value and its primary key, read as a locking read ({@code FOR UPDATE})
     * @param routingAt the position of the routing column's new value among them
     * @param keyed     deletes one row by its old routing value and primary key (in that parameter order)
     * @param nullKey   the same for a row whose old routing value is NULL (primary key only)
     * @param inserts   the INSERT of that many rows
     * @param checksOff whether the deletes run with the shards' foreign key checks off: keys the router enforces reference
     *                  the table (their children stay where they are and keep referencing the row, which the UPDATE keeps)
     * @param stays     for a row whose routing column keeps its value: the UPDATE of its other assigned columns by its routing
     *                  value and primary key, in place ({@link RowsStaying}); null where the SET assigns the routing column only
     */
    record RowsMoved(TableDef table, Query read, int columns, int routingAt, Plan keyed, Plan nullKey, Batches inserts, boolean checksOff,
                     RowsStaying stays, int paramCount) implements Writing {
        @Override
        public Result.Count run(Context ctx) throws java.sql.SQLException {
            return MovedRows.run(this, ctx);
        }

        @Override
        public String describe() {
            return "Move rows of " + table.name() + " (UPDATE of its routing column): read locked, delete each by its old routing value"
                    + " and primary key, insert it where its new value places it";
        }

        /** The locked read of the rows; the deletes and inserts are planned per row count as it runs. */
        @Override
        public List<Node> inputs() {
            return List.of(read.root());
        }
    }

    /**
     * The in-place UPDATE of {@link RowsMoved} for a row that stays: {@code keyed} (parameters: the new values of
     * {@code assigned}, then the old routing value and the primary key) or {@code nullKey} (the same without the routing value).
     *
     * @param assigned positions, among the read row's new values, of the assigned columns other than the routing column
     */
    record RowsStaying(Plan keyed, Plan nullKey, int[] assigned) {}

    /** The plan inserting {@code rows} rows of parameters. */
    interface Batches {
        Insert rows(int rows) throws PlanException;
    }
}
