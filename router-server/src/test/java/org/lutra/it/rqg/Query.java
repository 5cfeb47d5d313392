package org.lutra.it.rqg;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A generated statement as a small tree, so the shrinker can take parts away structurally: lists
 * (select items, conjuncts, joins, GROUP BY and ORDER BY terms) lose members, and expressions
 * ({@link Expr}) become one of their operands.
 */
public sealed interface Query {
    String sql();

    /** The features this statement exercises, named as in the accepted/refused table. */
    Set<String> features();

    /** True when the result's order is fixed by a total ORDER BY and must be compared in order. */
    boolean ordered();

    /** Statements one step smaller than this one. */
    List<Query> shrinks();

    /** A select-list item and its alias (null: none). */
    record Item(Expr expr, String alias) {
        String sql() {
            return alias == null ? expr.sql() : expr.sql() + " AS " + alias;
        }
    }

    /**
     * One SELECT. {@code orderBy}'s last {@code tieBreak} terms make the order total (primary keys
     * or group keys), or, with {@code tieBreak} {@link #POSITIONS}, every select-list position
     * follows the terms (rows that tie on all of them are equal); the shrinker never removes the
     * tie-breaking terms, so a LIMIT stays deterministic.
     */
    record Select(String with, boolean distinct, List<Item> items, String from, List<String> joins, List<Expr> where,
                  List<Expr> groupBy, List<Expr> having, List<String> orderBy, int tieBreak, String limit,
                  Set<String> features) implements Query {
        public static final int POSITIONS = -1;

        public Select {
            items = List.copyOf(items);
            joins = List.copyOf(joins);
            where = List.copyOf(where);
            groupBy = List.copyOf(groupBy);
            having = List.copyOf(having);
            orderBy = List.copyOf(orderBy);
        }

        @Override
        public String sql() {
            var sb = new StringBuilder();
            if (with != null) sb.append(with).append(' ');
            sb.append("SELECT ").append(distinct ? "DISTINCT " : "");
            for (int i = 0; i < items.size(); i++) sb.append(i > 0 ? ", " : "").append(items.get(i).sql());
            if (from != null) sb.append(" FROM ").append(from);
            for (String j : joins) sb.append(j.startsWith(",") ? "" : " ").append(j);
            if (!where.isEmpty()) sb.append(" WHERE ").append(conjunction(where));
            if (!groupBy.isEmpty()) sb.append(" GROUP BY ").append(String.join(", ", groupBy.stream().map(Expr::sql).toList()));
            if (!having.isEmpty()) sb.append(" HAVING ").append(conjunction(having));
            var order = new ArrayList<>(orderBy);
            if (tieBreak == POSITIONS) {
                for (int i = 1; i <= items.size(); i++) if (!order.contains(String.valueOf(i)) && !order.contains(i + " DESC")) order.add(String.valueOf(i));
            }
            if (!order.isEmpty()) sb.append(" ORDER BY ").append(String.join(", ", order));
            if (limit != null) sb.append(" LIMIT ").append(limit);
            return sb.toString();
        }

        private static String conjunction(List<Expr> terms) {
            return String.join(" AND ", terms.stream().map(e -> terms.size() > 1 ? parenthesized(e.sql()) : e.sql()).toList());
        }

        private static String parenthesized(String sql) {
            return sql.startsWith("(") && sql.endsWith(")") ? sql : "(" + sql + ")";
        }

        @Override
        public boolean ordered() {
            return tieBreak == POSITIONS || !orderBy.isEmpty() && tieBreak > 0;
        }

        /** This statement without its ORDER BY and LIMIT (for the oracles, which compare multisets). */
        public Select unordered() {
            return new Select(with, distinct, items, from, joins, where, groupBy, having, List.of(), 0, null, features);
        }

        public Select withWhere(List<Expr> w) {
            return new Select(with, distinct, items, from, joins, w, groupBy, having, orderBy, tieBreak, limit, features);
        }

        public Select withHaving(List<Expr> h) {
            return new Select(with, distinct, items, from, joins, where, groupBy, h, orderBy, tieBreak, limit, features);
        }

        public Select withItems(List<Item> i) {
            return new Select(with, distinct, i, from, joins, where, groupBy, having, orderBy, tieBreak, limit, features);
        }

        @Override
        public List<Query> shrinks() {
            var out = new ArrayList<Query>();
            if (limit != null) out.add(withLimit(null));
            if (limit != null && limit.contains("OFFSET")) out.add(withLimit(limit.substring(0, limit.indexOf(" OFFSET"))));
            if (limit == null && ordered()) out.add(unordered());
            int removable = tieBreak > 0 ? orderBy.size() - tieBreak : orderBy.size();
            for (int i = 0; i < removable; i++) {
                out.add(new Select(with, distinct, items, from, joins, where, groupBy, having, without(orderBy, i), tieBreak, limit, features));
            }
            for (int i = 0; i < joins.size(); i++) {
                out.add(new Select(with, distinct, items, from, without(joins, i), where, groupBy, having, orderBy, tieBreak, limit, features));
            }
            for (int i = 0; i < where.size(); i++) out.add(withWhere(without(where, i)));
            for (int i = 0; i < having.size(); i++) out.add(withHaving(without(having, i)));
            for (int i = 0; i < groupBy.size(); i++) {
                out.add(new Select(with, distinct, items, from, joins, where, without(groupBy, i), having, orderBy, tieBreak, limit, features));
            }
            for (int i = 0; items.size() > 1 && i < items.size(); i++) {
                // ORDER BY positions may point past the end then: MariaDB refuses, the candidate is dropped
                out.add(withItems(without(items, i)));
            }
            if (distinct && limit == null) out.add(new Select(with, false, items, from, joins, where, groupBy, having, orderBy, tieBreak, limit, features));
            for (int i = 0; i < items.size(); i++) {
                Item item = items.get(i);
                if (item.alias() != null) out.add(withItems(replaced(items, i, new Item(item.expr(), null))));
                for (Expr e : item.expr().shrinks()) out.add(withItems(replaced(items, i, new Item(e, item.alias()))));
            }
            for (int i = 0; i < where.size(); i++) for (Expr e : where.get(i).shrinks()) out.add(withWhere(replaced(where, i, e)));
            for (int i = 0; i < having.size(); i++) for (Expr e : having.get(i).shrinks()) out.add(withHaving(replaced(having, i, e)));
            for (int i = 0; i < groupBy.size(); i++) {
                for (Expr e : groupBy.get(i).shrinks()) {
                    out.add(new Select(with, distinct, items, from, joins, where, replaced(groupBy, i, e), having, orderBy, tieBreak, limit, features));
                }
            }
            return out;
        }

        private Select withLimit(String l) {
            return new Select(with, distinct, items, from, joins, where, groupBy, having, orderBy, tieBreak, l, features);
        }
    }

