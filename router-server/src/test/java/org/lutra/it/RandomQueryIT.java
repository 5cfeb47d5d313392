package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.it.rqg.Comparer;
import org.lutra.it.rqg.KnownFailures;
import org.lutra.it.rqg.Oracles;
import org.lutra.it.rqg.Outcome;
import org.lutra.it.rqg.Query;
import org.lutra.it.rqg.QueryGenerator;
import org.lutra.it.rqg.RegressionCase;
import org.lutra.it.rqg.RqgSchema;
import org.lutra.it.rqg.Runner;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random statements of the whole query path ({@link QueryGenerator}: SQLancer's and sqllogictest's
 * shapes over {@link RqgSchema}'s tables, placed by hash, range, lookup with a SAME AS child and
 * replicated, partitions and bounds chosen by the seed) run through Lutra on four partitions and on
 * one plain MariaDB database holding the same rows; every answer must match (in order where ORDER BY
 * fixes it), or Lutra must refuse (42000/1235, {@code Refusal.is}). Beside this differential oracle,
 * the metamorphic ones ({@link Oracles}: TLP and NoREC) compare Lutra with itself. A failure in one of
 * {@link KnownFailures}' classes is counted and printed; any other is shrunk to a minimal statement
 * and fails the test; keep it in {@code src/test/resources/rqg/regressions.sql}, which
 * {@link #regressionCasesAnswerRight} replays.
 *
 * <p>System properties (Maven passes {@code -D} options on to the test JVM): {@code lutra.rqg.seed}
 * replays a run (a new seed each run by default, printed); {@code lutra.rqg.queries} is the size
 * (default 2,500 differential statements, a quarter as many while keys are replicated, a tenth as many
 * checks of each metamorphic oracle, about 7 statements each: with RandomSchemaIT's, about 6,000 statements per
 * {@code ./mvnw verify}; a longer run: {@code ./mvnw verify -Dlutra.rqg.queries=50000}, or the
 * {@code rqg-long} profile).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RandomQueryIT {
    private static final int QUERIES = Integer.getInteger("lutra.rqg.queries", 2500);

    private RqgDatabases db;
    private long seed;

    @BeforeAll
    void start(Shards shards) throws Exception {
        seed = Long.getLong("lutra.rqg.seed", System.nanoTime() % 1_000_000_000_000L);
        System.out.println("RandomQueryIT seed " + seed + " (replay with -Dlutra.rqg.seed=" + seed + ")");
        db = new RqgDatabases(shards, "rqg", new RqgSchema(seed));
        System.out.println(db.schema.ddl);
    }

    @AfterAll
    void stop() throws Exception {
        if (db != null) db.close();
    }

    @Test
    void generatedStatementsAnswerAsOneMariaDb() {
        differential("RandomQueryIT", QUERIES, seed);
    }

    /**
     * The same generator while some keys of tl, with their tc rows, live on several partitions
     * ({@code SET PARTITION = (p1, p3)}): scans, co-located joins and subqueries must leave the copies
     * out, and writes must reach every copy and count it once.
     */
    @Test
    void generatedStatementsWhileKeysAreReplicatedAnswerAsOneMariaDb() throws Exception {
        try (var st = db.lutra.createStatement()) {
            st.executeUpdate("ALTER TABLE tl SET PARTITION = (p1, p3) WHERE id % 9 = 0");
            st.executeUpdate("ALTER TABLE tl SET PARTITION = (p2, p0, p1) WHERE id % 9 = 4");
            differential("RandomQueryIT (replicated keys)", QUERIES / 4, seed + 1);
        } finally {
            try (var st = db.lutra.createStatement()) {
                st.executeUpdate("ALTER TABLE tl SET PARTITION = p0 WHERE id % 9 = 0 OR id % 9 = 4");
            }
        }
    }

    private void differential(String name, int count, long seed) {
        var runner = db.runner();
        var generator = new QueryGenerator(seed, db.schema);
        long t0 = System.nanoTime();
        for (int i = 0; i < count; i++) runner.check("differential", generator.next());
        System.out.printf("%s: %d statements in %.1f s (seed %d)%n%s%s", name, count, (System.nanoTime() - t0) / 1e9, seed, runner.summary(),
                runner.counts());
        assertGood(runner, "seed " + seed);
    }

    /**
     * TLP and NoREC over generated statements, every statement through Lutra: a wrong answer that one
     * MariaDB gives as well (so no differential test sees it) breaks them too.
     */
    @Test
    void metamorphicOraclesHoldThroughLutra() {
        var runner = db.runner();
        var oracles = new Oracles(db.lutra, db.reference, runner);
        var generator = new QueryGenerator(seed + 2, db.schema);
        var random = new java.util.Random(seed + 2);
        long t0 = System.nanoTime();
        for (int i = 0; i < QUERIES / 10; i++) {
            var base = generator.nextForOracles();
            boolean grouped = !base.groupBy().isEmpty() || base.items().stream().anyMatch(it -> it.expr().hasAggregate());
            if (grouped) {
                oracles.tlp(base, generator.havingPredicateFor(base));
            } else if (random.nextInt(3) == 0) {
                oracles.tlpAggregate(base, List.of("MIN", "MAX", "SUM", "COUNT").get(random.nextInt(4)), generator.numberFor(base),
                        generator.predicateFor(base));
            } else {
                oracles.tlp(base, generator.predicateFor(base));
            }
            var from = generator.nextForOracles();
            oracles.norec(from, generator.predicateFor(from));
        }
        System.out.printf("RandomQueryIT oracles: %d checks in %.1f s (seed %d)%n%s%s", oracles.checked(), (System.nanoTime() - t0) / 1e9,
                seed + 2, oracles, runner.summary());
        assertTrue(runner.newFailures().isEmpty(), runner.newFailures().size() + " new failures (seed " + (seed + 2) + "):\n"
                + String.join("\n", runner.newFailures()));
    }

    @Test
    void regressionCasesAnswerRight() throws Exception {
        var runner = db.runner();
        var cases = RegressionCase.load("/rqg/regressions.sql");
        var failures = new ArrayList<String>();
        var known = new ArrayList<String>();
        for (var c : cases) {
            var result = runner.run(c.query());
            if (!result.verdict().failed()) continue;
            var k = runner.classify(result);
            (k == null ? failures : known).add(c + "\n  " + result.verdict() + (k == null ? "" : " (known: " + k.name() + ")")
                    + "\n  lutra:   " + result.lutra() + "\n  mariadb: " + result.reference());
        }
        if (!known.isEmpty()) System.out.println("Regression cases failing in known ways:\n" + String.join("\n", known));
        System.out.println("RandomQueryIT: " + cases.size() + " regression cases replayed (seed " + seed + ")");
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    /**
     * Every class of {@link KnownFailures} must still fail its reproducer in its own way: when a fix
     * makes one answer right, its class goes (the reproducer stays, in {@code rqg/regressions.sql}).
     */
    @Test
    void knownFailuresStillReproduce() {
        var runner = db.runner();
        var fixed = new ArrayList<String>();
        for (var k : KnownFailures.ALL) {
            String sql = k.reproducer().apply(db.schema);
            if (sql == null) {
                System.out.println("known failure " + k.name() + ": no reproducer on this run's schema (seed " + seed + ")");
                continue;
            }
            Query q = sql.matches("(?is)\\s*(UPDATE|DELETE|INSERT).*") ? RqgDatabases.write(sql) : new Query.Verbatim(sql, false, Set.of("known"));
            var result = runner.run(q);
            var found = runner.classify(result);
            if (found == null && result.verdict() == Comparer.Verdict.SAME && KnownFailures.ROWS_DEPENDENT.contains(k.name())) {
                System.out.println("known failure " + k.name() + ": this run's rows answer its reproducer right (seed " + seed + ")");
                continue;
            }
            if (found == null || !found.name().equals(k.name())) {
                fixed.add(k.name() + ": " + sql + "\n  " + result.verdict() + "\n  lutra:   " + result.lutra() + "\n  mariadb: "
                        + result.reference());
            }
        }
        for (var k : KnownFailures.SHARED) {
            // MariaDB's own wrong answers the oracles see on both sides: the reproducer runs on MariaDB alone
            if (!(Outcome.query(db.reference, k.reproducer()) instanceof Outcome.Rows r) || r.rows().size() != 1
                    || !k.wrong().equals(r.rows().getFirst().getFirst())) {
                fixed.add(k.name() + ": " + k.reproducer() + "\n  mariadb: " + Outcome.query(db.reference, k.reproducer()) + " (wrong: " + k.wrong() + ")");
            }
        }
        assertTrue(fixed.isEmpty(), "known failures that no longer fail as known (delete their classes from KnownFailures, keep the "
                + "statements in rqg/regressions.sql):\n" + String.join("\n", fixed));
    }

    /**
     * Select items holding comments, on one partition and across several, in select-list subqueries too, some over several
     * lines; items under unary pluses (MariaDB labels {@code + a} as {@code a}, {@code + 40} as {@code 40}), unnamed ones
     * ({@code ''}) and long ones (cut at 255 characters).
     */
    static final List<String> LABELS = List.of(
            "SELECT + a, + 40, + NULL, + (a), + 4.50, +(a + 1), + a + 1, (FALSE), + TRUE FROM th WHERE id = 3",
            "SELECT + a, + 40 FROM th",
            "SELECT + a, COUNT(*) FROM th GROUP BY a",
            "SELECT DISTINCT + a FROM th",
            "SELECT '', '' AS x, \"\" FROM th WHERE id = 3",
            // longer than 255 characters: MariaDB cuts the label there, an alias that long was the shards' 1059
            "SELECT CASE WHEN a > (SELECT MIN(sq.a) FROM tp AS sq)" + " AND a <> 5".repeat(30) + " THEN 1 ELSE 0 END FROM th WHERE id = 3",
            "SELECT SUM(CASE WHEN a > (SELECT MIN(sq.a) FROM tp AS sq)" + " AND a <> 5".repeat(30) + " THEN 1 ELSE 0 END) FROM th",
            "SELECT SUM(CASE WHEN a > 1" + "  AND a <> 5".repeat(30) + " THEN 1 ELSE 0 END), COUNT(*) FROM th GROUP BY a",
            "SELECT a /* c */ + 1, id FROM th WHERE id = 3",
            "SELECT /* lead */ a+1, /* lead2 */ id FROM th WHERE id = 3",
            "SELECT a+1 /* trailing */, id FROM th WHERE id = 3",
            "SELECT abs(a /* c */ - 5), COUNT(*) FROM th GROUP BY abs(a /* c */ - 5)",
            "SELECT id, (SELECT MAX(a) FROM tp WHERE s = 'x' /* c */) FROM th WHERE id = 3",
            "SELECT id, (SELECT MAX(a) /* m */ FROM tp) AS m, (SELECT COUNT(*) FROM tp WHERE a > 3 /* c */) FROM th WHERE id < 9 ORDER BY id",
            "SELECT id, (SELECT /* x */ COUNT(*) FROM tp) FROM th ORDER BY id",
            "SELECT id, /* s */ (SELECT MIN(a) FROM th) FROM tr ORDER BY id",
            "SELECT a # hash\n+ 1, id FROM th WHERE id = 3",
            "SELECT a -- dash\n+ 1, id FROM th WHERE id = 3",
            "SELECT a+/*! 1 + */ 2, id FROM th WHERE id = 3",
            "SELECT COUNT(*) /* n */, SUM(a) /* s */ FROM th",
            "SELECT 'x' /* c */, 1 /* one */, id FROM th WHERE id = 3",
            "SELECT a\n  + 1, id FROM th WHERE id = 3",
            "SELECT id, (SELECT COUNT(*)\n FROM tp /* two\nlines */) FROM th ORDER BY id");

    @Test
    void labelsAreMariaDbs() {
        var mismatches = new ArrayList<String>();
        for (String sql : LABELS) {
            Outcome l = Outcome.query(db.lutra, sql);
            Outcome r = Outcome.query(db.reference, sql);
            if (r instanceof Outcome.Error) mismatches.add(sql + "\n    mariadb: " + r);
            else if (l instanceof Outcome.Error) mismatches.add(sql + "\n    lutra: " + l);
            else if (!((Outcome.Rows) l).labels().equals(((Outcome.Rows) r).labels())) {
                mismatches.add(sql + "\n    lutra " + ((Outcome.Rows) l).labels() + " / mariadb " + ((Outcome.Rows) r).labels());
            }
        }
        assertTrue(mismatches.isEmpty(), String.join("\n", mismatches));
    }

    /** No new failure, and a generator whose statements MariaDB itself mostly rejects would prove nothing. */
    static void assertGood(Runner runner, String seed) {
        int rejected = runner.referenceErrors() + runner.invalid();
        assertTrue(rejected <= runner.statements() / 5, rejected + " of " + runner.statements() + " generated statements fail on MariaDB itself");
        assertTrue(runner.newFailures().isEmpty(), runner.newFailures().size() + " new failures (" + seed + "):\n"
                + String.join("\n", runner.newFailures()));
    }
}
