package org.lutra.it;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Random SELECTs (and UPDATE/DELETEs) over the schema of {@link RandomQueryIT}, built from parts
 * so that a failing query can be shrunk by dropping parts. The generator knows nothing of how
 * the router plans: it produces what an application might send, weighted towards the features
 * of the query engine (ORDER BY, LIMIT, DISTINCT, aggregates, GROUP BY / HAVING, joins,
 * subqueries, UNION), and keeps every result deterministic: a LIMIT always comes with an ORDER
 * BY that ends in a unique key.
 */
final class QueryGenerator {
    /** A table of the random schema: its name, placement, and whether it has the common columns. */
    record Table(String name, String routing) {}

    static final List<Table> TABLES = List.of(
            new Table("t_hash", "id"), new Table("t_range", "id"), new Table("t_lookup", "id"), new Table("t_rep", null));
    /** Columns every table has: id INT PK, a INT, b DECIMAL(10,2), s VARCHAR ci, d DATE (all but id nullable). */
    static final List<String> INT_COLUMNS = List.of("id", "a");
    static final List<String> COLUMNS = List.of("id", "a", "b", "s", "d");

    /**
     * A query as parts; {@link #sql()} assembles them. Lists may be emptied and optional parts
     * nulled by the shrinker; {@code orderKeys} ends with the unique key while a LIMIT is set.
     */
    static final class Query {
        String kind = "select";          // select | union | update | delete
        boolean distinct;
        List<String> items = new ArrayList<>();
        String from;
        String join;                     // "JOIN x ON ..." or null
        List<String> where = new ArrayList<>();
        boolean whereOr;                 // join the conjuncts with OR instead of AND
        List<String> groupBy = new ArrayList<>();
        String having;
        List<String> orderBy = new ArrayList<>();
        String limit;                    // "LIMIT n" / "LIMIT n OFFSET m" or null
        Query second;                    // UNION's other branch
        boolean unionAll;
        String set;                      // UPDATE's SET

        Query copy() {
            var q = new Query();
            q.kind = kind;
            q.distinct = distinct;
            q.items = new ArrayList<>(items);
            q.from = from;
            q.join = join;
            q.where = new ArrayList<>(where);
            q.whereOr = whereOr;
            q.groupBy = new ArrayList<>(groupBy);
            q.having = having;
            q.orderBy = new ArrayList<>(orderBy);
            q.limit = limit;
            q.second = second == null ? null : second.copy();
            q.unionAll = unionAll;
            q.set = set;
            return q;
        }

        boolean ordered() {
            return !orderBy.isEmpty();
        }

        String sql() {
            return switch (kind) {
                case "update" -> "UPDATE " + from + " SET " + set + where();
                case "delete" -> "DELETE FROM " + from + where();
                case "union" -> select() + (unionAll ? " UNION ALL " : " UNION ") + second.select() + orderBy() + limitClause();
                default -> select() + orderBy() + limitClause();
            };
        }

        private String select() {
            return "SELECT " + (distinct ? "DISTINCT " : "") + String.join(", ", items) + " FROM " + from + (join == null ? "" : " " + join)
                    + where() + (groupBy.isEmpty() ? "" : " GROUP BY " + String.join(", ", groupBy)) + (having == null ? "" : " HAVING " + having);
        }

        private String where() {
            return where.isEmpty() ? "" : " WHERE " + String.join(whereOr ? " OR " : " AND ", where);
        }

        private String orderBy() {
            return orderBy.isEmpty() ? "" : " ORDER BY " + String.join(", ", orderBy);
        }

        private String limitClause() {
            return limit == null ? "" : " " + limit;
        }

        /** The feature this query exercises most, for the accepted/refused table. */
        String feature() {
            if (kind.equals("update") || kind.equals("delete")) return kind;
            if (kind.equals("union")) return unionAll ? "union all" : "union";
            if (join != null) return "join";
            if (where.stream().anyMatch(w -> w.contains("SELECT"))) return "subquery";
            if (items.stream().anyMatch(i -> i.contains("SELECT"))) return "subquery in select";
            if (having != null && having.contains("SELECT")) return "subquery in having";
            if (items.stream().anyMatch(i -> i.contains("OVER"))) return "window";
            if (having != null) return "having";
            if (!groupBy.isEmpty()) return "group by";
            if (items.stream().anyMatch(i -> i.matches("(?s).*(COUNT|SUM|MIN|MAX|AVG)\\(.*"))) return "aggregate";
            if (distinct) return "distinct";
            if (limit != null) return "order by + limit";
            if (!orderBy.isEmpty()) return "order by";
            return "filter";
        }
    }

