package org.lutra.exec;

import org.lutra.backend.Connections;
import org.lutra.backend.ValueCodec;
import org.lutra.catalog.ForeignKey;
import org.lutra.catalog.TableDef;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;

/**
 * An UPDATE or DELETE that meets a foreign key the router enforces (docs/foreign-keys.md), in one transaction, with the
 * shards' checks off for it (a shard would look on its own partition only), so the router does the part of every key
 * the statement meets:
 * <ol>
 *   <li>child side (an UPDATE that sets a key's columns): the new parent must exist, as for an INSERT
 *       ({@link ForeignKeyChecks}); where it does not, the statement fails with 1452 if it would change a row;
 *   <li>parent side (a DELETE of rows that keys reference, an UPDATE of the columns they reference): the rows' keys are read
 *       and locked ({@code FOR UPDATE}); RESTRICT and NO ACTION fail the statement with 1451 where a child row references
 *       one; CASCADE and SET NULL are planned as statements of the router's own, each with its own foreign keys;
 *   <li>the write itself, then the cascades (to a depth of 15, InnoDB's), as InnoDB deletes or changes a parent row before
 *       its children: a cascade that comes back to rows the write deleted finds them gone.
 * </ol>
 * Everything that can refuse or fail the statement before it writes does so first; an error in a cascade after the write
 * fails the statement's transaction ({@link Connections#broken}). The counts are the write's own, as MariaDB's (rows a
 * cascade changes are not counted).
 */
final class ReferentialWrite {
    /** InnoDB's limit on nested cascades (FK_MAX_CASCADE_DEL). */
    static final int MAX_CASCADE_DEPTH = 15;
    private static final int CHUNK = 200;

    private ReferentialWrite() {}

    static Result.Count run(Plan.Routed plan, Context ctx) throws SQLException {
        Executor executor = ctx.services().executor();
        List<Value> params = ctx.params();
        Connections c = ctx.connections();
        var refs = plan.references();
        var write = plan.withoutReferences();
        if (ForeignKeyChecks.offInSession(c)) return write.run(ctx);
        if (c.cascades() > MAX_CASCADE_DEPTH) {
            throw Refusal.of("foreign key cascades deeper than " + MAX_CASCADE_DEPTH + " (InnoDB's limit) from " + plan.table().name());
        }
        TableDef table = plan.table();
        for (var child : refs.children()) ForeignKeyChecks.requireMariaDb(executor, child.fk());
        for (var fk : refs.parents()) ForeignKeyChecks.requireMariaDb(executor, fk);
        c.atomic(); // the rows read and locked below, the write and its cascades commit together
        for (var child : refs.children()) checkChild(executor, refs, table, child, params, c);
        var actions = new ArrayList<Plan>();
        var actionParams = new ArrayList<List<Value>>();
        if (!refs.parents().isEmpty()) {
            var texts = new ArrayList<String>();
            parentSide(executor, refs, table, params, c, texts, actionParams);
            for (String text : texts) {
                try {
                    actions.add(refs.statements().plan(text)); // planned before the write: what is refused is refused before anything is written
                } catch (SQLException refused) {
                    throw new SQLException(refused.getMessage() + " (the cascade of a foreign key of " + table.name() + ": " + text + ")",
                            refused.getSQLState(), refused.getErrorCode(), refused);
                }
            }
        }
        Result.Count result = write.run(ctx.over(ForeignKeyChecks.checksOff(c)));
        Connections cascading = new Connections.Forwarding(c) {
            @Override
            public int cascades() {
                return inner.cascades() + 1;
            }
        };
        try {
            for (int i = 0; i < actions.size(); i++) executor.execute(actions.get(i), actionParams.get(i), cascading);
        } catch (SQLException | RuntimeException e) {
            SQLException failure = e instanceof SQLException s ? s : new SQLException("internal error in a foreign key's cascade", "HY000", 0, e);
            c.broken(failure); // the write is done: nothing of the statement may stay
            throw failure;
        }
        return result;
    }

