package org.lutra.it.rqg;

import org.junit.jupiter.api.Test;

import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The known-failure classes must be narrow: each takes its own shape, and a failure of another shape stays new. */
class KnownFailuresTest {
    private static Outcome.Rows rows(String... rows) {
        var out = new ArrayList<List<String>>();
        for (String r : rows) out.add(Arrays.stream(r.split("\\|", -1)).map(v -> v.equals("NULL") ? null : v).toList());
        int width = out.isEmpty() ? 1 : out.getFirst().size();
        var labels = new ArrayList<String>();
        for (int i = 0; i < width; i++) labels.add("c" + i);
        return new Outcome.Rows(labels, labels.stream().map(l -> Types.VARCHAR).toList(), out);
    }

    private static String classOf(String sql, Outcome lutra, Outcome reference) {
        var shrunk = new Shrinker.Shrunk(new Query.Verbatim(sql, false, Set.of()), Comparer.compare(lutra, reference, false), lutra, reference);
        var k = KnownFailures.classify(shrunk, null, null);
        return k == null ? null : k.name();
    }

    @Test
    void distinctOverGroupByTakesOnlyDuplicatesOfTheRightRows() {
        assertEquals("distinct-over-group-by-not-merged", classOf("SELECT DISTINCT 0 FROM th GROUP BY id", rows("0", "0"), rows("0")));
        assertNull(classOf("SELECT DISTINCT 0 FROM th GROUP BY id", rows("0", "1"), rows("0")), "a row MariaDB does not have is new");
        assertNull(classOf("SELECT DISTINCT 0 FROM th", rows("0", "0"), rows("0")), "no GROUP BY: new");
    }

    @Test
    void aNullWhereMariaDbHasAValueIsKnownOnlyBesideAnAggregate() {
        assertEquals("aggregate-inside-a-function-answers-null", classOf("SELECT COALESCE(SUM(a), 0) FROM tl", rows("NULL"), rows("84")));
        assertEquals("constant-beside-aggregate-over-no-rows", classOf("SELECT -71, SUM(a) FROM th WHERE FALSE", rows("NULL|NULL"), rows("-71|NULL")));
        assertNull(classOf("SELECT -71, SUM(a) FROM th WHERE FALSE", rows("-70|NULL"), rows("-71|NULL")), "another value is new");
        assertNull(classOf("SELECT a FROM th", rows("NULL"), rows("84")), "no aggregate: new");
    }

    @Test
    void errorsAreKnownByTheirMessageAndShape() {
        var internal = new Outcome.Error("HY000", 0, "internal router error (incident 1a2b [java.lang.RuntimeException: 'Invalid column name: WEIGHT_STRING(a + 1 AS CHAR(512))'])");
        assertEquals("weight-string-of-expression-internal-error", classOf("SELECT DISTINCT a + 1 FROM th", internal, rows("1")));
        var otherInternal = new Outcome.Error("HY000", 0, "internal router error (incident 1a2b [java.lang.NullPointerException])");
        assertNull(classOf("SELECT DISTINCT a + 1 FROM th", otherInternal, rows("1")), "another internal error is new");
        assertNull(classOf("SELECT DISTINCT a + 1 FROM th", otherInternal, new Outcome.Error("42000", 1064, "syntax")),
                "an internal error is a failure even where MariaDB fails too, and new");
        var parse = new Outcome.Error("42000", 1064, "You have an error in your SQL syntax: Encountered: \"-\"");
        assertNull(classOf("SELECT DISTINCT + - a FROM th", parse, rows("1")), "a statement the parser does not read is new");
    }

    @Test
    void numbersThatDifferInTheirLastDigitsAreKnownOnlyOverAvg() {
        assertEquals("arithmetic-over-merged-avg-loses-digits", classOf("SELECT AVG(a) / AVG(-5.5) FROM th", rows("-0.01690909"), rows("-0.01691332")));
        assertNull(classOf("SELECT AVG(a) / AVG(-5.5) FROM th", rows("-0.02690909"), rows("-0.01691332")), "a value far off is new");
        assertNull(classOf("SELECT SUM(a) / 7 FROM th", rows("-0.01690909"), rows("-0.01691332")), "no AVG: new");
    }

    @Test
    void signaturesReadTheStatement() {
        assertTrue(Signatures.aggregateInsideFunction("SELECT IFNULL(MAX(a), 0) FROM th"));
        assertFalse(Signatures.aggregateInsideFunction("SELECT ABS(a), SUM(b) FROM th"));
        assertTrue(Signatures.groupsByShadowingAlias("SELECT COUNT(*) AS id FROM th GROUP BY id"));
        assertFalse(Signatures.groupsByShadowingAlias("SELECT COUNT(*) AS c0 FROM th GROUP BY c0"));
        assertEquals(List.of("SELECT a FROM th", "SELECT b FROM tr WHERE (x) IN (SELECT 1 UNION SELECT 2)"),
                Signatures.branches("(SELECT a FROM th) UNION ALL (SELECT b FROM tr WHERE (x) IN (SELECT 1 UNION SELECT 2)) ORDER BY 1"));
        assertEquals("SELECT a FROM th WHERE  AND b", Signatures.withoutSubqueries("SELECT a FROM th WHERE (SELECT 1) AND b"));
    }
}
