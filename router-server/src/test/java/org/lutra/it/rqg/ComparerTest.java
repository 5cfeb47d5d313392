package org.lutra.it.rqg;

import org.junit.jupiter.api.Test;

import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lutra.it.rqg.Comparer.Verdict.*;

/** The differential judge must be able to say "wrong": every kind of difference it is meant to see. */
class ComparerTest {
    private static Outcome.Rows rows(List<String> labels, int type, String... rows) {
        var out = new ArrayList<List<String>>();
        for (String r : rows) out.add(Arrays.stream(r.split("\\|", -1)).map(v -> v.equals("NULL") ? null : v).toList());
        return new Outcome.Rows(labels, labels.stream().map(l -> type).toList(), out);
    }

    @Test
    void sameRowsInAnotherOrderAreTheSameUnlessOrdered() {
        var a = rows(List.of("id", "s"), Types.VARCHAR, "1|x", "2|NULL");
        var b = rows(List.of("id", "s"), Types.VARCHAR, "2|NULL", "1|x");
        assertEquals(SAME, Comparer.compare(a, b, false));
        assertEquals(DIFFERENT_ROWS, Comparer.compare(a, b, true));
    }

    @Test
    void differencesAreFailures() {
        var ref = rows(List.of("id", "d"), Types.DECIMAL, "1|2.50", "1|2.50");
        assertEquals(DIFFERENT_ROWS, Comparer.compare(rows(List.of("id", "d"), Types.DECIMAL, "1|2.50"), ref, false), "a lost duplicate");
        assertEquals(DIFFERENT_ROWS, Comparer.compare(rows(List.of("id", "d"), Types.DECIMAL, "1|2.5", "1|2.5"), ref, false), "DECIMAL scale");
        assertEquals(DIFFERENT_COLUMNS, Comparer.compare(rows(List.of("id", "D"), Types.DECIMAL, "1|2.50", "1|2.50"), ref, false));
        assertEquals(DIFFERENT_COLUMNS, Comparer.compare(rows(List.of("id"), Types.DECIMAL, "1", "1"), ref, false));
        assertEquals(LUTRA_ERROR, Comparer.compare(new Outcome.Error("42S02", 1146, "no"), ref, false));
        assertEquals(ONLY_LUTRA_ANSWERS, Comparer.compare(ref, new Outcome.Error("42000", 1064, "syntax"), false));
        assertEquals(DIFFERENT_ROWS, Comparer.compare(new Outcome.Changed(1, ref), new Outcome.Changed(2, ref), false));
    }

    @Test
    void refusalsAndSharedErrorsAreNotFailures() {
        var ref = rows(List.of("n"), Types.INTEGER, "1");
        assertEquals(REFUSED, Comparer.compare(new Outcome.Error("42000", 1235, "Lutra does not support x yet"), ref, false));
        assertEquals(SAME, Comparer.compare(new Outcome.Error("42000", 1064, "a"), new Outcome.Error("42000", 1064, "b"), false));
        // a backend's own "not supported yet" carries the same state and number as a refusal: it is an error both give
        var backends = new Outcome.Error("42000", 1235, "This version of MariaDB doesn't yet support 'LIMIT & IN/ALL/ANY/SOME subquery'");
        assertEquals(SAME, Comparer.compare(backends, backends, false));
    }

    @Test
    void doublesAgreeToARelativeTolerance() {
        var ref = rows(List.of("x"), Types.DOUBLE, "0.30000000000000004");
        assertEquals(SAME, Comparer.compare(rows(List.of("x"), Types.DOUBLE, "0.3"), ref, false));
        assertEquals(DIFFERENT_ROWS, Comparer.compare(rows(List.of("x"), Types.DOUBLE, "0.3001"), ref, false));
    }

    @Test
    void shrinkingKeepsTheTieBreakOfAnOrderWithLimit() {
        var q = new Query.Select(null, false, List.of(item("id"), item("a")), "th", List.of(), List.of(Expr.leaf("a > 1"), Expr.leaf("s IS NULL")),
                List.of(), List.of(), List.of("a DESC", "id"), 1, "3", java.util.Set.of("scan"));
        for (Query s : q.shrinks()) {
            if (s instanceof Query.Select sel && sel.limit() != null) assertEquals("id", sel.orderBy().getLast(), s.sql());
        }
        var minimal = Shrinker.shrink(q, c -> new Shrinker.Shrunk(c, c.sql().contains("a > 1") ? DIFFERENT_ROWS : SAME, null, null), s -> "");
        assertEquals("SELECT a FROM th WHERE a > 1", minimal.query().sql());
    }

    @Test
    void shrinkingReducesExpressionsToTheOperandThatFails() {
        Expr e = Expr.of("$ + $", Expr.of("- $", Expr.leaf("k")), Expr.of("COALESCE($, $)", Expr.leaf("a"), Expr.aggregate("SUM($)", Expr.leaf("d"))));
        var q = new Query.Select(null, true, List.of(new Query.Item(e, "k")), "th AS cor0", List.of(), List.of(), List.of(Expr.leaf("a")), List.of(),
                List.of(), 0, null, java.util.Set.of("distinct-group-by"));
        assertEquals("SELECT DISTINCT - k + COALESCE(a, SUM(d)) AS k FROM th AS cor0 GROUP BY a", q.sql());
        var minimal = Shrinker.shrink(q, c -> new Shrinker.Shrunk(c, c.sql().contains("SUM(d)") ? DIFFERENT_ROWS : SAME, null, null), s -> "");
        assertEquals("SELECT SUM(d) FROM th AS cor0", minimal.query().sql(), "an aggregate is kept whole; the rest goes");
    }

    private static Query.Item item(String sql) {
        return new Query.Item(Expr.leaf(sql), null);
    }
}
