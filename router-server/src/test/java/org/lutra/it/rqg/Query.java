package org.lutra.it.rqg;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A generated statement as a small tree, so the shrinker can take parts away structurally.
 * Expressions and predicates are kept as SQL text; lists (select items, conjuncts, joins, ORDER BY
 * terms) are what shrinking removes from.
 */
public sealed interface Query {
    String sql();

    /** The features this statement exercises, named as in the accepted/refused table. */
    Set<String> features();

    /** True when the result's order is fixed by a total ORDER BY and must be compared in order. */
    boolean ordered();

    /** Statements one step smaller than this one. */
    List<Query> shrinks();

    /**
     * One SELECT. {@code orderBy}'s last {@code tieBreak} terms make the order total (primary keys,
     * group keys or all positions); the shrinker never removes them alone, so a LIMIT stays
     * deterministic.
     */
    record Select(String with, boolean distinct, List<String> items, String from, List<String> joins, List<String> where,
                  List<String> groupBy, List<String> having, List<String> orderBy, int tieBreak, String limit,
                  Set<String> features) implements Query {

        @Override
        public String sql() {
            var sb = new StringBuilder();
            if (with != null) sb.append(with).append(' ');
            sb.append("SELECT ").append(distinct ? "DISTINCT " : "").append(String.join(", ", items));
            if (from != null) sb.append(" FROM ").append(from);
            for (String j : joins) sb.append(' ').append(j);
            if (!where.isEmpty()) sb.append(" WHERE ").append(String.join(" AND ", where));
            if (!groupBy.isEmpty()) sb.append(" GROUP BY ").append(String.join(", ", groupBy));
            if (!having.isEmpty()) sb.append(" HAVING ").append(String.join(" AND ", having));
            if (!orderBy.isEmpty()) sb.append(" ORDER BY ").append(String.join(", ", orderBy));
            if (limit != null) sb.append(" LIMIT ").append(limit);
            return sb.toString();
        }

        @Override
        public boolean ordered() {
            return !orderBy.isEmpty() && tieBreak > 0;
        }

        @Override
        public List<Query> shrinks() {
            var out = new ArrayList<Query>();
            if (limit != null) out.add(withLimit(null));
            if (limit != null && limit.contains("OFFSET")) out.add(withLimit(limit.substring(0, limit.indexOf(" OFFSET"))));
            if (limit == null && !orderBy.isEmpty()) out.add(new Select(with, distinct, items, from, joins, where, groupBy, having, List.of(), 0, null, features));
            for (int i = 0; i < orderBy.size() - tieBreak; i++) {
                out.add(new Select(with, distinct, items, from, joins, where, groupBy, having, without(orderBy, i), tieBreak, limit, features));
            }
            for (int i = 0; i < joins.size(); i++) {
                out.add(new Select(with, distinct, items, from, without(joins, i), where, groupBy, having, orderBy, tieBreak, limit, features));
            }
            for (int i = 0; i < where.size(); i++) {
                out.add(new Select(with, distinct, items, from, joins, without(where, i), groupBy, having, orderBy, tieBreak, limit, features));
            }
            for (int i = 0; i < having.size(); i++) {
                out.add(new Select(with, distinct, items, from, joins, where, groupBy, without(having, i), orderBy, tieBreak, limit, features));
            }
            for (int i = 0; items.size() > 1 && i < items.size(); i++) {
                // ORDER BY positions may point past the end then: MariaDB refuses, the candidate is dropped
                out.add(new Select(with, distinct, without(items, i), from, joins, where, groupBy, having, orderBy, tieBreak, limit, features));
            }
            if (distinct && limit == null) out.add(new Select(with, false, items, from, joins, where, groupBy, having, orderBy, tieBreak, limit, features));
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
    record Dml(String head, String table, List<String> where, Set<String> features) implements Query {
        @Override
        public String sql() {
            return head + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where));
        }

        @Override
        public boolean ordered() {
            return false;
        }

        @Override
        public List<Query> shrinks() {
            var out = new ArrayList<Query>();
            for (int i = 0; i < where.size(); i++) out.add(new Dml(head, table, without(where, i), features));
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

    private static <T> List<T> without(List<T> list, int i) {
        var out = new ArrayList<>(list);
        out.remove(i);
        return List.copyOf(out);
    }
}