    private final SplittableRandom r;

    QueryGenerator(long seed) {
        this.r = new SplittableRandom(seed);
    }

    Query next() {
        int pick = r.nextInt(100);
        if (pick < 6) return write();
        if (pick < 14) return union();
        if (pick < 26) return join();
        if (pick < 34) return withSubquery();
        if (pick < 40) return selectListSubquery();
        if (pick < 60) return grouped();
        return simple();
    }

    // ---- shapes ------------------------------------------------------------------------------------

    private Query simple() {
        var q = new Query();
        q.from = table().name();
        q.distinct = r.nextInt(8) == 0;
        int n = 1 + r.nextInt(3);
        if (r.nextInt(6) == 0 && !q.distinct) {
            q.items.add("*");
        } else {
            for (int i = 0; i < n; i++) q.items.add(r.nextInt(5) == 0 ? expression("") : pick(COLUMNS));
        }
        if (r.nextInt(25) == 0 && !q.distinct) q.items.add("ROW_NUMBER() OVER (ORDER BY id)");
        where(q, "");
        if (r.nextInt(3) > 0) {
            order(q, q.items.contains("*") ? COLUMNS : q.items, q.distinct ? null : "id");
        }
        return q;
    }

    private Query grouped() {
        var q = new Query();
        q.from = table().name();
        boolean byKeys = r.nextBoolean();
        if (byKeys) {
            int n = 1 + r.nextInt(2);
            for (int i = 0; i < n; i++) {
                String g = r.nextInt(6) == 0 ? "a % 3" : pick(List.of("a", "s", "d", "id", "b"));
                if (!q.groupBy.contains(g)) q.groupBy.add(g);
            }
            q.items.addAll(q.groupBy);
        }
        int aggregates = 1 + r.nextInt(3);
        for (int i = 0; i < aggregates; i++) q.items.add(aggregate());
        if (r.nextInt(8) == 0) q.items.add("COUNT(*) + 1");
        where(q, "");
        if (byKeys && r.nextInt(4) == 0) q.having = pick(List.of("COUNT(*) > 1", "SUM(a) > 10", "MAX(a) IS NOT NULL", "COUNT(*) BETWEEN 2 AND 4"));
        if (byKeys && r.nextInt(8) == 0) q.having = havingSubquery();
        if (byKeys && r.nextBoolean()) {
            var keys = new ArrayList<String>();
            if (r.nextBoolean()) keys.add((1 + q.groupBy.size()) + (r.nextBoolean() ? " DESC" : ""));
            for (String g : q.groupBy) keys.add(g + (r.nextBoolean() ? " DESC" : ""));
            q.orderBy = keys;
            if (r.nextBoolean()) q.limit = limit();
        }
        return q;
    }