    /** An UPDATE's new values of a key's columns: their parent must exist, unless no row it matches would change. */
    private static void checkChild(Executor executor, Plan.WriteReferences refs, TableDef table, Plan.ChildValues child, List<Value> params,
                                   Connections c) throws SQLException {
        ForeignKey fk = child.fk();
        ForeignKeyChecks.requireMariaDb(executor, fk);
        var tuple = ForeignKeyChecks.stored(table, fk.columns(), child.perRow().getFirst(), params);
        if (tuple == null) return; // set to NULL: nothing to check
        TableDef parent = executor.catalog().table(fk.parent());
        if (ForeignKeyChecks.exist(executor, parent, fk, List.of(tuple.values()), refs.statements(), c).get(tuple.values())) return;
        // MariaDB checks only the rows the UPDATE changes: does it match one whose key is not that value already?
        if (!refs.orderLimit().isEmpty()) {
            throw Refusal.of("an UPDATE with ORDER BY or LIMIT of " + table.name() + " that sets foreign key " + fk.name() + " to a parent row that"
                    + " does not exist (the router enforces it: which rows the UPDATE would change could not be told)");
        }
        var same = String.join(" AND ", fk.columns().stream().map(col -> ForeignKeyChecks.quote(col) + " <=> ?").toList());
        String sql = "SELECT 1 FROM " + refs.from() + " WHERE " + (refs.where() == null ? "" : "(" + refs.where() + ") AND ") + "NOT (" + same
                + ") LIMIT 1 FOR UPDATE";
        var probeParams = new ArrayList<>(params.subList(refs.whereParam(), params.size()));
        probeParams.addAll(ForeignKeyChecks.values(tuple.values()));
        if (ForeignKeyChecks.rows(executor, refs.statements(), sql, probeParams, c).isEmpty()) return;
        if (refs.ignore()) {
            throw Refusal.of("UPDATE IGNORE of " + table.name() + " that sets foreign key " + fk.name() + " to a parent row that does not exist"
                    + " (the router enforces it; leave IGNORE out to get MariaDB's error)");
        }
        if (tuple.refusedWhenStrict() && ForeignKeyChecks.strict(executor, c)) return; // the partitions raise strict mode's error first
        throw new SQLException(fk.childFails(refs.database()), "23000", 1452);
    }

    /** Reads the keys of the rows the write deletes or changes, applies RESTRICT, and lists the cascades' statements. */
    private static void parentSide(Executor executor, Plan.WriteReferences refs, TableDef table, List<Value> params, Connections c,
                                   List<String> actions, List<List<Value>> actionParams) throws SQLException {
        var columns = new LinkedHashSet<String>();
        for (ForeignKey fk : refs.parents()) {
            columns.addAll(fk.referenced());
            if (fk.selfReferencing()) columns.addAll(fk.columns());
        }
        var names = List.copyOf(columns);
        String sql = "SELECT " + ForeignKeyChecks.columns(names) + " FROM " + refs.from() + (refs.where() == null ? "" : " WHERE " + refs.where())
                + refs.orderLimit() + " FOR UPDATE";
        var rows = ForeignKeyChecks.rows(executor, refs.statements(), sql, params.subList(refs.whereParam(), params.size()), c);
        if (rows.isEmpty()) return;
        for (ForeignKey fk : refs.parents()) {
            ForeignKey.Action action = refs.delete() ? fk.onDelete() : fk.onUpdate();
            var old = new LinkedHashSet<List<Object>>();
            var changed = new ArrayList<List<Object>>(); // per old key: its new key, null where the SET computes it
            var pairs = new ArrayList<List<List<Object>>>(); // a self-referencing key: each row's key and what the row references
            for (var row : rows) {
                var key = values(row, names, fk.referenced());
                if (fk.selfReferencing()) pairs.add(List.of(key, values(row, names, fk.columns())));
                if (key.contains(null)) continue; // no child references NULL
                var next = refs.delete() ? null : newKey(table, fk, key, refs, params);
                if (!refs.delete() && next != null && next.equals(key)) continue; // unchanged: InnoDB checks nothing
                if (old.add(key)) changed.add(next);
            }
            if (old.isEmpty()) continue;
            var keys = List.copyOf(old);
            boolean unknown = !refs.delete() && changed.contains(null);
            String what = (refs.delete() ? "DELETE" : "UPDATE") + (refs.ignore() ? " IGNORE" : "") + " of " + table.name() + " rows that rows of "
                    + fk.child() + " reference through foreign key " + fk.name() + ", which the router enforces";
            if (fk.selfReferencing() && action == ForeignKey.Action.CASCADE && refs.delete() && insideTheSet(keys, pairs)) {
                // MariaDB deletes a row, then its children: one the DELETE also names is not counted if a cascade got to it first
                throw Refusal.of(what + " (rows it deletes reference each other: MariaDB's count depends on the order it visits them)");
            }
            boolean selfUpdate = fk.selfReferencing() && !refs.delete();
            if (action.restricts() || unknown || selfUpdate) {
                if (!anyChild(executor, refs, fk, keys, c)) continue; // nothing references them: nothing to refuse or to change
                if (unknown) throw Refusal.of(what + " (the new value is computed: set a literal or a parameter)");
                if (selfUpdate || action.restricts() && fk.selfReferencing() && keys.size() > 1) {
                    throw Refusal.of(what + " (rows of one table referencing each other: MariaDB's answer depends on the order it visits them)");
                }
                if (action.restricts() && refs.ignore()) throw Refusal.of(what + " (which rows IGNORE would skip could not be told)");
                if (action.restricts()) throw new SQLException(fk.parentFails(refs.database()), "23000", 1451);
            }
            cascade(fk, action, keys, changed, refs.delete(), actions, actionParams);
        }
    }

