package org.lutra.plan;

import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.WithItem;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.TableDef;
import org.lutra.exec.Materialize;
import org.lutra.exec.Plan;
import org.lutra.sql.Guards;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;
import org.lutra.sql.TableFinder;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The paper's default plan, for a SELECT of any shape over several partitions: every table the
 * statement names is read once through the router's own plan — its rows, with the WHERE
 * conditions on it alone where it is named once at the top of the statement — and copied into a
 * temporary table made from its own definition ({@link TemporaryCopy}) on one partition's
 * scratch connection; the statement, each table renamed to its copy and nothing else changed,
 * then runs there ({@link Materialize}). MySQL evaluates all of it: correlated subqueries, joins
 * of any shape, window functions, set operations, derived tables, CTEs.
 *
 * <p>Why the answer is one MySQL's: each copy holds the rows of its table (or all rows the
 * statement's conditions on that table can keep) with the table's own column types, so every
 * comparison, conversion and collation is the table's; each table's rows are read as any read
 * of it is (routed, validated, fenced against moves, replicated keys once, inside the client's
 * transaction in its snapshots); the statement runs with the session's variables (the scratch
 * connection carries them). A table named several times is read once and copied on the
 * partition for each further use.
 *
 * <p>Refused: locking reads (the copies would lock nothing), session-scoped functions, tables
 * whose definition makes no temporary table ({@link TemporaryCopy}), and past
 * {@link Materialize#MAX_ROWS} rows copied, at run time.
 */
final class Fallback {
    /** Evaluated once in a table's read and again in the statement, the clock could answer differently: not pushed down. */
    private static final Pattern CLOCK = Pattern.compile("(?i)\\b(NOW|CURDATE|CURTIME|CURRENT_DATE|CURRENT_TIME|CURRENT_TIMESTAMP|LOCALTIME"
            + "|LOCALTIMESTAMP|UTC_DATE|UTC_TIME|UTC_TIMESTAMP|UNIX_TIMESTAMP|SYSDATE)\\b");

    private Fallback() {}

    /**
     * What the statement reads, found before anything is planned: its own tree (parsed again from the text, numbered), the
     * tables it names (CTE references apart), and each table of the catalog it copies with its uses in order and its copy.
     */
    private record Reads(Select select, Finder found, Map<String, List<Table>> uses, Map<String, TableDef> defs, Map<String, TemporaryCopy> copies) {}

    /**
     * Why the statement cannot run over copies of its tables, asked before it is planned so: a refusal, or an error of the
     * statement (an unknown table); empty where it can. {@link #plan} gives the same reason as its refusal.
     */
    static java.util.Optional<PlanException> notApplicable(String text, Catalog catalog, String database) {
        return reads(text, catalog, database) instanceof Attempt.NotApplicable<Reads> n ? java.util.Optional.of(n.reason()) : java.util.Optional.empty();
    }

    private static Attempt<Reads> reads(String text, Catalog catalog, String database) {
        if (Guards.lockingRead(text)) {
            return Attempt.notApplicable(PlanException.unsupported("locking reads (FOR UPDATE, LOCK IN SHARE MODE) of tables that must be copied into"
                    + " temporary tables yet (the copies would lock nothing)"));
        }
        var sessionState = Guards.sessionState(text);
        if (sessionState.isPresent()) return Attempt.notApplicable(sessionState.get());
        Select select = NumberedText.parsedAgain(NumberedText.numbered(text)).orElse(null);
        if (select == null) return Attempt.notApplicable(PlanException.unsupported("this statement's shape over several partitions yet"));
        if (select instanceof PlainSelect p && p.getIntoTables() != null) return Attempt.notApplicable(PlanException.unsupported("SELECT ... INTO over several partitions"));
        var found = new Finder();
        try {
            found.getTables((net.sf.jsqlparser.statement.Statement) select);
        } catch (RuntimeException e) { // JSQLParser's finder meets a node it does not visit
            return Attempt.notApplicable(PlanException.unsupported("this statement's shape over several partitions yet (" + e.getMessage() + ")"));
        }
        // each table of the catalog the statement names, with its uses in order
        var uses = new LinkedHashMap<String, List<Table>>();
        var defs = new LinkedHashMap<String, TableDef>();
        for (Table t : found.tables) {
            String name = KeyFinder.unquote(t.getName());
            if (found.cteReferences.contains(t)) continue; // a CTE: its body's tables are copied
            if (t.getSchemaName() != null && !KeyFinder.unquote(t.getSchemaName()).equalsIgnoreCase(database)) {
                return Attempt.notApplicable(PlanException.unsupported("tables outside the logical database (" + t + ") over several partitions"));
            }
            TableDef def = catalog.table(name);
            if (def == null) return Attempt.notApplicable(new PlanException("42S02", 1146, "Table '" + database + "." + name + "' doesn't exist"));
            if (org.lutra.catalog.Sequences.is(def)) {
                return Attempt.notApplicable(PlanException.unsupported("reading sequence " + def.name() + " as a table over several partitions"));
            }
            String key = def.name().toLowerCase(Locale.ROOT);
            defs.put(key, def);
            uses.computeIfAbsent(key, k -> new ArrayList<>()).add(t);
        }
        if (uses.isEmpty()) return Attempt.notApplicable(PlanException.unsupported("this statement over several partitions yet (it names no table to copy)"));
        var copies = new LinkedHashMap<String, TemporaryCopy>();
        for (var e : defs.entrySet()) {
            switch (TemporaryCopy.attempt(e.getValue())) {
                case Attempt.Planned<TemporaryCopy> copy -> copies.put(e.getKey(), copy.plan());
                case Attempt.NotApplicable<TemporaryCopy> n -> {
                    return Attempt.notApplicable(n.reason());
                }
            }
        }
        return new Attempt.Planned<>(new Reads(select, found, uses, defs, copies));
    }

    /**
     * The statement's plan over copies of its tables, with its estimated cost; or why not: {@link #notApplicable}'s reason,
     * or the reason {@code inner} gives for a table's read.
     */
    static Attempt<Costs.Candidate> plan(String text, Catalog catalog, String database, SubqueryPlanner.InnerAttempt inner) throws PlanException {
        var readsFound = reads(text, catalog, database);
        if (!(readsFound instanceof Attempt.Planned<Reads>(var reads))) return readsFound.passUp();
        int params = ParamCounter.count(text);
        Select select = reads.select();
        Finder found = reads.found();
        var uses = reads.uses();
        var defs = reads.defs();
        var pushed = pushable(select, catalog, found.cteReferences);
        keepLabels(select);
        var derived = new ArrayList<Materialize.Derived>();
        var shownAs = new java.util.HashMap<String, String>();
        var rows = new ArrayList<Double>();
        int copies = 0;
        int j = 0;
        for (var e : uses.entrySet()) {
            TableDef def = defs.get(e.getKey());
            List<Table> tables = e.getValue();
            TemporaryCopy copy = reads.copies().get(e.getKey());
            Table first = tables.getFirst();
            List<Expression> own = tables.size() == 1 ? pushed.getOrDefault(first, List.of()) : List.of();
            // called as the conditions call it; else by its name alone (a scan of a group with replicated keys takes no alias)
            String as = first.getAlias() != null ? first.getAlias().getName() : first.getName();
            boolean named = own.isEmpty() || KeyFinder.unquote(as).equals(def.name());
            String read = "SELECT " + copy.columnList() + " FROM " + TemporaryCopy.quote(def.name()) + (named ? "" : " AS " + as)
                    + (own.isEmpty() ? "" : " WHERE " + DerivedTables.and(own));
            var piece = NumberedText.cut(read);
            Select clean = NumberedText.parse(piece.sql());
            var copyRead = inner.plan(clean);
            if (!(copyRead instanceof Attempt.Planned<Plan.Query>(var plan))) return copyRead.passUp();
            rows.add(estimatedRows(def, clean));
            String name = "lutra_copy_" + j++;
            var more = new ArrayList<String>();
            for (int k = 1; k < tables.size(); k++) more.add(name + "_" + k);
            copies += more.size();
            derived.add(new Materialize.Derived(plan.root(), piece.sql(), piece.params(), name, copy.definition(name), copy.columnList(), more));
            for (int k = 0; k < tables.size(); k++) rename(tables.get(k), k == 0 ? name : more.get(k - 1));
            shownAs.put(name, def.name());
            for (String m : more) shownAs.put(m, def.name());
        }
        var outer = NumberedText.cut(select.toString());
        var sessionState = Guards.sessionState(outer.sql());
        if (sessionState.isPresent()) return Attempt.notApplicable(sessionState.get());
        int partition = defs.values().iterator().next().partitioning().partitions()[0];
        var plan = new Plan.Query(new Materialize(partition, derived, outer.sql(), outer.params(), shownAs), params);
        return Attempt.planned(new Costs.Candidate("copies of its tables", plan, Costs.copied(rows, copies)));
    }

    /**
     * MySQL labels an unaliased select item by its text ({@link Labels} pinned those the printed statement would not
     * spell alike): an item holding a subquery would spell the copies' names once its tables are renamed, so it keeps
     * its text as its alias. The labels are the first SELECT's (of a UNION, its first branch's).
     */
    private static void keepLabels(Select select) {
        Select first = select;
        while (true) {
            if (first instanceof net.sf.jsqlparser.statement.select.SetOperationList list && !list.getSelects().isEmpty()) first = list.getSelects().getFirst();
            else if (first instanceof net.sf.jsqlparser.statement.select.ParenthesedSelect p) first = p.getSelect();
            else break;
        }
        if (!(first instanceof PlainSelect p)) return;
        for (var item : p.getSelectItems()) {
            if (item.getAlias() != null || !(item.getExpression() instanceof Expression e)) continue;
            String text = e.toString().replaceAll("\\?\\d+", "?"); // the client's '?', numbered for cutting
            if (Guards.selectWords(text) == 0 || text.length() > 256) continue;
            item.setAlias(new Alias("`" + text.replace("`", "``") + "`", true));
        }
    }

    /** {@code t} as its copy {@code name}, called by the name the statement gives it. */
    private static void rename(Table t, String name) {
        if (t.getAlias() == null) t.setAlias(new Alias(t.getName(), true));
        t.setSchemaName(null);
        t.setName(TemporaryCopy.quote(name));
    }

    private static double estimatedRows(TableDef def, Select read) {
        if (!(read instanceof PlainSelect p) || def.partitioning().column() == null) return Costs.TABLE_ROWS;
        String alias = p.getFromItem().getAlias() == null ? null : KeyFinder.unquote(p.getFromItem().getAlias().getName());
        // (read by its name alone, the table answers to it)
        return Costs.rows(def, new KeyFinder(def.partitioning().column(), def.name(), alias).find(p.getWhere(), p));
    }

    /**
     * For each table of the statement's top FROM clause whose rows only its WHERE clause filters (not the nullable side
     * of an outer join; none at all beside RIGHT, FULL or NATURAL joins), the WHERE conditions that read it alone and
     * may be evaluated twice: they go down into its read, and the statement applies them again.
     */
    private static Map<Table, List<Expression>> pushable(Select select, Catalog catalog, Set<Table> cteReferences) {
        Map<Table, List<Expression>> out = new IdentityHashMap<>();
        if (!(select instanceof PlainSelect top) || top.getWhere() == null || top.getFromItem() == null) return out;
        List<FromItem> items = new ArrayList<>();
        items.add(top.getFromItem());
        var nullable = new HashSet<Integer>();
        if (top.getJoins() != null) {
            for (Join j : top.getJoins()) {
                if (j.isRight() || j.isFull() || j.isNatural()) return out;
                items.add(j.getRightItem());
                if (j.isLeft()) nullable.add(items.size() - 1);
            }
        }
        var columns = new LinkedHashMap<String, Set<String>>();
        for (FromItem item : items) {
            String alias = aliasOf(item).toLowerCase(Locale.ROOT);
            TableDef def = item instanceof Table t && t.getSchemaName() == null && !cteReferences.contains(t)
                    ? catalog.table(KeyFinder.unquote(t.getName())) : null;
            if (def == null) {
                columns.put(alias, null);
                continue;
            }
            var names = new HashSet<String>();
            for (var c : def.columns()) names.add(c.name().toLowerCase(Locale.ROOT));
            columns.put(alias, names);
        }
        List<Expression> conditions = DerivedTables.conjuncts(top.getWhere());
        for (int i = 0; i < items.size(); i++) {
            if (!(items.get(i) instanceof Table t) || nullable.contains(i)) continue;
            String as = aliasOf(t);
            var own = conditions.stream()
                    .filter(c -> !CLOCK.matcher(Guards.stripQuoted(c.toString())).find() && DerivedTables.readsOnly(c, as, columns)).toList();
            if (!own.isEmpty()) out.put(t, own);
        }
        return out;
    }

    private static String aliasOf(FromItem item) {
        if (item.getAlias() != null) return KeyFinder.unquote(item.getAlias().getName());
        return item instanceof Table t ? KeyFinder.unquote(t.getName()) : "";
    }

    /**
     * Every table node of a statement, in the order met (each node once), and those that name a CTE rather than a table.
     * A name means a CTE where that CTE is in scope, as MariaDB resolves it: in the query its WITH clause belongs to
     * (subqueries included) and in the later CTEs of that clause, in its own body only under WITH RECURSIVE. Elsewhere,
     * in particular in the body of a CTE that takes a table's name ({@code WITH t AS (SELECT ... FROM t)}), the name is
     * the table's.
     */
    private static final class Finder extends TableFinder {
        final List<Table> tables = new ArrayList<>();
        final Set<Table> cteReferences = Collections.newSetFromMap(new IdentityHashMap<>());
        private final Set<Table> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        /** The CTE names in scope where the visit is, lower case. */
        private Set<String> inScope = new HashSet<>();

        @Override
        public <S> Void visit(Table table, S context) {
            if (!seen.add(table)) return super.visit(table, context);
            tables.add(table);
            if (table.getSchemaName() == null && inScope.contains(KeyFinder.unquote(table.getName()).toLowerCase(Locale.ROOT))) {
                cteReferences.add(table);
            }
            return super.visit(table, context);
        }

        @Override
        public <S> Void visit(WithItem<?> with, S context) {
            String name = KeyFinder.unquote(with.getAlias().getName()).toLowerCase(Locale.ROOT);
            if (with.isRecursive()) inScope.add(name);
            super.visit(with, context);
            inScope.add(name); // for the later CTEs of its clause and the query; the enclosing query's visit ends the scope
            return null;
        }

        @Override
        public <S> Void visit(PlainSelect select, S context) {
            return inOwnScope(() -> super.visit(select, context));
        }

        @Override
        public <S> Void visit(net.sf.jsqlparser.statement.select.SetOperationList list, S context) {
            return inOwnScope(() -> super.visit(list, context));
        }

        @Override
        public <S> Void visit(net.sf.jsqlparser.statement.select.ParenthesedSelect select, S context) {
            return inOwnScope(() -> super.visit(select, context));
        }

        /** Visits a query: the CTEs its WITH clause defines are in scope until its visit ends. */
        private Void inOwnScope(java.util.function.Supplier<Void> visit) {
            var outer = new HashSet<>(inScope);
            try {
                return visit.get();
            } finally {
                inScope = outer;
            }
        }
    }
}
