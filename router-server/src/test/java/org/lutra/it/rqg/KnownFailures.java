package org.lutra.it.rqg;

import org.lutra.it.rqg.Shrinker.Shrunk;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The one list of wrong answers and errors that are known and being fixed: a generated statement
 * that fails in one of these ways counts under its class and does not fail the run; any other
 * failure does. Each class names its signature as narrowly as the failure allows (the statement's
 * shape and what Lutra answered against MariaDB), and gives a statement that reproduces it, which
 * {@code RandomQueryIT.knownFailuresStillReproduce} runs: once a fix lands, that test says which
 * class to delete here.
 */
public final class KnownFailures {
    /**
     * A known failure: its name, a statement over {@link RqgSchema}'s tables that shows it (null where
     * this run's schema cannot show it), and its signature.
     */
    public record Known(String name, Function<RqgSchema, String> reproducer, Predicate<Failure> matches) {
        Known(String name, String reproducer, Predicate<Failure> matches) {
            this(name, s -> reproducer, matches);
        }
    }

    /**
     * A failing statement, its outcome on both sides, the run's schema, and a way to ask the reference
     * MariaDB more (null where there is none).
     */
    public record Failure(Shrunk shrunk, RqgSchema schema, Function<String, Outcome> reference) {
        String sql() {
            return shrunk.query().sql();
        }

        String upper() {
            return sql().toUpperCase(Locale.ROOT);
        }

        Comparer.Verdict verdict() {
            return shrunk.verdict();
        }

        /** Lutra's error message, or "" when it answered. */
        String lutraError() {
            return shrunk.lutra() instanceof Outcome.Error e ? e.toString() : "";
        }

        int lutraCode() {
            return shrunk.lutra() instanceof Outcome.Error e ? e.code() : 0;
        }

        /** MariaDB's error message, or "" when it answered. */
        String referenceError() {
            return shrunk.reference() instanceof Outcome.Error e ? e.toString() : "";
        }

        int referenceCode() {
            return shrunk.reference() instanceof Outcome.Error e ? e.code() : 0;
        }

        boolean referenceAnswered() {
            return !(shrunk.reference() instanceof Outcome.Error);
        }

        Outcome.Rows lutraRows() {
            return shrunk.lutra() instanceof Outcome.Rows r ? r : null;
        }

        Outcome.Rows referenceRows() {
            return shrunk.reference() instanceof Outcome.Rows r ? r : null;
        }

        boolean has(String regex) {
            return Pattern.compile(regex, Pattern.CASE_INSENSITIVE | Pattern.DOTALL).matcher(sql()).find();
        }
    }

    private static final String GROUP_BY = "\\bGROUP\\s+BY\\b";