    /** The values of {@code wanted} in a row of {@code names}' columns, in the form tuples compare in. */
    private static List<Object> values(List<Object> row, List<String> names, List<String> wanted) {
        var out = new ArrayList<Object>();
        for (String col : wanted) {
            Object v = row.get(names.indexOf(col));
            out.add(v == null ? null : ForeignKeyChecks.normal(v));
        }
        return out;
    }

    /** Whether a row of the set references another row of it (a row referencing itself does not count: it is its own child). */
    private static boolean insideTheSet(List<List<Object>> keys, List<List<List<Object>>> pairs) {
        var set = new java.util.HashSet<>(keys);
        for (var pair : pairs) {
            var references = pair.get(1);
            if (!references.contains(null) && set.contains(references) && !references.equals(pair.get(0))) return true;
        }
        return false;
    }

    /** The new key of a row whose old key is {@code key}: the SET's values where it sets the key's columns; null where computed. */
    private static List<Object> newKey(TableDef table, ForeignKey fk, List<Object> key, Plan.WriteReferences refs, List<Value> params)
            throws SQLException {
        var out = new ArrayList<Object>();
        for (int i = 0; i < fk.referenced().size(); i++) {
            String col = fk.referenced().get(i).toLowerCase(Locale.ROOT);
            if (!refs.assigned().contains(col)) {
                out.add(ForeignKeyChecks.normal(key.get(i)));
                continue;
            }
            var ref = refs.newValues().get(col);
            if (ref == null) return null;
            Object raw = ref.resolve(params, ValueCodec::decode);
            var stored = raw == null ? null : table.stored(fk.referenced().get(i), raw);
            if (raw != null && stored == null) return null;
            out.add(raw == null ? null : stored.value() == null ? null : ForeignKeyChecks.normal(stored.value()));
        }
        return out;
    }

    /** Whether a row of {@code fk}'s child references one of {@code keys} (read in share mode, as InnoDB's check locks it). */
    private static boolean anyChild(Executor executor, Plan.WriteReferences refs, ForeignKey fk, List<List<Object>> keys, Connections c)
            throws SQLException {
        TableDef child = executor.catalog().table(fk.child());
        for (int from = 0; from < keys.size(); from += CHUNK) {
            var chunk = keys.subList(from, Math.min(keys.size(), from + CHUNK));
            String sql = "SELECT 1 FROM " + ForeignKeyChecks.quote(child.name()) + " WHERE "
                    + ForeignKeyChecks.in(fk.columns(), chunk.size(), child.partitioning().column()) + " LIMIT 1 LOCK IN SHARE MODE";
            if (!ForeignKeyChecks.rows(executor, refs.statements(), sql, ForeignKeyChecks.inParams(fk.columns(), chunk, child.partitioning().column()), c)
                    .isEmpty()) return true;
        }
        return false;
    }

    /** The statements CASCADE and SET NULL ask of {@code fk}'s child rows of {@code keys} ({@code next}: each key's new value, UPDATE). */
    private static void cascade(ForeignKey fk, ForeignKey.Action action, List<List<Object>> keys, List<List<Object>> next, boolean delete,
                                List<String> actions, List<List<Value>> actionParams) throws SQLException {
        if (action.restricts()) return;
        String child = ForeignKeyChecks.quote(fk.child());
        if (action == ForeignKey.Action.SET_DEFAULT) throw Refusal.of("ON " + (delete ? "DELETE" : "UPDATE") + " SET DEFAULT (InnoDB refuses it)");
        if (action == ForeignKey.Action.CASCADE && !delete) {
            String set = String.join(", ", fk.columns().stream().map(col -> ForeignKeyChecks.quote(col) + " = ?").toList());
            for (int i = 0; i < keys.size(); i++) {
                actions.add("UPDATE " + child + " SET " + set + " WHERE " + ForeignKeyChecks.equalities(fk.columns()));
                var p = new ArrayList<Value>();
                for (Object v : next.get(i)) p.add(v == null ? Value.newBuilder().setIsNull(true).build() : ForeignKeyChecks.value(v));
                p.addAll(ForeignKeyChecks.values(keys.get(i)));
                actionParams.add(p);
            }
            return;
        }
        for (int from = 0; from < keys.size(); from += CHUNK) {
            var chunk = keys.subList(from, Math.min(keys.size(), from + CHUNK));
            String where = ForeignKeyChecks.in(fk.columns(), chunk.size(), null);
            if (action == ForeignKey.Action.CASCADE) {
                actions.add("DELETE FROM " + child + " WHERE " + where);
            } else {
                actions.add("UPDATE " + child + " SET " + String.join(", ", fk.columns().stream().map(col -> ForeignKeyChecks.quote(col) + " = NULL").toList())
                        + " WHERE " + where);
            }
            actionParams.add(ForeignKeyChecks.inParams(fk.columns(), chunk, null));
        }
    }
}