    private Query join() {
        var q = new Query();
        int shape = r.nextInt(6);
        String x = "x";
        String y = "y";
        switch (shape) {
            case 0 -> { q.from = "t_lookup x"; q.join = (r.nextBoolean() ? "LEFT " : "") + "JOIN t_child y ON y.pid = x.id"; }
            case 1 -> { q.from = pick(List.of("t_hash x", "t_range x", "t_lookup x")); q.join = (r.nextBoolean() ? "LEFT " : "") + "JOIN t_rep y ON y.a = x.a"; }
            case 2 -> { q.from = "t_hash x"; q.join = "JOIN t_hash y ON y.id = x.a"; }   // not co-located: refused or right
            case 3 -> { q.from = "t_rep x"; q.join = "JOIN t_rep y ON y.id = x.a"; }
            case 4 -> { q.from = pick(List.of("t_hash x", "t_lookup x")); q.join = (r.nextBoolean() ? "LEFT " : "") + "JOIN t_range y ON y.id = x.a"; }
            default -> { q.from = "t_range x"; q.join = "JOIN t_child y ON y.a = x.id"; }
        }
        if (shape >= 4 && r.nextBoolean()) {
            // across partitions, in rounds: plain columns, integer order keys
            q.items.addAll(List.of(x + ".id", x + ".a", y + ".id", y + ".b"));
            q.orderBy.addAll(List.of(x + ".id" + (r.nextBoolean() ? " DESC" : ""), y + ".id"));
            if (r.nextBoolean()) q.limit = limit();
            if (r.nextBoolean()) q.where.add(predicate(x + "."));
            if (shape == 5 && r.nextBoolean()) q.where.add(predicate(y + "."));
            return q;
        }
        boolean aggregate = r.nextInt(3) == 0;
        if (aggregate) {
            q.items.add(x + ".a");
            q.items.add("COUNT(*)");
            q.items.add("MAX(" + y + ".a)");
            q.groupBy.add(x + ".a");
            if (r.nextBoolean()) q.orderBy.add(x + ".a");
        } else {
            q.items.add(x + ".id");
            q.items.add(x + ".s");
            q.items.add(y + ".a");
            if (r.nextBoolean()) {
                String yKey = shape == 0 ? y + ".id" : y + ".id";
                q.orderBy.addAll(List.of(x + ".s", x + ".id", yKey));
                if (r.nextBoolean()) q.limit = limit();
            }
        }
        if (r.nextBoolean()) q.where.add(predicate(x + "."));
        if (r.nextInt(3) == 0) q.where.add(x + ".id IN (" + r.nextInt(40) + ", " + r.nextInt(40) + ", " + r.nextInt(100) + ")");
        return q;
    }

    private Query withSubquery() {
        var q = simple();
        q.items.remove("ROW_NUMBER() OVER (ORDER BY id)");
        if (q.items.isEmpty()) q.items.add("id");
        String inner = pick(TABLES).name();
        if (q.from.equals("t_lookup") && r.nextBoolean()) {
            // correlated on the SAME AS child: runs inside each partition
            q.where.add(0, switch (r.nextInt(3)) {
                case 0 -> "EXISTS (SELECT 1 FROM t_child c WHERE c.pid = t_lookup.id AND c.a > " + r.nextInt(15) + ")";
                case 1 -> "NOT EXISTS (SELECT 1 FROM t_child c WHERE c.pid = t_lookup.id)";
                default -> "(SELECT COUNT(*) FROM t_child c WHERE c.pid = t_lookup.id) > " + r.nextInt(3);
            });
            return q;
        }
        String sub = switch (r.nextInt(5)) {
            case 0 -> "a IN (SELECT a FROM " + inner + " WHERE " + predicate("") + ")";
            case 1 -> "id NOT IN (SELECT a FROM " + inner + " WHERE a IS NOT NULL AND " + predicate("") + ")";
            case 2 -> "EXISTS (SELECT 1 FROM " + inner + " WHERE " + predicate("") + ")";
            case 3 -> "a > (SELECT AVG(a) FROM " + inner + ")";
            default -> "id IN (SELECT id FROM " + inner + " WHERE s LIKE 'c%' UNION SELECT a FROM t_rep)";
        };
        q.where.add(0, sub);
        q.whereOr = false;
        return q;
    }

    /** A SELECT with subqueries in its select list: uncorrelated ones, and correlated ones on co-located or other tables. */
    private Query selectListSubquery() {
        var q = simple();
        q.items.remove("ROW_NUMBER() OVER (ORDER BY id)");
        if (q.items.isEmpty()) q.items.add("id");
        for (int i = 0, n = 1 + r.nextInt(2); i < n; i++) {
            String item = scalarItem(q.from, !q.distinct);
            // at any place in the list; ORDER BY names the other items, so it stays total
            q.items.add(r.nextInt(q.items.size() + 1), item + (r.nextBoolean() ? " AS q" + i : ""));
        }
        return q;
    }

