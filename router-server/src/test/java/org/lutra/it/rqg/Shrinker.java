package org.lutra.it.rqg;

import java.util.function.Function;

/**
 * Greedy structural shrinking: take the first one-step-smaller statement that still fails the same
 * way (the same verdict and the same known-failure class, or none), and repeat until no smaller one
 * does.
 */
public final class Shrinker {
    private static final int MAX_RUNS = 400;

    public record Shrunk(Query query, Comparer.Verdict verdict, Outcome lutra, Outcome reference) {}

    /** {@code run} executes a statement on both sides and judges it; {@code kind} names a failure's class. */
    public static Shrunk shrink(Query failing, Function<Query, Shrunk> run, Function<Shrunk, String> kind) {
        Shrunk best = run.apply(failing);
        String want = kind.apply(best);
        int runs = 0;
        boolean smaller = true;
        while (smaller && runs < MAX_RUNS) {
            smaller = false;
            for (Query candidate : best.query().shrinks()) {
                if (++runs > MAX_RUNS) break;
                Shrunk s = run.apply(candidate);
                if (s.verdict() == best.verdict() && kind.apply(s).equals(want)) {
                    best = s;
                    smaller = true;
                    break;
                }
            }
        }
        return best;
    }
}
