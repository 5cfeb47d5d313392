package org.lutra.it.rqg;

import org.lutra.it.rqg.Shrinker.Shrunk;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs generated statements through Lutra and on the reference MariaDB, judges each, and keeps
 * the account: a tally per feature, known failures per class (with the first one shrunk), and
 * new failures shrunk to a minimal statement. A new failure fails the run; a known one does not.
 */
public final class Runner {
    private static final int SHRUNK_PER_KIND = 2;

    private final Connection lutra;
    /** Connector/J at the router's MySQL listener (null: none): a quarter of the reads Lutra answers right run through it too. */
    private final Connection listener;
    private final Connection reference;
    private final RqgSchema schema;
    private final Tally tally = new Tally();
    private final Map<String, Integer> knownCounts = new LinkedHashMap<>();
    private final Map<String, String> knownExamples = new LinkedHashMap<>();
    private final Map<String, Integer> newKinds = new HashMap<>();
    private final List<String> newFailures = new ArrayList<>();
    private int statements;
    private int referenceErrors;
    private int invalid;
    private int answered;
    private int refused;
    private int known;

    private int reads;
    private int listenerReads;

    public Runner(Connection lutra, Connection reference, RqgSchema schema) {
        this(lutra, null, reference, schema);
    }

    public Runner(Connection lutra, Connection listener, Connection reference, RqgSchema schema) {
        this.lutra = lutra;
        this.listener = listener;
        this.reference = reference;
        this.schema = schema;
    }

    /** The known class of a failure, or null for a new one. */
    public KnownFailures.Known classify(Shrunk s) {
        return KnownFailures.classify(s, schema, sql -> Outcome.query(reference, sql));
    }

    public Shrunk run(Query q) {
        String sql = q.sql();
        Outcome l, r;
        if (q instanceof Query.Dml dml) {
            l = Outcome.change(lutra, sql, dml.table());
            r = Outcome.change(reference, sql, dml.table());
        } else {
            l = Outcome.query(lutra, sql);
            r = Outcome.query(reference, sql);
        }
        return new Shrunk(q, Comparer.compare(l, r, q.ordered()), l, r);
    }

    /**
     * The read {@code q} through the MySQL listener: its error must be the Lutra driver's (or both answer), and its
     * answer MariaDB's.
     */
    public Shrunk runThroughListener(Query q) {
        String sql = q.sql();
        Outcome l = Outcome.query(lutra, sql);
        Outcome m = Outcome.query(listener, sql);
        if (m instanceof Outcome.Error me ? !(l instanceof Outcome.Error le && le.code() == me.code()) : l instanceof Outcome.Error) {
            return new Shrunk(q, Comparer.Verdict.LISTENER_DIFFERS, m, l);
        }
        Outcome r = Outcome.query(reference, sql);
        return new Shrunk(q, Comparer.compare(m, r, q.ordered()), m, r);
    }

    /** Runs {@code q} on both sides and accounts for it; returns its verdict. A quarter of the reads Lutra answers right run through the MySQL listener too. */
    public Comparer.Verdict check(String oracle, Query q) {
        var verdict = account(oracle, run(q), this::run);
        if (listener != null && verdict == Comparer.Verdict.SAME && !(q instanceof Query.Dml) && reads++ % 4 == 0) {
            listenerReads++;
            Shrunk through = runThroughListener(q);
            if (through.verdict().failed()) account(oracle + " through the MySQL listener", through, this::runThroughListener);
        }
        return verdict;
    }

