package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.Values;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;
import org.lutra.catalog.TableDef;
import org.lutra.exec.Plan;
import org.lutra.sql.Guards;
import org.lutra.sql.KeyMatch;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;
import org.lutra.sql.SqlTemplate;
import org.lutra.sql.ValueRef;

import java.util.ArrayList;
import java.util.List;

/**
 * Plans INSERT, REPLACE, UPDATE and DELETE for the {@link Planner}: where their rows go, what their
 * subqueries and foreign keys ask first, and what is refused. The catalog is the planner's of the moment.
 */
final class WritePlanner {
    private static final String ROWS_MARKER = "__LUTRA_ROWS__";
    private final Planner planner;

    WritePlanner(Planner planner) {
        this.planner = planner;
    }

    Plan update(Update update) throws PlanException {
        if (update.getJoins() != null && !update.getJoins().isEmpty() || update.getFromItem() != null) {
            throw PlanException.unsupported("multi-table UPDATE yet");
        }
        TableDef table = planner.dmlTable(update.getTable());
        String routing = table.partitioning().column();
        for (UpdateSet set : update.getUpdateSets()) {
            for (Column c : set.getColumns()) {
                if (routing != null && KeyFinder.unquote(c.getColumnName()).equalsIgnoreCase(routing)) {
                    return RoutingUpdate.plan(planner.catalog(), table, update, planner::executable); // the rows move to where the new value places them
                }
            }
        }
        var setValues = WriteSubqueries.setValues(update.getUpdateSets());
        boolean inPlace = false;
        if (Guards.selectWords(update.toString()) > 0) {
            inPlace = WriteSubqueries.inPlace(update, table, update.getTable(), setValues, update.getWhere(), planner.catalog());
            if (!inPlace) return subqueriesFirst(update, table, update.getTable(), setValues, update.getWhere());
        }
        var sets = new ArrayList<Plan.SecondarySet>();
        for (var s : planner.catalog().secondariesOf(table.name())) {
            var values = new ValueRef[s.columns().size()];
            int setCount = 0;
            for (UpdateSet set : update.getUpdateSets()) {
                for (int i = 0; i < set.getColumns().size(); i++) {
                    String column = KeyFinder.unquote(set.getColumns().get(i).getColumnName());
                    int at = -1;
                    for (int c = 0; c < values.length; c++) if (s.columns().get(c).equalsIgnoreCase(column)) at = c;
                    if (at < 0) continue;
                    ValueRef v = set.getValues().size() == set.getColumns().size() ? KeyFinder.valueRef((Expression) set.getValues().get(i)) : null;
                    if (v == null) {
                        throw PlanException.unsupported("UPDATE of " + table.name() + "." + column + " (secondary lookup " + s.name()
                                + ") to a computed value; set it to a literal or a parameter");
                    }
                    if (values[at] == null) setCount++;
                    values[at] = v;
                }
            }
            if (setCount == 0) continue;
            if (setCount < values.length) {
                // the new tuple's other parts are each row's own, which the router does not read before the write
                throw PlanException.unsupported("UPDATE of " + table.name() + " setting some but not all of " + s.columnList() + ", the columns of secondary lookup "
                        + s.name() + " (its entries hold the tuple); set every one of them, to a literal or a parameter");
            }
            sets.add(new Plan.SecondarySet(s, List.of(values)));
        }
        String sql = update.toString();
        if (!inPlace) requireNoSubquery(sql, "UPDATE");
        boolean setsInsertId = InsertIdCalls.inSet(update); // checks the statement's text without them
        if (!setsInsertId) Guards.requireNoSessionState(sql);
        String mergeNeed = update.getLimit() != null || update.getOrderByElements() != null ? "UPDATE with ORDER BY or LIMIT" : null;
        var locks = inPlace ? copyLocks(update, table, setValues, update.getWhere()) : List.<Plan.CopyLock>of(); // before planner.keys() too
        var references = ForeignKeyPlanner.update(planner.catalog(), planner.database(), table, update, planner::executable); // before planner.keys(): it cuts the WHERE's IN list
        KeyMatch keys = planner.keys(table, update.getTable(), update.getWhere(), update);
        Plan write = new Plan.Routed(table, update.toString(), keys, mergeNeed, ParamCounter.count(sql), sets,
                SecondaryMatches.of(planner.catalog(), table, update.getTable(), update.getWhere(), update), setsInsertId, references);
        return locks.isEmpty() ? write : new Plan.CopiesLockedFirst(locks, write, false);
    }

