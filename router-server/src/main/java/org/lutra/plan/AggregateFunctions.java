package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.schema.Column;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Which functions are MySQL's aggregates, and where an expression uses them. */
final class AggregateFunctions {
    private static final Set<String> AGGREGATES = Set.of("COUNT", "SUM", "MIN", "MAX", "AVG", "BIT_AND", "BIT_OR", "BIT_XOR",
            "GROUP_CONCAT", "STD", "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP", "JSON_ARRAYAGG",
            "JSON_OBJECTAGG");

    private AggregateFunctions() {}

    /** Whether {@code e} holds an aggregate anywhere. */
    static boolean hasAggregate(Expression e) {
        var found = new boolean[1];
        e.accept(new net.sf.jsqlparser.expression.ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(Function f, S context) {
                if (isAggregate(f)) found[0] = true;
                return super.visit(f, context);
            }

            @Override
            public <S> Void visit(net.sf.jsqlparser.expression.MySQLGroupConcat groupConcat, S context) {
                found[0] = true;
                return null;
            }
        }, null);
        return found[0];
    }

    /** Whether {@code e} holds an {@code AVG(DISTINCT ...)} anywhere. */
    static boolean hasAverageOfDistinct(Expression e) {
        var found = new boolean[1];
        e.accept(new net.sf.jsqlparser.expression.ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(Function f, S context) {
                if (isAggregate(f) && f.isDistinct() && f.getName().equalsIgnoreCase("AVG")) found[0] = true;
                return super.visit(f, context);
            }
        }, null);
        return found[0];
    }

    /** Whether {@code e} reads a column other than inside an aggregate's argument. */
    static boolean hasColumnOutsideAggregates(Expression e) {
        return !columnsOutsideAggregates(e).isEmpty();
    }

    /** The columns {@code e} reads other than inside an aggregate's argument, in text order. */
    static List<Column> columnsOutsideAggregates(Expression e) {
        var found = new ArrayList<Column>();
        e.accept(new net.sf.jsqlparser.expression.ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(Function f, S context) {
                return isAggregate(f) ? null : super.visit(f, context);
            }

            @Override
            public <S> Void visit(net.sf.jsqlparser.expression.MySQLGroupConcat groupConcat, S context) {
                return null;
            }

            @Override
            public <S> Void visit(Column column, S context) {
                found.add(column);
                return null;
            }
        }, null);
        return found;
    }

    /**
     * Whether {@code e} computes over BIT_AND, BIT_OR or BIT_XOR (BIGINT UNSIGNED), so may go out of range (1690) where the
     * aggregate alone cannot: {@code 8 - BIT_OR(a)}, not {@code BIT_OR(a)}.
     */
    static boolean computesOverUnsigned(Expression e) {
        if (e instanceof Function f && isAggregate(f)) return false;
        var found = new boolean[1];
        e.accept(new net.sf.jsqlparser.expression.ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(Function f, S context) {
                if (isAggregate(f) && f.getName().toUpperCase(Locale.ROOT).startsWith("BIT_")) found[0] = true;
                return super.visit(f, context);
            }
        }, null);
        return found[0];
    }

    static boolean isAggregate(Function f) {
        return f.getMultipartName().size() == 1 && AGGREGATES.contains(f.getName().toUpperCase(Locale.ROOT));
    }
}
