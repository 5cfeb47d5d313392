package org.lutra.plan;

import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.Parenthesis;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;

import org.lutra.sql.PlanException;

import java.math.BigInteger;
import java.util.List;

/**
 * What a name or a position in GROUP BY, HAVING and ORDER BY stands for, resolved as MySQL (and
 * MariaDB) resolve it against the select list and the FROM tables. The clauses differ:
 * <ul>
 *   <li>a position ({@code 2}, also {@code (2)}, {@code +2}, {@code -(-2)} or {@code TRUE}: {@link Position}) is the
 *       select item at that place, in every clause;</li>
 *   <li>ORDER BY {@code n}: the select item named {@code n} (its alias, or the column of an
 *       unaliased column item), else the FROM column;</li>
 *   <li>GROUP BY {@code n}: the FROM column {@code n} when there is one, even where an alias of
 *       another item is also {@code n} (MySQL warns 1052 and takes the column); else the select item;</li>
 *   <li>HAVING {@code n}: the select item named {@code n}, unless a GROUP BY column of that name is
 *       another column (then that one, with the same warning); else the GROUP BY column.</li>
 * </ul>
 * Two column items called {@code n} that read different columns make {@code n} ambiguous (1052),
 * unless an expression item aliased {@code n} comes first. A column under parentheses or unary pluses
 * ({@code (k) AS n}) is a column item: MariaDB's parser drops them. The router merges by what these
 * resolve to, and tells the shards by position or by qualified column, never by a name the
 * shard's own select list could resolve otherwise.
 */
final class ItemNames {
    /** What a reference stands for: select item {@code item} (its expression), or, with item -1, an expression over the FROM tables. */
    record Resolved(Expression expression, int item) {}

    private final List<Expression> items;
    private final List<String> aliases;
    private final Sources sources;

    /** @param items the select list as the client sees it ({@code *} expanded); {@code aliases} null where an item has none */
    ItemNames(List<Expression> items, List<String> aliases, Sources sources) {
        this.items = items;
        this.aliases = aliases;
        this.sources = sources;
    }

    /** What an ORDER BY term stands for; not applicable: the statement's error (a position past the select list, an ambiguous name). */
    Attempt<Resolved> order(Expression e) {
        e = column(e);
        Position position = Position.of(e);
        if (position != null) return item(position, "ORDER BY");
        if (e instanceof Column c && c.getTable() == null) {
            var named = named(KeyFinder.unquote(c.getColumnName()), "ORDER BY");
            if (!(named instanceof Attempt.Planned<Integer>(Integer item))) return named.passUp();
            if (item >= 0) return Attempt.planned(new Resolved(items.get(item), item));
        }
        return Attempt.planned(new Resolved(e, -1));
    }

    /** What a GROUP BY term stands for; not applicable: the statement's error (as {@link #order}, or a group on an aggregate). */
    Attempt<Resolved> group(Expression e) {
        e = column(e);
        Resolved r;
        Position position = Position.of(e);
        if (position != null) {
            var atPosition = item(position, "GROUP BY");
            if (!(atPosition instanceof Attempt.Planned<Resolved>(Resolved item))) return atPosition;
            r = item;
        } else if (e instanceof Column c && c.getTable() == null) {
            var named = named(KeyFinder.unquote(c.getColumnName()), "GROUP BY");
            if (!(named instanceof Attempt.Planned<Integer>(Integer item))) return named.passUp();
            if (item < 0 || sources.sourceOf(c) != null && !sameColumn(items.get(item), c)) return Attempt.planned(new Resolved(c, -1));
            r = new Resolved(items.get(item), item);
        } else {
            return Attempt.planned(new Resolved(e, -1));
        }
        if (AggregateFunctions.hasAggregate(r.expression())) {
            return Attempt.notApplicable(new PlanException("42000", 1056, "Can't group on '" + label(r.item()) + "'"));
        }
        return Attempt.planned(r);
    }

    /**
     * {@code e}'s column where it is one under unary pluses and parentheses ({@code + a}, {@code (a)}): MariaDB's parser
     * drops them, so such a term names the column as a bare one does (a GROUP BY column HAVING finds, say); else {@code e}.
     */
    private static Expression column(Expression e) {
        Expression x = e;
        while (true) {
            if (x instanceof Parenthesis p) x = p.getExpression();
            else if (x instanceof ParenthesedExpressionList<?> l && l.size() == 1 && l.getFirst() instanceof Expression inner) x = inner;
            else if (x instanceof SignedExpression s && s.getSign() == '+') x = s.getExpression();
            else return x instanceof Column ? x : e;
        }
    }