    Plan delete(Delete delete) throws PlanException {
        if (delete.getJoins() != null && !delete.getJoins().isEmpty()
                || delete.getTables() != null && !delete.getTables().isEmpty() && !deletesItsOnlyTable(delete)) {
            throw PlanException.unsupported("multi-table DELETE yet");
        }
        TableDef table = planner.dmlTable(delete.getTable());
        String sql = delete.toString();
        if (Guards.selectWords(sql) > 0 && !WriteSubqueries.inPlace(delete, table, delete.getTable(), List.of(), delete.getWhere(), planner.catalog())) {
            return subqueriesFirst(delete, table, delete.getTable(), List.of(), delete.getWhere());
        }
        Guards.requireNoSessionState(sql);
        String mergeNeed = delete.getLimit() != null || delete.getOrderByElements() != null ? "DELETE with ORDER BY or LIMIT" : null;
        var locks = Guards.selectWords(sql) > 0 ? copyLocks(delete, table, List.of(), delete.getWhere()) : List.<Plan.CopyLock>of();
        var references = ForeignKeyPlanner.delete(planner.catalog(), planner.database(), table, delete, planner::executable);
        KeyMatch keys = planner.keys(table, delete.getTable(), delete.getWhere(), delete);
        Plan write = new Plan.Routed(table, delete.toString(), keys, mergeNeed, ParamCounter.count(sql), List.of(),
                SecondaryMatches.of(planner.catalog(), table, delete.getTable(), delete.getWhere(), delete), false, references);
        return locks.isEmpty() ? write : new Plan.CopiesLockedFirst(locks, write, true);
    }

    /**
     * The locks a write whose subqueries run in place takes first on REPLICATED tables' copies ({@link Plan.CopiesLockedFirst}),
     * its parameters counted in the client's text (before {@code planner.keys()} rewrites it); each subquery planned from a copy of
     * its text, leaving the write's tree as it was.
     */
    private List<Plan.CopyLock> copyLocks(Statement statement, TableDef table, List<Expression> setValues, Expression where) throws PlanException {
        return WriteSubqueries.copyLocks(statement, table, setValues, where, planner.catalog(),
                s -> lockingSubquery((Select) Parsing.parse(s.toString(), planner.limits().parseTimeoutMillis())));
    }

    /** An UPDATE or DELETE whose subqueries run first ({@link WriteSubqueries}), each read and the write in one transaction. */
    private Plan subqueriesFirst(Statement write, TableDef table, Table target, List<Expression> setValues, Expression where) throws PlanException {
        return WriteSubqueries.plan(write, table, target, setValues, where, planner.catalog(), planner::subquery, this::lockingSubquery, planner::executable);
    }

    /**
     * A write's subquery as InnoDB reads it at REPEATABLE READ and SERIALIZABLE: a locking read ({@code LOCK IN SHARE MODE}),
     * or why the router cannot read it so ({@link #lockingNotApplicable}, else its planner's refusal); an error of the
     * statement is thrown.
     */
    private Attempt<Plan.Query> lockingSubquery(Select select) throws PlanException {
        var notLocking = lockingNotApplicable(select);
        if (notLocking.isPresent()) return Attempt.notApplicable(notLocking.get());
        String text = select.toString();
        if (Guards.lockingRead(text)) return planner.subqueryAttempt(select);
        return planner.subqueryAttempt((Select) Parsing.parse(text + " LOCK IN SHARE MODE", planner.limits().parseTimeoutMillis()));
    }

