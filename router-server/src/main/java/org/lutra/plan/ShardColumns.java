package org.lutra.plan;

import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SelectItem;
import org.lutra.catalog.ColumnDef;
import org.lutra.merge.SortKey;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The select list of a shard statement as the router's merge reads it: first the client's items
 * (visible: one per expression, one per table column of a {@code *}), then the hidden columns the
 * merge needs (sort and group keys not selected, weight strings, partial aggregates), appended to
 * the statement as they are asked for; and what compares each column as MySQL would.
 */
final class ShardColumns {
    /** Text keys are compared as if padded to this many characters when their declared length is unknown. */
    static final int EXPRESSION_TEXT_LENGTH = 512;

    private final PlainSelect select;
    private final Sources sources;
    private final List<Expression> visible = new ArrayList<>();
    private final List<String> aliases = new ArrayList<>();
    private final List<Expression> hidden = new ArrayList<>();

    private ShardColumns(PlainSelect select, Sources sources) {
        this.select = select;
        this.sources = sources;
    }

    /** The columns of {@code select}'s list; not applicable: a {@code t.*} of a table the statement does not read (its error, 1051). */
    static Attempt<ShardColumns> of(PlainSelect select, Sources sources) {
        var columns = new ShardColumns(select, sources);
        for (var item : select.getSelectItems()) {
            Object e = item.getExpression();
            if (e instanceof AllColumns || e instanceof AllTableColumns) {
                var star = columns.starColumns(e);
                if (star == null) {
                    return Attempt.notApplicable(new PlanException("42S02", 1051, "Unknown table '" + ((AllTableColumns) e).getTable().getName() + "'"));
                }
                for (Column c : star) {
                    columns.visible.add(c);
                    columns.aliases.add(null);
                }
            } else {
                columns.visible.add((Expression) e);
                columns.aliases.add(item.getAlias() == null ? null : KeyFinder.unquote(item.getAlias().getName()));
            }
        }
        return Attempt.planned(columns);
    }

    /** The client's columns, in order. */
    List<Expression> visible() {
        return visible;
    }

    /** Each visible column's alias (unquoted), or null. */
    List<String> aliases() {
        return aliases;
    }

    /** How many columns the shard statement has so far: visible and hidden. */
    int width() {
        return visible.size() + hidden.size();
    }

    boolean anyHidden() {
        return !hidden.isEmpty();
    }

    /** The column a key reads: a visible one it equals, else a hidden copy; not applicable: a key with parameters not selected. */
    Attempt<Integer> columnOf(Expression e) {
        int found = find(e);
        if (found >= 0) return Attempt.planned(found);
        if (ParamCounter.count(e.toString()) > 0) {
            return Attempt.notApplicable(PlanException.unsupported("parameters in ORDER BY or GROUP BY over several partitions yet (" + e + ")"));
        }
        return Attempt.planned(hidden(e));
    }

    /** The visible column that equals {@code e}, or -1. */
    int find(Expression e) {
        for (int i = 0; i < visible.size(); i++) {
            if (same(visible.get(i), e)) return i;
        }
        return -1;
    }

    /** Whether two expressions have the same value: the same column of the same table, or the same text. */
    boolean same(Expression a, Expression b) {
        if (a instanceof Column x && b instanceof Column y) {
            var sx = sources.sourceOf(x);
            return sx != null && sx == sources.sourceOf(y)
                    && KeyFinder.unquote(x.getColumnName()).equalsIgnoreCase(KeyFinder.unquote(y.getColumnName()));
        }
        return a.toString().equalsIgnoreCase(b.toString());
    }

    /** The expression whose value column {@code column} holds. */
    Expression expressionOf(int column) {
        if (column < visible.size()) return visible.get(column);
        return hidden.get(column - visible.size());
    }

    /**
     * Appends {@code e} to the shard's select list, after everything the client sees; returns its column.
     * A column gets an alias no statement uses: under its own name it would make that name ambiguous
     * in the shard's HAVING or GROUP BY ({@code SELECT b AS a, a ... HAVING a > 1}: MySQL's 1052).
     */
    int hidden(Expression e) {
        int column = width();
        hidden.add(e);
        if (e instanceof Column) select.addSelectItem(e, new Alias(Sources.quote("lutra#" + (column + 1)), true));
        else select.addSelectItems(e);
        return column;
    }

