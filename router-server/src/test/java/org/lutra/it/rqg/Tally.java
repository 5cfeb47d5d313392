package org.lutra.it.rqg;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Statements per feature: answered the same as MariaDB, refused by Lutra, or wrong. */
public final class Tally {
    private final Map<String, int[]> byFeature = new TreeMap<>();
    private int failed;

    public void add(Set<String> features, Comparer.Verdict verdict) {
        if (verdict.failed()) failed++;
        int slot = verdict == Comparer.Verdict.SAME ? 0 : verdict == Comparer.Verdict.REFUSED ? 1 : 2;
        for (String f : features) byFeature.computeIfAbsent(f, x -> new int[3])[slot]++;
    }

    public int failed() {
        return failed;
    }

    @Override
    public String toString() {
        var sb = new StringBuilder(String.format("%-28s %9s %9s %9s%n", "feature", "accepted", "refused", "WRONG"));
        byFeature.forEach((f, n) -> sb.append(String.format("%-28s %9d %9d %9d%n", f, n[0], n[1], n[2])));
        return sb.toString();
    }
}
