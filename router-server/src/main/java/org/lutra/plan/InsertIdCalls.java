package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;

import org.lutra.sql.Guards;
import org.lutra.sql.PlanException;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code UPDATE t SET c = LAST_INSERT_ID(expr) ...}, the counter idiom ({@code SET id = LAST_INSERT_ID(id + 1)},
 * then {@code SELECT LAST_INSERT_ID()}). A backend evaluates a SET value once per row its WHERE
 * matches, so when it is the whole value the backend's OK packet tells exactly what the session's
 * LAST_INSERT_ID() became (the executor reads it there). Anywhere else — WHERE, inside another
 * expression, other statements — the guards still refuse it: whether and how often it ran is unknown.
 */
final class InsertIdCalls {
    private InsertIdCalls() {}

    /**
     * Whether a SET value of {@code update} is a LAST_INSERT_ID(expr) call; if so the statement's text
     * with those calls replaced by their arguments passes the session-state guard, or this refuses.
     */
    @SuppressWarnings("unchecked")
    static boolean inSet(Update update) throws PlanException {
        record Swap(List<Expression> values, int index, Expression call) {}
        var swaps = new ArrayList<Swap>();
        for (UpdateSet set : update.getUpdateSets()) {
            var values = (List<Expression>) set.getValues();
            for (int i = 0; i < values.size(); i++) {
                if (values.get(i) instanceof Function f && f.getName() != null && f.getName().equalsIgnoreCase("LAST_INSERT_ID")
                        && f.getParameters() != null && f.getParameters().size() == 1) {
                    swaps.add(new Swap(values, i, f));
                }
            }
        }
        if (swaps.isEmpty()) return false;
        String rest;
        try {
            for (var s : swaps) s.values().set(s.index(), (Expression) ((Function) s.call()).getParameters().getFirst());
            rest = update.toString();
        } finally {
            for (var s : swaps) s.values().set(s.index(), s.call());
        }
        Guards.requireNoSessionState(rest);
        return true;
    }
}
