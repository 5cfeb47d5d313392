package org.lutra.it.rqg;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Judges Lutra's outcome against the reference MariaDB's. Rows compare as a multiset unless the
 * statement's ORDER BY is total; values compare as the exact text MariaDB gives, except DOUBLE and
 * FLOAT columns, which agree to about ten significant digits (relative 1e-9).
 */
public final class Comparer {
    public enum Verdict {
        SAME, REFUSED, DIFFERENT_ROWS, DIFFERENT_COLUMNS, LUTRA_ERROR, ONLY_LUTRA_ANSWERS,
        /** Through the MySQL listener the statement fails otherwise than through the Lutra driver (or only one fails). */
        LISTENER_DIFFERS,
        /** The reference rejects the statement as one whose answer depends on the row order (ONLY_FULL_GROUP_BY): not compared. */
        INVALID;

        public boolean failed() {
            return this != SAME && this != REFUSED && this != INVALID;
        }
    }

    /**
     * MariaDB's errors for a column neither grouped nor aggregated (1055, 1140) and for a HAVING
     * that names one (1463): the reference session runs with ONLY_FULL_GROUP_BY so that it rejects
     * statements whose answer one server picks at random.
     */
    private static final java.util.Set<Integer> NOT_DETERMINED = java.util.Set.of(1055, 1140, 1463);

    /** MariaDB (with ONLY_FULL_GROUP_BY) rejected the statement as one whose answer depends on row order. */
    static boolean notDetermined(Outcome reference) {
        return reference instanceof Outcome.Error r && NOT_DETERMINED.contains(r.code());
    }

    private static final MathContext APPROXIMATE = new MathContext(10);

    public static Verdict compare(Outcome lutra, Outcome reference, boolean ordered) {
        if (notDetermined(reference)) return Verdict.INVALID;
        if (lutra instanceof Outcome.Error e && e.refused()) return Verdict.REFUSED;
        if (lutra instanceof Outcome.Error e && e.internal()) return Verdict.LUTRA_ERROR; // a bug whatever the input
        if (lutra instanceof Outcome.Error) return reference instanceof Outcome.Error ? Verdict.SAME : Verdict.LUTRA_ERROR;
        if (reference instanceof Outcome.Error) return Verdict.ONLY_LUTRA_ANSWERS;
        if (lutra instanceof Outcome.Changed l && reference instanceof Outcome.Changed r) {
            if (l.count() != r.count()) return Verdict.DIFFERENT_ROWS;
            return compare(l.table(), r.table(), false);
        }
        if (lutra instanceof Outcome.Rows l && reference instanceof Outcome.Rows r) return compare(l, r, ordered);
        return Verdict.DIFFERENT_ROWS;
    }

    private static Verdict compare(Outcome.Rows lutra, Outcome.Rows reference, boolean ordered) {
        if (!lutra.labels().equals(reference.labels())) return Verdict.DIFFERENT_COLUMNS;
        var l = normalized(lutra.rows(), reference.types(), ordered);
        var r = normalized(reference.rows(), reference.types(), ordered);
        return l.equals(r) ? Verdict.SAME : Verdict.DIFFERENT_ROWS;
    }

    /** The rows of {@code a} and {@code b} as multisets (or, with {@code set}, as sets), values compared as {@link #compare} does. */
    static boolean sameRows(List<List<String>> a, List<List<String>> b, List<Integer> types, boolean set) {
        var l = normalized(a, types, false);
        var r = normalized(b, types, false);
        if (set) {
            l = l.stream().distinct().toList();
            r = r.stream().distinct().toList();
        }
        return l.equals(r);
    }

    /** Whether every row of {@code part} is one of {@code whole}'s, no row twice (compared as {@link #sameRows} compares). */
    static boolean distinctRowsOf(List<List<String>> part, List<List<String>> whole, List<Integer> types) {
        var p = normalized(part, types, false);
        var w = new java.util.HashSet<>(normalized(whole, types, false));
        return new java.util.HashSet<>(p).size() == p.size() && w.containsAll(p);
    }

    private static List<List<String>> normalized(List<List<String>> rows, List<Integer> types, boolean ordered) {
        var out = new ArrayList<List<String>>();
        for (var row : rows) {
            var copy = new ArrayList<String>(row.size());
            for (int i = 0; i < row.size(); i++) {
                String v = row.get(i);
                copy.add(v != null && i < types.size() && Outcome.isApproximate(types.get(i)) ? approximate(v) : v);
            }
            out.add(copy);
        }
        if (!ordered) out.sort(ROWS);
        return out;
    }

    private static String approximate(String v) {
        try {
            return new BigDecimal(v).round(APPROXIMATE).stripTrailingZeros().toPlainString();
        } catch (NumberFormatException e) {
            return v;
        }
    }

    private static final Comparator<List<String>> ROWS = (a, b) -> {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = Objects.compare(a.get(i), b.get(i), Comparator.nullsFirst(Comparator.naturalOrder()));
            if (c != 0) return c;
        }
        return Integer.compare(a.size(), b.size());
    };
}