    private String scalarItem(String outer, boolean correlatedAllowed) {
        String inner = pick(TABLES).name();
        if (correlatedAllowed && r.nextInt(4) == 0) {
            return switch (r.nextInt(3)) {
                case 0 -> outer.equals("t_lookup") ? "(SELECT COUNT(*) FROM t_child c WHERE c.pid = t_lookup.id)"
                        : "(SELECT MAX(y.b) FROM t_rep y WHERE y.id = " + outer + ".a)";
                case 1 -> "(SELECT COUNT(*) FROM " + inner + " y WHERE y.a = " + outer + ".a)"; // co-located only when inner is t_rep
                default -> "EXISTS (SELECT 1 FROM t_child c WHERE c.pid = " + outer + ".id AND c.a > " + r.nextInt(15) + ")";
            };
        }
        return switch (r.nextInt(11)) {
            case 0 -> "(SELECT MAX(a) FROM " + inner + " WHERE " + predicate("") + ")";
            case 1 -> "(SELECT COUNT(*) FROM " + inner + " WHERE " + predicate("") + ")";
            case 2 -> "(SELECT " + pick(List.of("MIN(d)", "MAX(d)", "AVG(b)", "SUM(b)", "MIN(s)", "AVG(a)")) + " FROM " + inner + ")";
            case 3 -> "(SELECT s FROM " + inner + " WHERE id = " + r.nextInt(130) + ")";   // one row or none (NULL)
            case 4 -> "(SELECT " + pick(List.of("a", "b", "d")) + " FROM " + inner + " WHERE id = " + r.nextInt(130) + ") " + pick(List.of("+ 1", "IS NULL", "= a", "> 5"));
            case 5 -> "(SELECT a FROM " + inner + " WHERE a > " + (10 + r.nextInt(12)) + ")";  // often several rows: MySQL's 1242 on both sides
            case 6 -> "a IN (SELECT a FROM " + inner + " WHERE " + predicate("") + ")";
            case 7 -> "id NOT IN (SELECT a FROM " + inner + (r.nextBoolean() ? " WHERE a IS NOT NULL" : "") + ")";
            case 8 -> (r.nextBoolean() ? "NOT " : "") + "EXISTS (SELECT 1 FROM " + inner + " WHERE " + predicate("") + ")";
            case 9 -> "s = (SELECT MIN(s) FROM " + inner + " WHERE " + predicate("") + ")";
            default -> "d < (SELECT MAX(d) FROM " + inner + ") - INTERVAL " + r.nextInt(400) + " DAY";
        };
    }

    private String havingSubquery() {
        String inner = pick(TABLES).name();
        return switch (r.nextInt(4)) {
            case 0 -> "COUNT(*) > (SELECT COUNT(*) FROM " + inner + " WHERE " + predicate("") + ") / 20";
            // not MAX(a) IN (SELECT ...): the reference MariaDB answers no group for it where the IN holds
            case 1 -> "MAX(a) > (SELECT MIN(a) FROM " + inner + " WHERE " + predicate("") + ")";
            case 2 -> (r.nextBoolean() ? "NOT " : "") + "EXISTS (SELECT 1 FROM " + inner + " WHERE " + predicate("") + ")";
            default -> "MIN(a) < (SELECT AVG(a) FROM " + inner + ")";
        };
    }

    private Query union() {
        var q = new Query();
        q.kind = "union";
        q.unionAll = r.nextBoolean();
        String column = pick(List.of("a", "s", "d", "b"));
        q.from = table().name();
        q.items.add(column);
        where(q, "");
        q.second = new Query();
        q.second.from = table().name();
        q.second.items.add(column);
        where(q.second, "");
        if (r.nextBoolean() && !q.unionAll) {
            q.orderBy.add("1" + (r.nextBoolean() ? " DESC" : ""));
            if (r.nextBoolean()) q.limit = "LIMIT " + (1 + r.nextInt(5));
        }
        return q;
    }

    private Query write() {
        var q = new Query();
        q.kind = r.nextInt(3) == 0 ? "delete" : "update";
        q.from = pick(List.of("t_hash", "t_range", "t_lookup", "t_child", "t_rep"));
        q.set = pick(List.of("a = a + 1", "b = b * 2", "s = 'upd'", "a = NULL", "d = '2020-02-02'"));
        q.where.add(q.kind.equals("delete") ? "id = " + r.nextInt(120) : predicate(""));
        if (r.nextInt(4) == 0) q.where.add(predicate(""));
        return q;
    }

    // ---- parts -------------------------------------------------------------------------------------

    private void where(Query q, String prefix) {
        int n = r.nextInt(3);
        for (int i = 0; i < n; i++) q.where.add(predicate(prefix));
        q.whereOr = n > 1 && r.nextInt(4) == 0;
    }

