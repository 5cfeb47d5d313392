package org.lutra.merge;

/**
 * One term of an ordering over rows: the column compared, its direction, and the hidden column
 * holding {@code WEIGHT_STRING(expr)} for it, or -1. Strings compare by their weight bytes, which
 * the shard computes in the column's own collation, so the router orders and groups text exactly
 * as MySQL would without knowing the collation itself.
 */
public record SortKey(int column, boolean descending, int weightColumn) {
    public static SortKey asc(int column) {
        return new SortKey(column, false, -1);
    }

    @Override
    public String toString() {
        return "#" + column + (descending ? " DESC" : "") + (weightColumn >= 0 ? " (weight #" + weightColumn + ")" : "");
    }

    public SortKey withWeight(int weightColumn) {
        return new SortKey(column, descending, weightColumn);
    }
}
