package org.lutra.exec;

import org.lutra.merge.Values;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * One group's SUM (or an AVG's sum) of DECIMAL partials with the digits MariaDB keeps beyond the
 * result's scale: a division inside the sum ({@code SUM(d / 3)}) is summed at nine or more
 * decimals and rounded to the shown scale only at the end, so summing the partials as shown
 * (each already rounded) can miss the last digit. The shards also send each partial as
 * {@code CAST(SUM(x) AS DECIMAL(65,30))}; the router sums those and rounds once. A pair that does
 * not agree (a cast out of DECIMAL(65,30)'s range, clamped) leaves the group to the shown partials.
 */
final class ExactSum {
    private BigDecimal sum;
    private boolean usable = true;

    /** Adds one partition's partial: {@code shown} as the client would see it, {@code exact} with all its digits. */
    void add(Value shown, Value exact) {
        if (Values.isNull(shown)) return;
        if (Values.isNull(exact)) {
            usable = false;
            return;
        }
        BigDecimal s = Values.decimal(shown);
        BigDecimal e = Values.decimal(exact);
        if (e.subtract(s).abs().compareTo(BigDecimal.ONE.movePointLeft(Math.max(s.scale(), 0))) > 0) usable = false;
        sum = sum == null ? e : sum.add(e);
    }

    /** The exact sum, or null where the shown partials must be summed instead. */
    BigDecimal exact() {
        return usable ? sum : null;
    }

    /** SUM's value: the exact sum rounded to {@code scale} as MariaDB rounds it, or {@code shownSum} where there is none. */
    Value rounded(Value shownSum, int scale) {
        BigDecimal e = exact();
        if (e == null || shownSum == null || Values.isNull(shownSum)) return shownSum;
        return Value.newBuilder().setDecimalValue(e.setScale(scale, RoundingMode.HALF_UP).toPlainString()).build();
    }
}