    /** Why {@code select} cannot be read with locks: a UNION, or a subquery holding subqueries of its own, would lock only part of what it reads. */
    static java.util.Optional<PlanException> lockingNotApplicable(Select select) {
        String text = select.toString();
        if (!(select instanceof PlainSelect) || Guards.selectWords(text) != 1) {
            return java.util.Optional.of(PlanException.unsupported("a UNION or nested subqueries as a locking read (" + text + ")"));
        }
        return java.util.Optional.empty();
    }

    /**
     * {@code DELETE a FROM t a WHERE ...}: the multi-table syntax over one table, deleting from it. MariaDB
     * before 11.6 takes no alias in the single-table form, so Hibernate writes every JPQL bulk delete this
     * way; it deletes what {@code DELETE FROM t WHERE ...} deletes, and each partition gets it as written.
     * The multi-table form takes no ORDER BY or LIMIT (MariaDB's syntax error): those stay refused here.
     */
    private static boolean deletesItsOnlyTable(Delete delete) {
        if (delete.getTables().size() != 1 || delete.getUsingList() != null && !delete.getUsingList().isEmpty()) return false;
        if (delete.getLimit() != null || delete.getOrderByElements() != null) return false;
        Table from = delete.getTable();
        Table target = delete.getTables().getFirst();
        if (target.getSchemaName() != null) return false;
        String name = KeyFinder.unquote(target.getName());
        String fromName = from.getAlias() != null ? KeyFinder.unquote(from.getAlias().getName()) : KeyFinder.unquote(from.getName());
        return name.equalsIgnoreCase(fromName);
    }

    /**
     * {@code REPLACE [INTO] t [(cols)] VALUES ... | SET ... | SELECT ...}: planned as the INSERT of the same rows, sent
     * to the partitions as REPLACE, or as INSERT ... ON DUPLICATE KEY UPDATE where that is what one MariaDB's REPLACE
     * does ({@link Replaces}: where each runs as one MariaDB, and what is refused).
     */
    Plan replace(net.sf.jsqlparser.statement.upsert.Upsert upsert) throws PlanException {
        var type = upsert.getUpsertType();
        if (type != net.sf.jsqlparser.statement.upsert.UpsertType.REPLACE && type != net.sf.jsqlparser.statement.upsert.UpsertType.REPLACE_SET) {
            throw PlanException.unsupported(type + " statements (not MariaDB's SQL)");
        }
        if (upsert.getDuplicateUpdateSets() != null) {
            throw new PlanException("42000", 1064, "You have an error in your SQL syntax: REPLACE takes no ON DUPLICATE KEY UPDATE");
        }
        var insert = new Insert();
        insert.setTable(upsert.getTable());
        insert.setColumns(upsert.getColumns());
        insert.setSelect(upsert.getSelect());
        insert.withSetUpdateSets(upsert.getUpdateSets());
        return insert(insert, true);
    }