    /**
     * A column named in HAVING outside an aggregate: the select item or the GROUP BY key it stands
     * for ({@code groupKeys} as {@link #group} resolved them), or null where it names neither; not applicable: an
     * ambiguous name (the statement's error).
     */
    Attempt<Resolved> having(Column c, List<Expression> groupKeys) {
        int item;
        if (c.getTable() == null) {
            var several = groupColumnsNamed(KeyFinder.unquote(c.getColumnName()), groupKeys);
            if (several instanceof Attempt.NotApplicable<?>) return several.passUp();
            var named = named(KeyFinder.unquote(c.getColumnName()), "HAVING");
            if (!(named instanceof Attempt.Planned<Integer>(Integer found))) return named.passUp();
            item = found;
        } else {
            item = -1;
            for (int i = 0; i < items.size() && item < 0; i++) if (sameColumn(items.get(i), c)) item = i;
        }
        Column key = null;
        for (Expression g : groupKeys) {
            if (column(g) instanceof Column k && (c.getTable() == null
                    ? KeyFinder.unquote(k.getColumnName()).equalsIgnoreCase(KeyFinder.unquote(c.getColumnName())) : sameColumn(k, c))) {
                key = k;
                break;
            }
        }
        if (item >= 0 && (key == null || sameColumn(items.get(item), key))) return Attempt.planned(new Resolved(items.get(item), item));
        return Attempt.planned(key == null ? null : new Resolved(key, -1));
    }

    /**
     * Whether the GROUP BY keys named {@code name} are one: a key is named so as a FROM column, or as a select item aliased
     * {@code name} (GROUP BY 2, GROUP BY a beside {@code a AS name}, GROUP BY a + 0 beside {@code a + 0 AS name}); two
     * different ones make a HAVING name ambiguous (1052), as in MariaDB.
     */
    private Attempt<Boolean> groupColumnsNamed(String name, List<Expression> groupKeys) {
        Expression first = null;
        for (Expression g : groupKeys) {
            boolean named = column(g) instanceof Column k && KeyFinder.unquote(k.getColumnName()).equalsIgnoreCase(name);
            boolean fromColumn = column(g) instanceof Column k && aliasedAsOther(KeyFinder.unquote(k.getColumnName()), k);
            int item = fromColumn ? -1 : itemOf(g);
            named |= item >= 0 && name.equalsIgnoreCase(aliases.get(item));
            if (!named) continue;
            if (first == null) first = g;
            else if (!same(first, g)) return ambiguous(name, "HAVING");
        }
        return Attempt.planned(true);
    }

    /**
     * Whether a select item other than the column {@code c} is aliased {@code name}: a GROUP BY {@code name} then stands for
     * the FROM column (MariaDB warns that it is ambiguous), not for a select item of that column aliased otherwise.
     */
    private boolean aliasedAsOther(String name, Column c) {
        for (int i = 0; i < items.size(); i++) {
            if (name.equalsIgnoreCase(aliases.get(i)) && !sameColumn(items.get(i), c)) return true;
        }
        return false;
    }

    /**
     * The select item a GROUP BY key is, named as that item is: the item itself where the key came from its position or its
     * name, else the first item that is the same term (MariaDB matches a GROUP BY column with the select list's first item
     * of that column: beside {@code te.id, id AS s}, GROUP BY te.id is named id, not s); -1 for none.
     */
    private int itemOf(Expression g) {
        for (int i = 0; i < items.size(); i++) if (items.get(i) == g) return i;
        for (int i = 0; i < items.size(); i++) if (same(items.get(i), g)) return i;
        return -1;
    }

    /** Whether two terms are one: the same column, or expressions written alike. */
    private boolean same(Expression a, Expression b) {
        a = column(a);
        b = column(b);
        if (a instanceof Column ca && b instanceof Column cb) return sameColumn(ca, cb);
        return !(a instanceof Column) && !(b instanceof Column) && a.toString().equalsIgnoreCase(b.toString());
    }

    /**
     * Whether every column of {@code having} outside aggregates names a select item's column or a GROUP BY column on its own
     * ({@link #having}); not applicable: one names neither (refused: MariaDB's 1054 is the shards' to give), or is ambiguous.
     */
    Attempt<Boolean> havingColumns(Expression having, List<Expression> groupKeys) {
        for (Column c : AggregateFunctions.columnsOutsideAggregates(having)) {
            var named = having(c, groupKeys);
            if (!(named instanceof Attempt.Planned<Resolved>(Resolved r))) return named.passUp();
            if (r == null) return Attempt.notApplicable(PlanException.unsupported("the column " + c + " in HAVING beside ORDER BY over several partitions yet"));
        }
        return Attempt.planned(true);
    }