    private String predicate(String prefix) {
        String c = prefix;
        return switch (r.nextInt(12)) {
            case 0 -> c + "id = " + r.nextInt(120);
            case 1 -> c + "id IN (" + r.nextInt(120) + ", " + r.nextInt(120) + ", " + r.nextInt(120) + ")";
            case 2 -> c + "id BETWEEN " + r.nextInt(100) + " AND " + (r.nextInt(100) + 5);
            case 3 -> c + "a " + pick(List.of("<", "<=", ">", ">=", "=", "<>")) + " " + (r.nextInt(30) - 5);
            case 4 -> c + pick(List.of("a", "b", "s", "d")) + " IS " + (r.nextBoolean() ? "" : "NOT ") + "NULL";
            case 5 -> c + "s " + pick(List.of("=", "<", ">")) + " " + quoted(pick(WORDS));
            case 6 -> c + "s LIKE '" + pick(List.of("a", "B", "c", "D")) + "%'";
            case 7 -> c + "b > " + r.nextInt(50) + ".5";
            case 8 -> c + "d < '2021-0" + (1 + r.nextInt(9)) + "-15'";
            case 9 -> "NOT (" + c + "a = " + r.nextInt(10) + ")";
            case 10 -> c + "id < " + r.nextInt(60);
            default -> c + "a IN (" + r.nextInt(10) + ", " + r.nextInt(10) + ")";
        };
    }

    /** A string literal as MySQL reads it: single or double quotes, sometimes with a comment after it. */
    private String quoted(String word) {
        String q = r.nextInt(4) == 0 ? "\"" : "'";
        return q + word + q + (r.nextInt(8) == 0 ? " /* c */" : "");
    }

    private String expression(String prefix) {
        return pick(List.of(prefix + "a + 1", prefix + "a*2-id", "abs(" + prefix + "a-5)", "LOWER(" + prefix + "s)", prefix + "b / 2",
                "COALESCE(" + prefix + "a,-1)", "( " + prefix + "a )"));
    }

    private String aggregate() {
        return pick(List.of("COUNT(*)", "COUNT(a)", "SUM(a)", "SUM(b)", "MIN(a)", "MAX(b)", "MIN(s)", "MAX(s)", "AVG(a)", "AVG(b)",
                "COUNT(DISTINCT a)", "MIN(d)", "MAX(d)", "SUM(DISTINCT a)", "MIN(a + 1)", "MAX(b * 2)", "MIN(LOWER(s))", "MAX(abs(a-5))",
                "SUM(a * b)", "AVG(DISTINCT b)", "COUNT(s)"));
    }

    /** ORDER BY some of {@code items}, then {@code unique} so the order is total; sometimes a LIMIT. */
    private void order(Query q, List<String> items, String unique) {
        var keys = new ArrayList<String>();
        int n = r.nextInt(3);
        for (int i = 0; i < n; i++) {
            String picked = pick(items);
            String k = picked.equals("*") || picked.contains("OVER") ? pick(COLUMNS) : picked;
            String key = k + (r.nextBoolean() ? " DESC" : "");
            if (keys.stream().noneMatch(x -> x.startsWith(k + " ") || x.equals(k))) keys.add(key);
        }
        if (unique != null) {
            keys.add(unique + (r.nextBoolean() ? " DESC" : ""));
            q.orderBy = keys;
            if (r.nextBoolean()) q.limit = limit();
        } else if (!keys.isEmpty()) {
            // DISTINCT: order by every selected column so that the order is total
            for (String item : items) if (keys.stream().noneMatch(x -> x.startsWith(item + " ") || x.equals(item))) keys.add(item);
            q.orderBy = keys;
            if (r.nextBoolean()) q.limit = limit();
        }
    }

    private String limit() {
        return r.nextBoolean() ? "LIMIT " + (1 + r.nextInt(10)) : "LIMIT " + (1 + r.nextInt(10)) + " OFFSET " + r.nextInt(8);
    }

    private Table table() {
        return pick(TABLES);
    }

    private <T> T pick(List<T> options) {
        return options.get(r.nextInt(options.size()));
    }

    /** Distinct under a case-insensitive collation (so MySQL's choice of spelling never matters), ordered differently by case. */
    static final List<String> WORDS = List.of("apple", "Banana", "cherry", "Date", "elder", "Fig", "grape", "Honeydew", "kiwi", "Lemon",
            "mango", "Nectarine", "olive", "Peach");
}