    Plan insert(Insert insert, boolean replace) throws PlanException {
        TableDef table = planner.dmlTable(insert.getTable());
        if (insert.getSetUpdateSets() != null && !insert.getSetUpdateSets().isEmpty()) setToValues(insert);
        // REPLACE: sent as written (null), or as the INSERT of its rows with this ON DUPLICATE KEY UPDATE (see Replaces)
        String duplicateUpdate = replace ? Replaces.duplicateUpdate(planner.catalog(), table) : null;
        if (!(insert.getSelect() instanceof Values values)) return insertSelect(insert, table, replace);
        String routing = table.partitioning().column();
        if (insert.getDuplicateUpdateSets() != null && routing != null) {
            for (UpdateSet set : insert.getDuplicateUpdateSets()) {
                for (Column c : set.getColumns()) {
                    if (KeyFinder.unquote(c.getColumnName()).equalsIgnoreCase(routing)) {
                        throw PlanException.unsupported("ON DUPLICATE KEY UPDATE of the routing column " + table.name() + "." + routing);
                    }
                }
            }
        }
        List<ExpressionList<?>> rows = rows(values.getExpressions());
        String original = insert.toString();
        requireNoSubquery(original, "INSERT ... VALUES");
        Guards.requireNoSessionState(original);
        InsertIds ids = InsertIds.prepare(table, insert, rows); // may add the AUTO_INCREMENT column and parameters for its ids
        int keyIndex = routing == null ? -1 : columnIndex(table, insert, routing); // -1: the row holds the column's default (RoutingDefault)
        for (var row : rows) {
            if (keyIndex < 0) break;
            if (row.size() <= keyIndex) {
                throw new PlanException("21S01", 1136, "Column count doesn't match value count in INSERT INTO " + table.name());
            }
            if (!(row.get(keyIndex) instanceof net.sf.jsqlparser.expression.JdbcParameter) && KeyFinder.valueRef((Expression) row.get(keyIndex)) == null) {
                throw PlanException.unsupported("computed values for the routing column " + table.name() + "." + routing
                        + " in INSERT (found " + row.get(keyIndex) + "); give a literal or a parameter");
            }
        }
        String full = insert.toString();
        values.setExpressions(new ParenthesedExpressionList<>(new Column(ROWS_MARKER)));
        String text = insert.toString();
        String marker = "(" + ROWS_MARKER + ")";
        int at = text.indexOf(marker);
        var items = rows.stream().map(r -> r instanceof ParenthesedExpressionList<?> ? r.toString() : "(" + r + ")").toList();
        String prefix = replace && duplicateUpdate == null ? "REPLACE" + text.substring(0, at).substring("INSERT".length()) : text.substring(0, at);
        var template = new SqlTemplate(prefix, items, ", ", text.substring(at + marker.length()) + (duplicateUpdate == null ? "" : duplicateUpdate));
        var keyPerRow = new ArrayList<ValueRef>();
        for (int r = 0; keyIndex >= 0 && r < rows.size(); r++) keyPerRow.add(InsertIds.position(rows.get(r), keyIndex, template.firstParamOf(r)));
        if (routing != null && keyIndex < 0) keyPerRow.addAll(java.util.Collections.nCopies(rows.size(), RoutingDefault.of(table, routing)));
        int clientParams = ParamCounter.count(full) - (ids == null ? 0 : ids.addedCount());
        var secondaries = new ArrayList<Plan.SecondaryValues>();
        for (var s : planner.catalog().secondariesOf(table.name())) {
            if (s.unique() && (insert.isModifierIgnore() || insert.getDuplicateUpdateSets() != null)) {
                throw PlanException.unsupported("INSERT IGNORE and ON DUPLICATE KEY UPDATE on " + table.name() + ", which has the UNIQUE secondary lookup "
                        + s.name() + " (a row the backend skips or updates would still claim its value)");
            }
            if (insert.getDuplicateUpdateSets() != null) {
                for (UpdateSet set : insert.getDuplicateUpdateSets()) {
                    for (Column c : set.getColumns()) {
                        if (s.indexes(KeyFinder.unquote(c.getColumnName()))) {
                            throw PlanException.unsupported("ON DUPLICATE KEY UPDATE of " + table.name() + "." + KeyFinder.unquote(c.getColumnName())
                                    + " (secondary lookup " + s.name() + ")");
                        }
                    }
                }
            }
            var perRow = new ArrayList<List<ValueRef>>();
            for (int r = 0; r < rows.size(); r++) perRow.add(new ArrayList<>());
            for (String name : s.columns()) {
                int column = columnIndex(table, insert, name);
                if (column < 0) {
                    throw PlanException.unsupported("INSERT INTO " + table.name() + " without " + name + ", a column of secondary lookup " + s.name()
                            + " (the router indexes the value each row gets: give it)");
                }
                for (int r = 0; r < rows.size(); r++) {
                    if (rows.get(r).size() <= column) throw new PlanException("21S01", 1136, "Column count doesn't match value count in INSERT INTO " + table.name());
                    Object v = rows.get(r).get(column);
                    if (!(v instanceof net.sf.jsqlparser.expression.JdbcParameter) && KeyFinder.valueRef((Expression) v) == null) {
                        throw PlanException.unsupported("computed values for " + table.name() + "." + name + " (secondary lookup " + s.name()
                                + ") in INSERT (found " + v + "); give a literal or a parameter");
                    }
                    perRow.get(r).add(InsertIds.position(rows.get(r), column, template.firstParamOf(r)));
                }
            }
            secondaries.add(new Plan.SecondaryValues(s, perRow));
        }
        var references = ForeignKeyPlanner.insert(planner.catalog(), planner.database(), table, insert, rows, template, replace, planner::executable);
        return new Plan.Insert(table, template, keyPerRow, clientParams, ids == null ? null : ids.fill(rows, template), secondaries, references);
    }

