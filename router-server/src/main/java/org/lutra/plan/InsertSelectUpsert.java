package org.lutra.plan;

import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.update.UpdateSet;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.TableDef;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The {@code ON DUPLICATE KEY UPDATE} of an {@code INSERT ... SELECT}, sent after the VALUES rows the
 * selected rows become: only where every name in it means there what it means in one MariaDB's
 * {@code INSERT ... SELECT}.
 *
 * <p>MariaDB 11.4 resolves the clause's column names (sql_insert.cc, {@code mysql_insert_select_prepare}'s
 * callers; checked against a server): in the target table and in the tables of the SELECT's FROM
 * (derived tables too, not the select list's aliases), so a name both have is error 1052 (ambiguous) and
 * {@code t.c} is ambiguous when the SELECT reads {@code t} unaliased; with GROUP BY (or an aggregate) only
 * in the target table. {@code VALUES(c)} names the target's column in either case. The VALUES form
 * resolves every name in the target table alone. So it is sent only when each name is a target column
 * that no table of the SELECT's FROM could also answer, or the SELECT has GROUP BY, or is inside
 * {@code VALUES()}/{@code VALUE()}; everything else is refused, naming the column.
 */
final class InsertSelectUpsert {
    private InsertSelectUpsert() {}

    /** The clause as sent after the VALUES rows ({@code " ON DUPLICATE KEY UPDATE ..."}), or refuses it. */
    static String clause(Catalog catalog, TableDef target, Insert insert) throws PlanException {
        var sources = new Sources(catalog);
        sources.add(insert.getSelect());
        Set<String> own = target.columns().stream().map(c -> c.name().toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
        var problems = new ArrayList<String>();
        for (UpdateSet set : insert.getDuplicateUpdateSets()) {
            for (Object value : set.getValues()) {
                ((net.sf.jsqlparser.expression.Expression) value).accept(new Names(target, own, sources, problems), null);
            }
        }
        if (!problems.isEmpty()) {
            throw PlanException.unsupported("INSERT ... SELECT ... ON DUPLICATE KEY UPDATE naming " + problems.getFirst()
                    + " (the router sends the selected rows as VALUES rows, where the clause sees only " + target.name()
                    + "'s columns; name them unqualified where the SELECT's tables have no column of that name, as "
                    + target.name() + ".col where the SELECT does not read " + target.name() + " unaliased, or as VALUES(col))");
        }
        var text = new StringBuilder(" ON DUPLICATE KEY UPDATE ");
        UpdateSet.appendUpdateSetsTo(text, insert.getDuplicateUpdateSets());
        return text.toString();
    }

    /** The tables of the SELECT's FROM (every branch of a UNION), as far as the catalog knows their columns. */
    private static final class Sources {
        private final Catalog catalog;
        final Set<String> names = new java.util.HashSet<>(); // table names and aliases, lower case
        final Set<String> columns = new java.util.HashSet<>();
        boolean unknown; // a derived table, a CTE, a table function: columns the router does not list here
        boolean groupedOnly = true; // every branch a GROUP BY: MariaDB resolves in the target table alone

        Sources(Catalog catalog) {
            this.catalog = catalog;
        }

        void add(Select select) {
            if (select.getWithItemsList() != null && !select.getWithItemsList().isEmpty()) unknown = true;
            switch (select) {
                case ParenthesedSelect p -> add(p.getSelect());
                case SetOperationList union -> {
                    groupedOnly = false; // which branch MariaDB resolves in is not this class's business: all of them count
                    for (Select s : union.getSelects()) add(s);
                }
                case PlainSelect plain -> {
                    if (plain.getGroupBy() == null || plain.getGroupBy().getGroupByExpressionList() == null
                            || plain.getGroupBy().getGroupByExpressionList().isEmpty()) groupedOnly = false;
                    if (plain.getFromItem() != null) from(plain.getFromItem());
                    if (plain.getJoins() != null) {
                        for (Join j : plain.getJoins()) from(j.getRightItem());
                    }
                }
                default -> {
                    unknown = true;
                    groupedOnly = false;
                }
            }
        }

        private void from(FromItem item) {
            if (item.getAlias() != null) names.add(KeyFinder.unquote(item.getAlias().getName()).toLowerCase(Locale.ROOT));
            TableDef known = item instanceof Table t && t.getSchemaName() == null ? catalog.table(KeyFinder.unquote(t.getName())) : null;
            // an aliased table answers only to its alias (INSERT INTO t SELECT ... FROM t x ... t.b: the target's b, checked)
            if (item instanceof Table t && item.getAlias() == null) names.add(KeyFinder.unquote(t.getName()).toLowerCase(Locale.ROOT));
            if (known == null) {
                unknown = true;
                return;
            }
            for (var c : known.columns()) columns.add(c.name().toLowerCase(Locale.ROOT));
        }
    }

    /** Collects the names of the clause that would not mean the target's column in the VALUES form. */
    private static final class Names extends ExpressionVisitorAdapter<Void> {
        private final TableDef target;
        private final Set<String> own;
        private final Sources sources;
        private final List<String> problems;

        Names(TableDef target, Set<String> own, Sources sources, List<String> problems) {
            this.target = target;
            this.own = own;
            this.sources = sources;
            this.problems = problems;
        }

        @Override
        public <S> Void visit(Column column, S context) {
            String name = KeyFinder.unquote(column.getColumnName());
            Table qualifier = column.getTable();
            boolean qualified = qualifier != null && qualifier.getName() != null;
            if (!qualified && name.equalsIgnoreCase("DEFAULT")) return null; // the keyword: the column's default in both forms
            if (!own.contains(name.toLowerCase(Locale.ROOT))) {
                problems.add(column + ", which is not a column of " + target.name());
            } else if (qualified) {
                // MariaDB 1052 when the SELECT also reads the target unaliased; a schema: left to the SELECT's side
                boolean isTarget = qualifier.getSchemaName() == null && KeyFinder.unquote(qualifier.getName()).equals(target.name());
                if (!isTarget || !sources.groupedOnly && sources.names.contains(target.name().toLowerCase(Locale.ROOT))) {
                    problems.add(column + " (MariaDB may take it for the SELECT's table)");
                }
            } else if (!sources.groupedOnly && (sources.unknown || sources.columns.contains(name.toLowerCase(Locale.ROOT)))) {
                problems.add(column + (sources.unknown ? " (the SELECT reads a derived table or a CTE that may have it too)"
                        : " (the SELECT's tables have a column of that name too: MariaDB takes it as ambiguous, error 1052)"));
            }
            return null;
        }

        @Override
        public <S> Void visit(Function function, S context) {
            String name = function.getName() == null ? "" : function.getName().toUpperCase(Locale.ROOT);
            if (!(name.equals("VALUES") || name.equals("VALUE"))) return super.visit(function, context);
            var args = function.getParameters();
            if (args == null || args.size() != 1 || !(args.getFirst() instanceof Column c) || c.getTable() != null && c.getTable().getName() != null
                    || !own.contains(KeyFinder.unquote(c.getColumnName()).toLowerCase(Locale.ROOT))) {
                problems.add(function + " (VALUES() of something other than a column of " + target.name() + ")");
            }
            return null; // VALUES(c) is the value the row would insert into c, in both forms
        }

        @Override
        public <S> Void visit(ParenthesedSelect select, S context) {
            problems.add("a subquery, " + select);
            return null;
        }

        @Override
        public <S> Void visit(Select select, S context) {
            problems.add("a subquery, " + select);
            return null;
        }
    }
}