    /** Found by this generator, not fixed here (reported with their minimal statements). */
    private static final List<Known> FOUND = List.of(
            // documented (docs/sql.md, uncorrelated subqueries): over joins, with LIMIT, or beside IN/EXISTS subqueries, a scalar of
            // several rows raises 1242 at once; one MariaDB that evaluates it for no row answers
            // and the other way: MariaDB evaluates an uncorrelated scalar of several rows that orders or groups rows even when
            // no row matches (1242), the router evaluates a select-list scalar per row it returns
            new Known("scalar-subquery-of-several-rows-raises-1242-where-mariadb-does-not-or-the-other-way",
                    "SELECT t1.k FROM tc t1 JOIN te t2 ON t2.k = t1.id WHERE t2.id <> (SELECT sq.a FROM tr AS sq WHERE sq.a > 4)",
                    f -> f.verdict() == Comparer.Verdict.LUTRA_ERROR && f.lutraCode() == 1242 && f.referenceAnswered()
                            || f.verdict() == Comparer.Verdict.ONLY_LUTRA_ANSWERS && f.referenceCode() == 1242),
            // a statement materialized on a shard (CREATE TABLE ... SELECT, strict mode) turns warnings into errors
            new Known("materialized-statement-raises-warnings-as-errors",
                    s -> null, // needs a statement the router materializes: the generator finds them
                    f -> f.verdict() == Comparer.Verdict.LUTRA_ERROR && f.referenceAnswered()
                            && f.lutraError().matches("(?s).*\\[p\\d+@shard\\d+\\] Data truncation: Truncated incorrect.*")),
            // an UPDATE whose subquery was bound first: WHERE (s) AND FALSE no longer evaluates (s), which MariaDB does for
            // each row, failing in strict mode with 1292 (a text that is no number)
            new Known("write-with-bound-subquery-skips-mariadbs-strict-error",
                    "UPDATE tl SET a = 1 WHERE (s) AND (a IN (SELECT te.a FROM te))",
                    f -> f.verdict() == Comparer.Verdict.ONLY_LUTRA_ANSWERS && f.referenceCode() == 1292
                            && f.has("^\\s*(UPDATE|DELETE)\\b") && f.has("\\(\\s*SELECT\\b")),
            // JSQLParser 5.4 (the newest) does not read some of MySQL's grammar: SUBSTRING(k IN (-2.2), 1)
            new Known("parser-rejects-what-mariadb-reads",
                    "SELECT SUBSTRING(k IN (-2.2), 1) FROM th",
                    f -> f.verdict() == Comparer.Verdict.LUTRA_ERROR && f.lutraCode() == 1064 && f.lutraError().contains("Encountered:")
                            && f.referenceAnswered()),
            // a PRIMARY KEY without the routing column is unique per partition only: a taken id with another routing value is stored
            new Known("primary-key-without-routing-column-unique-per-partition",
                    "INSERT IGNORE INTO tr (id, k) VALUES (1, 0), (1, 99)",
                    f -> f.has("^\\s*(INSERT|REPLACE)\\b(\\s+IGNORE)?\\s+INTO\\s+(" + String.join("|", Signatures.routedByOtherThanKey(f.schema())) + ")\\b")),
            // an UPDATE that sets a crossing foreign key to a parent that does not exist fails with 1452 where its WHERE matches no
            // row (k = 8.5 over an INT column): MariaDB changes no row and checks nothing; the router's probe found a row to change
            new Known("update-setting-a-foreign-key-fails-1452-where-no-row-changes",
                    "UPDATE fr SET k = 5 WHERE k = 8.5",
                    f -> f.verdict() == Comparer.Verdict.LUTRA_ERROR && f.lutraCode() == 1452 && f.referenceAnswered() && f.has("^\\s*UPDATE\\b")),
            // a scalar subquery's value is bound into the outer statement as the client would see it (an AVG with 4 more
            // decimals), where MariaDB computes with all of its digits
            new Known("subquery-value-bound-with-fewer-digits",
                    "SELECT AVG((SELECT AVG(sq.a) FROM th AS sq)) FROM tp",
                    f -> f.verdict() == Comparer.Verdict.DIFFERENT_ROWS && f.has("\\(\\s*SELECT\\b") && Signatures.numbersClose(f)));

    /**
     * MariaDB 11.4's own wrong answers, which Lutra answers right: the statement's rows made DISTINCT in a derived table,
     * on MariaDB itself, are Lutra's answer.
     */
    private static final List<Known> MARIADBS = List.of(
            // DISTINCT with LIMIT ... OFFSET over rows that are all equal answers the one row where the offset passes it
            new Known("mariadb-distinct-of-equal-rows-ignores-offset",
                    "SELECT DISTINCT 'Date' AS s FROM th LIMIT 5 OFFSET 3",
                    f -> f.verdict() == Comparer.Verdict.DIFFERENT_ROWS && f.has("SELECT\\s+DISTINCT") && f.has("\\bOFFSET\\b")
                            && Signatures.mariaDbsDerivedDistinctIsLutras(f)),
            // DISTINCT over groups whose items are aggregates or expressions of them: duplicates kept (SELECT DISTINCT AVG(50)
            // ... GROUP BY a), or distinct values lost (SELECT DISTINCT COUNT(*) + 1 ... GROUP BY a answers one row)
            new Known("mariadb-distinct-over-aggregates-of-groups",
                    "SELECT DISTINCT AVG(50) FROM th GROUP BY a",
                    f -> f.verdict() == Comparer.Verdict.DIFFERENT_ROWS && f.has("SELECT\\s+DISTINCT") && f.has(GROUP_BY)
                            && Signatures.aggregates(f.sql()) && Signatures.mariaDbsDerivedDistinctIsLutras(f)));