    /**
     * Accounts for one judged statement (of {@code oracle}: "differential", "tlp", "norec", "write"):
     * a failure is classified, and shrunk with {@code rerun} when it is new or the first of its class.
     */
    public Comparer.Verdict account(String oracle, Shrunk result, java.util.function.Function<Query, Shrunk> rerun) {
        statements++;
        tally.add(result.query().features(), result.verdict());
        if (result.verdict() == Comparer.Verdict.INVALID) invalid++;
        else if (result.reference() instanceof Outcome.Error) referenceErrors++;
        if (result.verdict() == Comparer.Verdict.SAME && !(result.reference() instanceof Outcome.Error)) answered++;
        if (result.verdict() == Comparer.Verdict.REFUSED) refused++;
        if (!result.verdict().failed()) return result.verdict();
        var known = classify(result);
        if (known != null) {
            this.known++;
            if (knownCounts.merge(known.name(), 1, Integer::sum) == 1) {
                Shrunk minimal = rerun == null ? result : Shrinker.shrink(result.query(), rerun, this::kind);
                knownExamples.put(known.name(), describe(oracle, result, minimal));
            }
            return result.verdict();
        }
        String kindKey = oracle + " " + result.verdict() + " " + result.query().features().stream().findFirst().orElse("");
        if (newKinds.merge(kindKey, 1, Integer::sum) > SHRUNK_PER_KIND) {
            newFailures.add("(not shrunk, like one above) " + oracle + " " + result.verdict() + ": " + result.query().sql());
            return result.verdict();
        }
        Shrunk minimal = rerun == null ? result : Shrinker.shrink(result.query(), rerun, this::kind);
        var minimalKnown = classify(minimal);
        newFailures.add(describe(oracle, result, minimal) + (minimalKnown == null ? "" : "\n  (its minimal form is known: " + minimalKnown.name() + ")"));
        return result.verdict();
    }

    /** A failure found by a metamorphic oracle with no statement that differs from the reference: both sides share it. */
    public void sharedFailure(String report) {
        statements++;
        var known = KnownFailures.classifyShared(report);
        if (known == null) {
            newFailures.add(report);
        } else {
            this.known++;
            if (knownCounts.merge(known.name(), 1, Integer::sum) == 1) knownExamples.put(known.name(), report);
        }
    }

    private String kind(Shrunk s) {
        var k = classify(s);
        return k == null ? "new" : k.name();
    }

    private static String describe(String oracle, Shrunk found, Shrunk minimal) {
        String asGenerated = found == minimal ? "" : "\n  lutra, as generated: " + found.lutra() + "\n  mariadb, as generated: " + found.reference();
        return oracle + " " + found.verdict() + " " + found.query().features() + "\n  generated: " + found.query().sql()
                + "\n  minimal:   " + minimal.query().sql() + "\n  lutra:     " + minimal.lutra() + "\n  mariadb:   " + minimal.reference() + asGenerated;
    }

    public List<String> newFailures() {
        return newFailures;
    }

    public int statements() {
        return statements;
    }

    public int referenceErrors() {
        return referenceErrors;
    }

    public int invalid() {
        return invalid;
    }

    /** The tally, how many statements MariaDB rejected, and the known failures per class with a minimal example each. */
    public String summary() {
        var sb = new StringBuilder(tally.toString());
        sb.append("MariaDB rejected ").append(referenceErrors).append(" and found ").append(invalid)
                .append(" not determined (ONLY_FULL_GROUP_BY) of ").append(statements).append(" statements\n");
        return sb.append(knownFailures()).toString();
    }

    /** Per run: statements, those compared, answered as MariaDB answers, refused (and their share), failed alike, known and new failures. */
    public String counts() {
        int compared = statements - invalid;
        return String.format("%d statements, %d compared: %d answered as MariaDB answers, %d refused (%.1f%%), %d failed as MariaDB fails, "
                        + "%d failed in known ways, %d new failures; %d reads also through the MySQL listener%n", statements, compared, answered, refused,
                100.0 * refused / Math.max(1, compared), compared - answered - refused - known - newFailures.size(), known, newFailures.size(), listenerReads);
    }

    private String knownFailures() {
        var sb = new StringBuilder();
        if (!knownCounts.isEmpty()) {
            sb.append("Known failures (KnownFailures; not failing the run):\n");
            knownCounts.forEach((k, n) -> sb.append("  ").append(n).append(" x ").append(k).append("\n    ")
                    .append(knownExamples.get(k).replace("\n", "\n    ")).append('\n'));
        }
        return sb.toString();
    }
}