    private Attempt<Resolved> item(Position position, String clause) {
        BigInteger p = position.value();
        if (p.signum() < 1 || p.compareTo(BigInteger.valueOf(items.size())) > 0) {
            return Attempt.notApplicable(new PlanException("42S22", 1054, "Unknown column '" + position.name() + "' in '" + clause + "'"));
        }
        return Attempt.planned(new Resolved(items.get(p.intValue() - 1), p.intValue() - 1));
    }

    /**
     * A term of GROUP BY or ORDER BY that MariaDB reads as a select-list position, its value and the
     * name its error gives it: an integer literal (up to 2^64 - 1; a longer one is a decimal, a
     * constant), TRUE (1) or FALSE (0), also in parentheses and under unary signs, which MariaDB's
     * parser folds into the literal ({@code -(-1)} is position 1; a negated one is named '???').
     */
    record Position(BigInteger value, String name) {
        private static final BigInteger MAX = BigInteger.TWO.pow(64).subtract(BigInteger.ONE);

        static Position of(Expression e) {
            boolean minus = false;
            boolean negated = false;
            while (true) {
                if (e instanceof Parenthesis p) e = p.getExpression();
                else if (e instanceof ParenthesedExpressionList<?> l && l.size() == 1 && l.getFirst() instanceof Expression x) e = x;
                else if (e instanceof SignedExpression s && (s.getSign() == '+' || s.getSign() == '-')) {
                    if (s.getSign() == '-') {
                        minus = true;
                        negated = !negated;
                    }
                    e = s.getExpression();
                } else break;
            }
            BigInteger value;
            String name;
            if (e instanceof BooleanValue b) {
                value = b.getValue() ? BigInteger.ONE : BigInteger.ZERO;
                name = b.getValue() ? "TRUE" : "FALSE";
            } else if (e instanceof LongValue v) {
                name = v.getStringValue();
                try {
                    value = new BigInteger(name);
                } catch (NumberFormatException notDecimalDigits) {
                    return null;
                }
                if (value.abs().compareTo(MAX) > 0) return null;
            } else {
                return null;
            }
            if (negated) value = value.negate();
            return new Position(value, minus || value.signum() < 0 ? "???" : name);
        }
    }

    /**
     * The select item an unqualified name stands for, or -1: an item whose name (alias, or an unaliased
     * column's name) it is; else a column item that reads a column of that name under another alias. Not applicable:
     * the name is ambiguous ({@link #ambiguous}).
     */
    private Attempt<Integer> named(String name, String clause) {
        int found = -1;
        int behindAlias = -1;
        boolean severalBehindAlias = false;
        for (int i = 0; i < items.size(); i++) {
            Expression e = column(items.get(i)); // (k) AS s is a column item to MariaDB, whose parser drops the parentheses
            String alias = aliases.get(i);
            if (e instanceof Column c) {
                String columnName = KeyFinder.unquote(c.getColumnName());
                if (name.equalsIgnoreCase(alias != null ? alias : columnName)) {
                    if (found >= 0 && !sameColumn(items.get(found), c)) return ambiguous(name, clause);
                    if (found < 0) found = i;
                } else if (name.equalsIgnoreCase(columnName)) {
                    if (behindAlias >= 0 && !sameColumn(items.get(behindAlias), c)) severalBehindAlias = true;
                    if (behindAlias < 0) behindAlias = i;
                }
            } else if (name.equalsIgnoreCase(alias)) {
                return Attempt.planned(i); // an expression item of that name ends the search (MySQL takes it)
            }
        }
        if (found >= 0) return Attempt.planned(found);
        if (severalBehindAlias) return ambiguous(name, clause);
        return Attempt.planned(behindAlias);
    }

    private static <T> Attempt<T> ambiguous(String name, String clause) {
        return Attempt.notApplicable(new PlanException("23000", 1052, "Column '" + name + "' in " + clause + " is ambiguous"));
    }

    /** Whether {@code e} is a column item reading the same column of the same table as {@code c}. */
    private boolean sameColumn(Expression e, Column c) {
        if (!(column(e) instanceof Column x)) return false;
        var s = sources.sourceOf(x);
        return s != null && s == sources.sourceOf(c) && KeyFinder.unquote(x.getColumnName()).equalsIgnoreCase(KeyFinder.unquote(c.getColumnName()));
    }

    private String label(int item) {
        return item >= 0 && aliases.get(item) != null ? aliases.get(item) : String.valueOf(items.get(item));
    }
}