    /**
     * A wrong answer MariaDB gives itself, which a metamorphic oracle sees through Lutra and on MariaDB alike (no
     * differential comparison can): its signature over the oracle's report, and a statement MariaDB alone answers
     * {@code wrong} while the bug lasts.
     */
    public record Shared(String name, String reproducer, String wrong, Predicate<String> matches) {}

    /** MariaDB's own wrong answers the oracles find (reported shared: Lutra answers as the MariaDB it runs on). */
    public static final List<Shared> SHARED = List.of(
            // x > ANY / x >= ALL ... (comparisons MariaDB rewrites to MIN/MAX subqueries) over a set holding NULL: the value is
            // NULL, but (x > ANY (...)) IS NULL is 0, so TLP's IS NULL part loses the rows; = ANY, IN and <> ALL are right
            new Shared("mariadb-any-all-comparison-is-null-answers-0",
                    "SELECT (1 > ANY (SELECT NULL UNION SELECT 5)) IS NULL", "0",
                    report -> report.startsWith("tlp") && Pattern.compile("(?i)(<|>|<=|>=)\\s*(ANY|SOME|ALL)\\s*\\(\\s*SELECT\\b").matcher(report).find()),
            // NOT ((x) IS TRUE) over a column of an outer join's NULL-complemented side is taken as rejecting NULL rows: the
            // LEFT JOIN becomes an inner join and the rows x is NULL for are lost from TLP's NOT part (1 expected, 0 answered)
            new Shared("mariadb-not-is-true-over-outer-join-rejects-null-rows",
                    "SELECT COUNT(*) FROM (SELECT 1 AS one) s LEFT JOIN (SELECT 1 AS x) t ON 1 = 0 WHERE NOT ((s.one != t.x) IS TRUE)", "0",
                    report -> report.startsWith("tlp") && Pattern.compile("(?i)\\b(LEFT|RIGHT)\\s+(OUTER\\s+)?JOIN\\b").matcher(report).find()));

    /** Every class, the narrowest signatures first. */
    /**
     * Known failures whose reproducer meets them only on some rows (the last digits lost depend on the values): a run whose
     * rows answer it right says so instead of calling the class fixed.
     */
    public static final java.util.Set<String> ROWS_DEPENDENT = java.util.Set.of("subquery-value-bound-with-fewer-digits",
            "update-setting-a-foreign-key-fails-1452-where-no-row-changes");

    public static final List<Known> ALL = java.util.stream.Stream.of(MARIADBS, FOUND).flatMap(List::stream).toList();

    /** The known class of a failure the oracles found on both sides ({@link Shared}), or null. */
    public static Shared classifyShared(String report) {
        for (Shared k : SHARED) if (k.matches().test(report)) return k;
        return null;
    }

    private KnownFailures() {}

    /** The known class {@code shrunk} fails in, or null for a failure nobody knows yet. */
    public static Known classify(Shrunk shrunk, RqgSchema schema, Function<String, Outcome> reference) {
        if (!shrunk.verdict().failed()) return null;
        var f = new Failure(shrunk, schema, reference);
        for (Known k : ALL) if (k.matches().test(f)) return k;
        return null;
    }

    public static Known named(String name) {
        return ALL.stream().filter(k -> k.name().equals(name)).findFirst().orElseThrow();
    }
}
