package org.lutra.it.rqg;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Statements per feature: answered as MariaDB does, refused by Lutra, not determined (not compared), or failed (known or new). */
public final class Tally {
    private final Map<String, int[]> byFeature = new TreeMap<>();
    private int failed;

    public void add(Set<String> features, Comparer.Verdict verdict) {
        if (verdict.failed()) failed++;
        int slot = switch (verdict) {
            case SAME -> 0;
            case REFUSED -> 1;
            case INVALID -> 2;
            default -> 3;
        };
        for (String f : features) byFeature.computeIfAbsent(f, x -> new int[4])[slot]++;
    }

    public int failed() {
        return failed;
    }

    @Override
    public String toString() {
        var sb = new StringBuilder(String.format("%-28s %9s %9s %9s %9s%n", "feature", "accepted", "refused", "invalid", "FAILED"));
        byFeature.forEach((f, n) -> sb.append(String.format("%-28s %9d %9d %9d %9d%n", f, n[0], n[1], n[2], n[3])));
        return sb.toString();
    }
}
