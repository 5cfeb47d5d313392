package org.lutra.it.rqg;

import java.util.function.Function;

/**
 * Greedy structural shrinking: take the first one-step-smaller statement that still fails the same
 * way, and repeat until no smaller one does.
 */
public final class Shrinker {
    private static final int MAX_RUNS = 300;

    public record Shrunk(Query query, Comparer.Verdict verdict, Outcome lutra, Outcome reference) {}

    /** {@code run} executes a statement on both sides and judges it. */
    public static Shrunk shrink(Query failing, Function<Query, Shrunk> run) {
        Shrunk best = run.apply(failing);
        int runs = 0;
        boolean smaller = true;
        while (smaller && runs < MAX_RUNS) {
            smaller = false;
            for (Query candidate : best.query().shrinks()) {
                if (++runs > MAX_RUNS) break;
                Shrunk s = run.apply(candidate);
                if (s.verdict() == best.verdict()) {
                    best = s;
                    smaller = true;
                    break;
                }
            }
        }
        return best;
    }
}
