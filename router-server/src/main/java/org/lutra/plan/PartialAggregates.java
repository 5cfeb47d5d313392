package org.lutra.plan;

import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.MySQLGroupConcat;
import net.sf.jsqlparser.expression.UserVariable;
import org.lutra.exec.Aggregate;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The aggregates of a statement over several partitions: each rewritten into the partial its
 * shards compute (in the client's select item, labelled as the client wrote it, or as a hidden
 * column), with how the router combines the partials ({@link Aggregate.Aggregation}). AVG becomes
 * SUM and COUNT; a DISTINCT aggregate becomes its argument x, which the shards also group by.
 */
final class PartialAggregates {
    private static final Pattern SEPARATOR = Pattern.compile("(?is)\\bSEPARATOR\\s+'((?:[^'\\\\]++|\\\\.|'')*+)'\\s*\\)\\s*$");

    private final ShardColumns columns;
    private final List<Aggregate.Aggregation> all = new ArrayList<>();
    /** The argument shared by every DISTINCT aggregate of the statement, and its column; null and -1 without one. */
    private Expression distinctArgument;
    private int distinctColumn = -1;
    private int maxLengthColumn = -1;

    PartialAggregates(ShardColumns columns) {
        this.columns = columns;
    }

    List<Aggregate.Aggregation> all() {
        return all;
    }

    Expression distinctArgument() {
        return distinctArgument;
    }

    int distinctColumn() {
        return distinctColumn;
    }

    /** How visible column {@code column} is combined, or null where it is no aggregate of its own. */
    Aggregate.Aggregation at(int column) {
        for (var a : all) if (a.column() == column) return a;
        return null;
    }

    /**
     * Aggregate {@code f}, the client's item at visible column {@code column}, computed in its place: how the router
     * combines it; not applicable: an aggregate the merge does not combine.
     */
    Attempt<Aggregate.Aggregation> inPlace(Function f, int column) {
        return added(aggregation(f, column, true));
    }

    /**
     * Aggregate {@code f}, which no select item is, computed as a hidden column: the column with its final value; not
     * applicable: an aggregate the merge does not combine.
     */
    Attempt<Integer> hidden(Function f) {
        int column = columns.width();
        return added(aggregation(f, column, false)).map(a -> column);
    }

    private Attempt<Aggregate.Aggregation> added(Attempt<Aggregate.Aggregation> aggregation) {
        if (aggregation instanceof Attempt.Planned<Aggregate.Aggregation>(var a)) all.add(a);
        return aggregation;
    }

    /**
     * Rewrites aggregate {@code f}, whose final value goes to {@code column}, into the partial the
     * shards compute, and says how the router combines it.
     */
    private Attempt<Aggregate.Aggregation> aggregation(Function f, int column, boolean inPlace) {
        String name = f.getName().toUpperCase(Locale.ROOT);
        var params = f.getParameters();
        Expression arg = params != null && params.size() == 1 ? (Expression) params.getFirst() : null;
        if (f.isDistinct()) {
            if (arg == null || !Set.of("COUNT", "SUM", "AVG").contains(name)) {
                return Attempt.notApplicable(PlanException.unsupported(name + "(DISTINCT ...) with several arguments or of this kind over several partitions yet"));
            }
            if (distinctArgument != null && !columns.same(distinctArgument, arg)) {
                return Attempt.notApplicable(PlanException.unsupported("DISTINCT aggregates of different arguments in one statement over several partitions yet"));
            }
            if (distinctArgument == null) {
                distinctArgument = arg;
                distinctColumn = column;
            }
            place(inPlace, column, arg, f); // each DISTINCT aggregate reads x from its own column; the first is the sort key
            var kind = switch (name) {
                case "COUNT" -> Aggregate.Kind.COUNT_DISTINCT;
                case "SUM" -> Aggregate.Kind.SUM_DISTINCT;
                default -> Aggregate.Kind.AVG_DISTINCT;
            };
            return Attempt.planned(new Aggregate.Aggregation(kind, column, -1, -1, null));
        }
        switch (name) {
            case "SUM" -> {
                place(inPlace, column, f, f);
                return Attempt.planned(new Aggregate.Aggregation(Aggregate.Kind.SUM, column, -1, -1, null, exactSum(arg)));
            }
            case "COUNT", "BIT_AND", "BIT_OR", "BIT_XOR" -> {
                place(inPlace, column, f, f);
                return Attempt.planned(new Aggregate.Aggregation(Aggregate.Kind.valueOf(name), column, -1, -1, null));
            }
            case "MIN", "MAX" -> {
                place(inPlace, column, f, f);
                return Attempt.planned(new Aggregate.Aggregation(Aggregate.Kind.valueOf(name), column, -1, columns.weightOfExtreme(f, arg), null));
            }
            case "AVG" -> {
                if (arg == null) return Attempt.notApplicable(PlanException.unsupported("AVG without an argument"));
                place(inPlace, column, new Function().withName("SUM").withParameters(arg), f);
                int count = columns.hidden(new Function().withName("COUNT").withParameters(arg));
                return Attempt.planned(new Aggregate.Aggregation(Aggregate.Kind.AVG, column, count, -1, null, exactSum(arg)));
            }
            default -> {
                return Attempt.notApplicable(PlanException.unsupported("the aggregate " + name + "() over several partitions yet"));
            }
        }
    }

