package org.lutra.it.rqg;

import java.util.ArrayList;
import java.util.List;

/**
 * A generated expression as a small tree, so that the shrinker can replace a part by one of its
 * operands or by a constant. {@code template} is SQL text in which each {@link #HOLE} stands for the
 * next child; a leaf has no holes.
 *
 * <p>Shrinking is liberal: a smaller expression may be of another type or make the statement
 * invalid (a column outside GROUP BY); the reference MariaDB, which runs with ONLY_FULL_GROUP_BY,
 * rejects the invalid ones and the shrinker drops them.
 */
public record Expr(String template, List<Expr> children, boolean aggregate) {
    public static final char HOLE = '\u0001';

    public Expr {
        children = List.copyOf(children);
    }

    public static Expr leaf(String sql) {
        return new Expr(sql, List.of(), false);
    }

    /** {@code template} with {@code $} for each child in order (the text itself holds no {@code $}). */
    public static Expr of(String template, Expr... children) {
        return new Expr(template.replace('$', HOLE), List.of(children), false);
    }

    /** An aggregate call: never replaced by its argument (that would change what the statement groups). */
    public static Expr aggregate(String template, Expr... children) {
        return new Expr(template.replace('$', HOLE), List.of(children), true);
    }

    /** True when this expression or a part of it is an aggregate. */
    public boolean hasAggregate() {
        return aggregate || children.stream().anyMatch(Expr::hasAggregate);
    }

    public String sql() {
        if (children.isEmpty()) return template;
        var sb = new StringBuilder();
        int child = 0;
        for (int i = 0; i < template.length(); i++) {
            char c = template.charAt(i);
            if (c == HOLE) sb.append(children.get(child++).sql());
            else sb.append(c);
        }
        return sb.toString();
    }

    /** Expressions one step simpler: an operand in place of the whole, or a child simplified. */
    public List<Expr> shrinks() {
        var out = new ArrayList<Expr>();
        if (!aggregate) {
            for (Expr c : children) out.add(c);
        }
        for (int i = 0; i < children.size(); i++) {
            for (Expr smaller : children.get(i).shrinks()) {
                var cs = new ArrayList<>(children);
                cs.set(i, smaller);
                out.add(new Expr(template, cs, aggregate));
            }
        }
        if (!children.isEmpty() && !aggregate && !hasAggregate()) out.add(leaf("1"));
        return out;
    }

    @Override
    public String toString() {
        return sql();
    }
}
