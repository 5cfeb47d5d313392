package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Parenthesis;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.PlainSelect;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Decides from the placement metadata whether a join can run inside each partition, and how it
 * is routed. A join is co-located when every partitioned table in it is placed like the others
 * (the tables of one SAME AS group, or hash / range tables over the same partitions with the same
 * rule) and joined to them by equality of their routing columns, and every replicated table is on
 * all of their partitions: then each partition joins its own rows and the answers simply
 * combine, as for one table. Outer joins must preserve the partitioned side: a replicated table
 * on the preserved side of a LEFT/RIGHT JOIN would be emitted by every partition.
 *
 * <p>Everything else is not co-located, and the answer says why, naming the tables: the {@link SelectPlanner} then
 * joins in rounds or copies the tables to one partition, and refuses with that reason where neither applies.
 */
final class JoinPlacement {
    private JoinPlacement() {}

    /** Finds a FROM table in the catalog (and strips its schema qualifier). */
    interface Resolver {
        TableDef resolve(Table t) throws PlanException;
    }

    /**
     * @param resolve the catalog lookup of a FROM table (strips its schema qualifier)
     * @return the tables and the driving one (a join of replicated tables only drives by a replicated stand-in table on
     *         the partitions they share); not applicable, saying why, where the join is not co-located. A table the
     *         resolver refuses or does not know is thrown: no way of joining reads it.
     */
    static Attempt<Sources> place(PlainSelect select, Resolver resolve) throws PlanException {
        var sources = new ArrayList<Sources.Source>();
        var fromItems = new ArrayList<Object>();
        fromItems.add(select.getFromItem());
        for (Join j : select.getJoins()) fromItems.add(j.getRightItem());
        for (Object item : fromItems) {
            if (!(item instanceof Table t)) {
                return Attempt.notApplicable(PlanException.unsupported("derived tables and subqueries in a join yet (" + item + ")"));
            }
            TableDef def = resolve.resolve(t);
            sources.add(new Sources.Source(def, t.getAlias() == null ? null : KeyFinder.unquote(t.getAlias().getName())));
        }
        var partitioned = new ArrayList<Integer>();
        for (int i = 0; i < sources.size(); i++) {
            if (!(sources.get(i).table().partitioning() instanceof Partitioning.Replicated)) partitioned.add(i);
        }
        if (partitioned.isEmpty()) return replicatedOnly(sources);

        Sources all = new Sources(sources, partitioned.getFirst());
        Partitioning first = sources.get(partitioned.getFirst()).table().partitioning();
        for (int i : partitioned) {
            Partitioning p = sources.get(i).table().partitioning();
            if (!samePlacement(first, p)) {
                return Attempt.notApplicable(notColocated(sources, "they are placed by different rules (" + name(sources.get(partitioned.getFirst())) + ", "
                        + name(sources.get(i)) + ")"));
            }
        }
        for (var s : sources) {
            if (s.table().partitioning() instanceof Partitioning.Replicated r && !containsAll(r.partitions(), first.partitions())) {
                return Attempt.notApplicable(notColocated(sources, s.table().name() + " is not replicated on every partition of the others"));
            }
        }
        // outer joins: the preserved side must be partitioned
        for (int j = 0; j < select.getJoins().size(); j++) {
            Join join = select.getJoins().get(j);
            if (join.isNatural() || join.isFull()) return Attempt.notApplicable(PlanException.unsupported("NATURAL and FULL joins yet"));
            boolean rightReplicated = sources.get(j + 1).table().partitioning() instanceof Partitioning.Replicated;
            boolean leftAllReplicated = true;
            for (int k = 0; k <= j; k++) leftAllReplicated &= sources.get(k).table().partitioning() instanceof Partitioning.Replicated;
            if (join.isLeft() && leftAllReplicated && !rightReplicated || join.isRight() && rightReplicated && !leftAllReplicated) {
                return Attempt.notApplicable(notColocated(sources, "an outer join preserves the replicated side, which every partition would return"));
            }
        }
        // co-location: every partitioned table joined to the first by equal routing columns
        if (partitioned.size() > 1) {
            var classes = new UnionFind(sources.size());
            var equalities = new ArrayList<EqualsTo>();
            collect(select.getWhere(), equalities);
            for (Join join : select.getJoins()) {
                for (Expression on : join.getOnExpressions()) collect(on, equalities);
                if (join.getUsingColumns() != null) {
                    for (Column c : join.getUsingColumns()) usingEquality(all, c, classes);
                }
            }
            for (EqualsTo eq : equalities) {
                if (eq.getLeftExpression() instanceof Column a && eq.getRightExpression() instanceof Column b
                        && all.isRoutingColumn(a) && all.isRoutingColumn(b)) {
                    classes.union(indexOf(sources, all.sourceOf(a)), indexOf(sources, all.sourceOf(b)));
                }
            }
            for (int i : partitioned) {
                if (classes.find(i) != classes.find(partitioned.getFirst())) {
                    return Attempt.notApplicable(notColocated(sources, name(sources.get(i)) + " is not joined to " + name(sources.get(partitioned.getFirst()))
                            + " by equal routing columns (" + sources.get(i).table().partitioning().column() + " = "
                            + first.column() + ")"));
                }
            }
        }
        // drive by the partitioned table whose routing column the WHERE clause pins
        for (int i : partitioned) {
            var s = sources.get(i);
            if (new KeyFinder(s.table().partitioning().column(), s.table().name(), s.alias()).find(select.getWhere(), null) != null) {
                return new Attempt.Planned<>(new Sources(sources, i));
            }
        }
        return new Attempt.Planned<>(all);
    }