    /**
     * A hidden column with SUM(x) as {@code CAST(SUM(x) AS DECIMAL(65,30))}: the digits MariaDB sums beyond the shown
     * scale ({@link Aggregate}'s exact sums), or -1 where x has none. Only a division ({@code d / 3}: the scale plus
     * div_precision_increment shown, nine or more digits kept) or a subquery's value (an AVG, say) carries such digits;
     * sums of columns, products and the like are exact as shown.
     */
    private int exactSum(Expression arg) {
        if (arg == null || !carriesHiddenDigits(arg)) return -1;
        var sum = new Function().withName("SUM").withParameters(arg);
        var cast = new net.sf.jsqlparser.expression.CastExpression("CAST");
        cast.setLeftExpression(sum);
        cast.setColDataType(new net.sf.jsqlparser.statement.create.table.ColDataType("DECIMAL(65,30)"));
        return columns.hidden(cast);
    }

    /** Whether {@code e}'s value holds digits beyond the scale MariaDB shows ({@link #exactSum}). */
    static boolean carriesHiddenDigits(Expression e) {
        var found = new boolean[1];
        e.accept(new net.sf.jsqlparser.expression.ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(net.sf.jsqlparser.expression.operators.arithmetic.Division division, S context) {
                found[0] = true;
                return super.visit(division, context);
            }

            @Override
            public <S> Void visit(net.sf.jsqlparser.statement.select.ParenthesedSelect subquery, S context) {
                found[0] = true;
                return null;
            }
        }, null);
        return found[0];
    }

    /**
     * GROUP_CONCAT without ORDER BY or DISTINCT: each shard concatenates its group's values and the
     * router joins the pieces with the separator (MySQL promises no order without ORDER BY). The
     * shards also return their group_concat_max_len: a joined result longer than that would be cut
     * by MySQL, and is refused instead (not applicable: with DISTINCT or ORDER BY).
     */
    Attempt<Aggregate.Aggregation> groupConcat(MySQLGroupConcat gc, int column) {
        if (gc.isDistinct() || gc.getOrderByElements() != null && !gc.getOrderByElements().isEmpty()) {
            return Attempt.notApplicable(PlanException.unsupported("GROUP_CONCAT with DISTINCT or ORDER BY over several partitions yet"));
        }
        String separator = gc.getSeparator() == null ? "," : separator(gc.getSeparator());
        return added(Attempt.planned(groupConcat(gc.toString(), column, separator)));
    }

    /** GROUP_CONCAT(x, ... [SEPARATOR 's']) parsed as a plain function call (no ORDER BY, no DISTINCT); not applicable: a separator it cannot read. */
    Attempt<Aggregate.Aggregation> groupConcat(Function f, int column) {
        String text = f.toString();
        var m = SEPARATOR.matcher(text);
        String separator = m.find() ? Literals.unescape(m.group(1), '\'') : ",";
        if (!m.find(0) && text.toUpperCase(Locale.ROOT).contains("SEPARATOR")) {
            return Attempt.notApplicable(PlanException.unsupported("this GROUP_CONCAT separator over several partitions yet (" + text + ")"));
        }
        return added(Attempt.planned(groupConcat(text, column, separator)));
    }

    private Aggregate.Aggregation groupConcat(String text, int column, String separator) {
        var item = columns.itemAt(column);
        if (item.getAlias() == null) item.setAlias(new Alias(Sources.quote(text), true));
        if (maxLengthColumn < 0) maxLengthColumn = columns.hidden(new UserVariable("group_concat_max_len").withDoubleAdd(true));
        return new Aggregate.Aggregation(Aggregate.Kind.GROUP_CONCAT, column, maxLengthColumn, -1, separator);
    }

    private static String separator(String written) {
        String s = written.strip();
        if (s.toUpperCase(Locale.ROOT).startsWith("SEPARATOR")) s = s.substring("SEPARATOR".length()).strip();
        if (s.length() >= 2 && (s.charAt(0) == '\'' || s.charAt(0) == '"')) return Literals.unescape(s.substring(1, s.length() - 1), s.charAt(0));
        return s;
    }

    /** Puts {@code partial} where the client's aggregate {@code original} was (labelled as the client wrote it), or appends it hidden. */
    private void place(boolean inPlace, int column, Expression partial, Function original) {
        if (!inPlace) {
            columns.hidden(partial);
            return;
        }
        var item = columns.itemAt(column);
        if (partial != original || item.getAlias() == null) {
            String label = item.getAlias() != null ? item.getAlias().getName() : Sources.quote(original.toString());
            item.setExpression(partial);
            item.setAlias(new Alias(label, true));
        }
    }
}