    /**
     * {@code INSERT [IGNORE] INTO t [(cols)] SELECT ...}: the SELECT planned as
     * a statement of its own (any SELECT the router answers), the rows inserted by the plans of the same
     * INSERT over VALUES rows of parameters, which route, place, number and index each row as any INSERT.
     */
    private Plan insertSelect(Insert insert, TableDef table, boolean replace) throws PlanException {
        if (insert.getWithItemsList() != null && !insert.getWithItemsList().isEmpty() || insert.getSelect() == null) {
            throw PlanException.unsupported("this form of INSERT ... SELECT (" + insert + ")");
        }
        var names = new ArrayList<String>();
        if (insert.getColumns() == null || insert.getColumns().isEmpty()) {
            for (var c : table.columns()) names.add(c.name());
        } else {
            for (Column c : insert.getColumns()) names.add(KeyFinder.unquote(c.getColumnName()));
        }
        String selectText = insert.getSelect().toString();
        if (ParamCounter.count(selectText) != ParamCounter.count(insert.toString())) {
            throw PlanException.unsupported("parameters outside the SELECT of an INSERT ... SELECT");
        }
        if (!(planner.plan(selectText) instanceof Plan.Query select)) {
            throw PlanException.unsupported("INSERT ... " + selectText + " (its SELECT is not a query the router reads rows with)");
        }
        String head = (replace ? "REPLACE" : "INSERT" + (insert.isModifierIgnore() ? " IGNORE" : "")) + " INTO `" + table.name().replace("`", "``") + "` ("
                + String.join(", ", names.stream().map(n -> "`" + n.replace("`", "``") + "`").toList()) + ") VALUES ";
        String row = "(" + String.join(", ", java.util.Collections.nCopies(names.size(), "?")) + ")";
        // its expressions may name the SELECT's columns, which the VALUES rows do not have: sent only where they do not
        String upsert = insert.getDuplicateUpdateSets() == null ? "" : InsertSelectUpsert.clause(planner.catalog(), table, insert);
        Plan.Batches batches = rows -> {
            if (!(planner.plan(head + String.join(", ", java.util.Collections.nCopies(rows, row)) + upsert) instanceof Plan.Insert one)) {
                throw PlanException.unsupported((replace ? "REPLACE" : "INSERT") + " ... SELECT into " + table.name());
            }
            return one;
        };
        batches.rows(1); // the refusals of INSERT ... VALUES into this table (no routing column, ...) when planned, not when run
        // the SELECT as a locking read, where the isolation level asks for one; where the router cannot read it so, the
        // statement is refused when it runs at such a level. A SELECT of no table reads no rows to lock.
        boolean readsRows = !(insert.getSelect() instanceof PlainSelect p) || p.getFromItem() != null;
        var locking = readsRows ? lockingSubquery(insert.getSelect()) : new Attempt.Planned<>(select);
        return switch (locking) {
            case Attempt.Planned<Plan.Query> read -> new Plan.InsertSelect(table, select, read.plan(), null, names.size(), batches, select.paramCount(), !upsert.isEmpty());
            case Attempt.NotApplicable<Plan.Query> n -> new Plan.InsertSelect(table, select, null, n.reason().getMessage(), names.size(), batches, select.paramCount(), !upsert.isEmpty());
        };
    }