    private static Attempt<Sources> replicatedOnly(List<Sources.Source> sources) {
        int[] common = sources.getFirst().table().partitioning().partitions();
        for (var s : sources) {
            int[] p = s.table().partitioning().partitions();
            common = Arrays.stream(common).filter(x -> Arrays.stream(p).anyMatch(y -> y == x)).toArray();
        }
        if (common.length == 0) return Attempt.notApplicable(notColocated(sources, "no partition holds all of these replicated tables"));
        var stand = new TableDef(sources.getFirst().table().name(), sources.getFirst().table().columns(),
                new Partitioning.Replicated(common), sources.getFirst().table().ddl());
        var out = new ArrayList<>(sources);
        out.set(0, new Sources.Source(stand, sources.getFirst().alias()));
        return new Attempt.Planned<>(new Sources(out, 0));
    }

    static boolean samePlacement(Partitioning a, Partitioning b) {
        return switch (a) {
            case Partitioning.LookedUp x when b instanceof Partitioning.LookedUp y -> x.table() == y.table();
            case Partitioning.Hashed x when b instanceof Partitioning.Hashed y -> Arrays.equals(x.partitions(), y.partitions());
            case Partitioning.Ranged x when b instanceof Partitioning.Ranged y ->
                    Arrays.equals(x.partitions(), y.partitions()) && x.upperBounds().equals(y.upperBounds());
            default -> false;
        };
    }

    private static void usingEquality(Sources all, Column c, UnionFind classes) {
        String name = KeyFinder.unquote(c.getColumnName());
        int firstIndex = -1;
        for (int i = 0; i < all.all().size(); i++) {
            var t = all.all().get(i).table();
            if (!(t.partitioning() instanceof Partitioning.Replicated) && name.equalsIgnoreCase(t.partitioning().column())) {
                if (firstIndex < 0) firstIndex = i; else classes.union(firstIndex, i);
            }
        }
    }

    /** Top-level AND conjuncts that are equalities. */
    private static void collect(Expression e, List<EqualsTo> out) {
        if (e == null) return;
        if (e instanceof AndExpression and) {
            collect(and.getLeftExpression(), out);
            collect(and.getRightExpression(), out);
        } else if (e instanceof Parenthesis p) {
            collect(p.getExpression(), out);
        } else if (e instanceof EqualsTo eq) {
            out.add(eq);
        }
    }

    private static boolean containsAll(int[] outer, int[] inner) {
        for (int x : inner) {
            if (Arrays.stream(outer).noneMatch(y -> y == x)) return false;
        }
        return true;
    }

    private static int indexOf(List<Sources.Source> sources, Sources.Source s) {
        for (int i = 0; i < sources.size(); i++) if (sources.get(i) == s) return i;
        return -1;
    }

    private static String name(Sources.Source s) {
        return s.table().name();
    }

    private static PlanException notColocated(List<Sources.Source> sources, String why) {
        return PlanException.unsupported("joins across partitions yet: " + String.join(", ", sources.stream().map(s -> s.table().name()).toList())
                + " are not co-located because " + why);
    }

    private static final class UnionFind {
        private final int[] parent;

        UnionFind(int n) {
            parent = new int[n];
            for (int i = 0; i < n; i++) parent[i] = i;
        }

        int find(int x) {
            while (parent[x] != x) x = parent[x] = parent[parent[x]];
            return x;
        }

        void union(int a, int b) {
            if (a >= 0 && b >= 0) parent[find(a)] = find(b);
        }
    }
}