    /** {@code key} compared as MySQL compares {@code e}: text by a hidden weight string, ENUM and SET by their index. */
    SortKey withWeight(SortKey key, Expression e) {
        if (knownNotText(e)) return key;
        if (e instanceof Column c && sources.columnOf(c) != null && sources.columnOf(c).typeName().toUpperCase(Locale.ROOT).matches("(ENUM|SET)\\b.*")) {
            // MySQL orders ENUM and SET by their index (their number), not their text
            return key.withWeight(hidden(new net.sf.jsqlparser.expression.operators.arithmetic.Addition()
                    .withLeftExpression(c).withRightExpression(new LongValue(0))));
        }
        // a DISTINCT key that is also the ORDER BY key compares by the same weight string: one hidden column serves both
        WeightString weight = weightString(e);
        for (int i = 0; i < hidden.size(); i++) {
            if (hidden.get(i) instanceof WeightString w && w.toString().equals(weight.toString())) return key.withWeight(visible.size() + i);
        }
        return key.withWeight(hidden(weight));
    }

    /** MIN/MAX of {@code argument}: the column of the weight string of {@code aggregate}, or -1 where it is not text. */
    int weightOfExtreme(Function aggregate, Expression argument) {
        return argument != null && !knownNotText(argument) ? hidden(new WeightString(aggregate, textLength(argument))) : -1;
    }

    private WeightString weightString(Expression e) {
        return new WeightString(e, textLength(e));
    }

    /** Whether {@code e} certainly is not a character string (so it sorts by value, without a weight string). */
    private boolean knownNotText(Expression e) {
        if (e instanceof LongValue || e instanceof net.sf.jsqlparser.expression.DoubleValue) return true;
        if (e instanceof Function f && Set.of("COUNT", "SUM", "AVG", "BIT_AND", "BIT_OR", "BIT_XOR").contains(f.getName().toUpperCase(Locale.ROOT))) {
            return true;
        }
        if (e instanceof Function f && Set.of("MIN", "MAX").contains(f.getName().toUpperCase(Locale.ROOT))
                && f.getParameters() != null && f.getParameters().size() == 1) {
            return knownNotText((Expression) f.getParameters().getFirst());
        }
        if (!(e instanceof Column c)) return false;
        ColumnDef def = sources.columnOf(c);
        if (def == null) return false;
        String type = def.typeName().toUpperCase(Locale.ROOT).strip();
        return type.matches("(TINY|SMALL|MEDIUM|BIG)?INT(EGER)?\\b.*|DECIMAL\\b.*|NUMERIC\\b.*|DEC\\b.*|FLOAT\\b.*|DOUBLE\\b.*|REAL\\b.*"
                + "|DATE|DATETIME\\b.*|TIMESTAMP\\b.*|TIME\\b.*|YEAR\\b.*|BIT\\b.*|BOOL(EAN)?\\b.*");
    }

    /** The declared length of a CHAR/VARCHAR column, else {@link #EXPRESSION_TEXT_LENGTH}. */
    private int textLength(Expression e) {
        if (e instanceof Column c) {
            ColumnDef def = sources.columnOf(c);
            if (def != null) {
                var m = java.util.regex.Pattern.compile("(?i)^\\s*(?:NATIONAL\\s+)?(?:VAR)?CHAR(?:ACTER)?\\s*\\(\\s*(\\d+)").matcher(def.typeName());
                if (m.find()) return Math.max(1, Integer.parseInt(m.group(1)));
            }
        }
        return EXPRESSION_TEXT_LENGTH;
    }

    /** The shard statement's select item that holds visible column {@code column}. */
    SelectItem<Expression> itemAt(int column) {
        int at = 0;
        for (var item : select.getSelectItems()) {
            if (item.getExpression() instanceof AllColumns || item.getExpression() instanceof AllTableColumns) {
                at += starColumns(item.getExpression()).size();
                continue;
            }
            if (at == column) {
                @SuppressWarnings("unchecked") var typed = (SelectItem<Expression>) item;
                return typed;
            }
            at++;
        }
        throw new IllegalStateException("no select item at column " + column);
    }

    /** The columns a {@code *} or {@code t.*} item stands for; null for a table the statement does not read ({@link #of} finds none). */
    private List<Column> starColumns(Object e) {
        if (e instanceof AllTableColumns t) return sources.star(KeyFinder.unquote(t.getTable().getName()));
        return sources.star();
    }
}