    /**
     * {@code INSERT|REPLACE ... SET a = x, b = y} becomes {@code (a, b) VALUES (x, y)}, which MariaDB takes alike (a value
     * may name a column set before it in both forms); the statement is then planned and sent as VALUES.
     */
    private static void setToValues(Insert insert) throws PlanException {
        if (insert.getColumns() != null && !insert.getColumns().isEmpty() || insert.getSelect() != null) {
            throw new PlanException("42000", 1064, "You have an error in your SQL syntax: SET with a column list or VALUES");
        }
        var columns = new ExpressionList<Column>();
        var values = new ParenthesedExpressionList<Expression>();
        for (UpdateSet set : insert.getSetUpdateSets()) {
            if (set.getColumns().size() != set.getValues().size()) {
                throw new PlanException("42000", 1064, "You have an error in your SQL syntax near '" + set + "'");
            }
            columns.addAll(set.getColumns());
            for (Object v : set.getValues()) values.add((Expression) v);
        }
        insert.setColumns(columns);
        // a list of one parenthesized row: a lone value in parentheses (SET k = (5)) is then not taken for a row
        var oneRow = new ExpressionList<Expression>();
        oneRow.add(values);
        insert.setSelect(new Values(oneRow));
        insert.withSetUpdateSets(null);
    }

    /**
     * A write holding a subquery is refused naming it: run per partition it would read only that partition's
     * rows, and run first it would need the subquery's rows bound into the write (not done yet).
     */
    private static void requireNoSubquery(String sql, String statement) throws PlanException {
        if (Guards.selectWords(sql) > 0) {
            throw PlanException.unsupported("subqueries inside " + statement + " yet (in SET, WHERE or VALUES): run the SELECT first and"
                    + " bind its values" + (statement.startsWith("INSERT") ? ", or use INSERT ... SELECT" : ""));
        }
    }

    private static List<ExpressionList<?>> rows(ExpressionList<?> expressions) throws PlanException {
        var rows = new ArrayList<ExpressionList<?>>();
        if (!expressions.isEmpty() && expressions.getFirst() instanceof ParenthesedExpressionList<?>) {
            for (Object row : expressions) {
                // the parser takes `VALUES (1), x (2)` for a row and a call of x: MySQL's syntax error, not a function call
                if (!(row instanceof ParenthesedExpressionList<?> list)) {
                    throw new PlanException("42000", 1064, "You have an error in your SQL syntax near '" + row + "': each VALUES row is a parenthesized list");
                }
                rows.add(list);
            }
        } else {
            rows.add(expressions);
        }
        return rows;
    }

    /** The position of {@code column} in the INSERT's rows, or -1 when the INSERT does not give it. */
    private static int columnIndex(TableDef table, Insert insert, String column) {
        var columns = insert.getColumns();
        if (columns == null || columns.isEmpty()) {
            for (int i = 0; i < table.columns().size(); i++) {
                if (table.columns().get(i).name().equalsIgnoreCase(column)) return i;
            }
        } else {
            for (int i = 0; i < columns.size(); i++) {
                if (KeyFinder.unquote(columns.get(i).getColumnName()).equalsIgnoreCase(column)) return i;
            }
        }
        return -1;
    }
}