    /** SELECT ... UNION [ALL] SELECT ..., optionally ordered by every position. */
    record Union(List<Select> parts, boolean all, String orderBy, String limit, Set<String> features) implements Query {
        @Override
        public String sql() {
            var sb = new StringBuilder();
            for (int i = 0; i < parts.size(); i++) {
                if (i > 0) sb.append(all ? " UNION ALL " : " UNION ");
                String p = parts.get(i).sql();
                sb.append(orderBy != null || parts.get(i).limit() != null ? "(" + p + ")" : p);
            }
            if (orderBy != null) sb.append(" ORDER BY ").append(orderBy);
            if (limit != null) sb.append(" LIMIT ").append(limit);
            return sb.toString();
        }

        @Override
        public boolean ordered() {
            return orderBy != null;
        }

        @Override
        public List<Query> shrinks() {
            var out = new ArrayList<Query>();
            if (limit != null) out.add(new Union(parts, all, orderBy, null, features));
            if (orderBy != null && limit == null) out.add(new Union(parts, all, null, null, features));
            for (int i = 0; parts.size() > 2 && i < parts.size(); i++) out.add(new Union(without(parts, i), all, orderBy, limit, features));
            for (int i = 0; i < parts.size(); i++) {
                for (Query smaller : parts.get(i).shrinks()) {
                    if (smaller instanceof Select s && s.items().size() == parts.get(i).items().size()) {
                        var ps = new ArrayList<>(parts);
                        ps.set(i, s);
                        out.add(new Union(ps, all, orderBy, limit, features));
                    }
                }
            }
            return out;
        }
    }

    /** UPDATE or DELETE of one table; compared by the affected-row count and the whole table after it. */
    record Dml(String head, String table, List<Expr> where, Set<String> features) implements Query {
        @Override
        public String sql() {
            return head + (where.isEmpty() ? "" : " WHERE " + Select.conjunction(where));
        }

        @Override
        public boolean ordered() {
            return false;
        }

        @Override
        public List<Query> shrinks() {
            var out = new ArrayList<Query>();
            for (int i = 0; i < where.size(); i++) out.add(new Dml(head, table, without(where, i), features));
            for (int i = 0; i < where.size(); i++) for (Expr e : where.get(i).shrinks()) out.add(new Dml(head, table, replaced(where, i, e), features));
            return out;
        }
    }

    /** A statement kept as text (a regression case): nothing to shrink. */
    record Verbatim(String sql, boolean ordered, Set<String> features) implements Query {
        @Override
        public List<Query> shrinks() {
            return List.of();
        }
    }

    private static <T> List<T> replaced(List<T> list, int i, T value) {
        var out = new ArrayList<>(list);
        out.set(i, value);
        return List.copyOf(out);
    }

    private static <T> List<T> without(List<T> list, int i) {
        var out = new ArrayList<>(list);
        out.remove(i);
        return List.copyOf(out);
    }
}
