package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitor;
import net.sf.jsqlparser.parser.ASTNodeAccessImpl;

/**
 * {@code WEIGHT_STRING(expr AS CHAR(n))} as a node of the shard statement's syntax tree: the bytes
 * MySQL compares for {@code expr} in its collation, padded to {@code n} characters (which makes
 * PAD SPACE collations exact: 'a' = 'a ', and 'a\t' < 'a'). JSQLParser has no node for this form,
 * so the router adds its own rather than passing SQL text where the tree expects a name. Visitors
 * see the argument: the node reads what {@code expr} reads.
 */
final class WeightString extends ASTNodeAccessImpl implements Expression {
    private final Expression argument;
    private final int length;

    WeightString(Expression argument, int length) {
        this.argument = argument;
        this.length = length;
    }

    @Override
    public <T, S> T accept(ExpressionVisitor<T> visitor, S context) {
        return argument.accept(visitor, context);
    }

    @Override
    public StringBuilder appendTo(StringBuilder builder) {
        return builder.append("WEIGHT_STRING(").append(argument).append(" AS CHAR(").append(length).append("))");
    }

    @Override
    public String toString() {
        return appendTo(new StringBuilder()).toString();
    }
}
