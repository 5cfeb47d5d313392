package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.TableDef;
import org.lutra.exec.Plan;
import org.lutra.sql.KeyMatch;

import java.util.ArrayList;
import java.util.List;

/**
 * Which secondary lookup a statement's WHERE clause routes by: the first readable one of the table whose column it pins
 * to a value or an IN list, or, for a lookup over several columns, each of them to one value (a statement pinning only
 * some of them is not routed by the lookup). Statements pinning the routing column route by it, not by this.
 */
final class SecondaryMatches {
    private SecondaryMatches() {}

    static Plan.SecondaryMatch of(Catalog catalog, TableDef table, Table from, Expression where, Statement statement) {
        String alias = from == null || from.getAlias() == null ? null : KeyFinder.unquote(from.getAlias().getName());
        return of(catalog, table, alias, where, statement);
    }

    /** As {@link #of(Catalog, TableDef, Table, Expression, Statement)}, with the table's alias in the statement (or null). */
    static Plan.SecondaryMatch of(Catalog catalog, TableDef table, String alias, Expression where, Statement statement) {
        for (var s : catalog.secondariesOf(table.name())) {
            if (!s.readable()) continue;
            if (s.columns().size() == 1) {
                KeyMatch m = new KeyFinder(s.columns().getFirst(), table.name(), alias).find(where, statement);
                if (m instanceof KeyMatch.Equals || m instanceof KeyMatch.In) return new Plan.SecondaryMatch(s, List.of(m));
                continue;
            }
            var matches = new ArrayList<KeyMatch>();
            for (String column : s.columns()) {
                KeyMatch m = new KeyFinder(column, table.name(), alias).find(where, statement);
                if (m instanceof KeyMatch.In in && in.values().size() == 1) m = new KeyMatch.Equals(in.values().getFirst());
                if (!(m instanceof KeyMatch.Equals)) break;
                matches.add(m);
            }
            if (matches.size() == s.columns().size()) return new Plan.SecondaryMatch(s, matches);
        }
        return null;
    }
}
