package org.lutra.server.mysql;

import java.math.BigDecimal;

/**
 * DOUBLE and FLOAT values as MariaDB's text protocol prints them (its {@code my_gcvt}): the
 * shortest digits that read back as the same value (FLOAT: rounded to 6 significant digits), in
 * plain notation unless the number is an integer of more than 15 digits or smaller than 1e-15,
 * then as {@code 1.5e20} / {@code 1e-16}.
 */
final class FloatingText {
    private FloatingText() {}

    static String ofDouble(double d) {
        if (!Double.isFinite(d)) return Double.toString(d);
        if (d == 0) return 1 / d < 0 ? "-0" : "0";
        return format(Math.abs(d) < Double.MIN_NORMAL ? shortestSubnormal(d) : new BigDecimal(Double.toString(d)));
    }

    /** Java prints Double.MIN_VALUE as 4.9E-324 where the shortest digits that read back are 5e-324 (MariaDB's). */
    private static BigDecimal shortestSubnormal(double d) {
        var exact = new BigDecimal(d);
        for (int digits = 1; digits < 17; digits++) {
            var candidate = exact.round(new java.math.MathContext(digits, java.math.RoundingMode.HALF_EVEN));
            if (candidate.doubleValue() == d) return candidate;
        }
        return new BigDecimal(Double.toString(d));
    }

    static String ofFloat(float f) {
        if (!Float.isFinite(f)) return Float.toString(f);
        if (f == 0) return 1 / f < 0 ? "-0" : "0";
        return format(new BigDecimal((double) f).round(new java.math.MathContext(6, java.math.RoundingMode.HALF_EVEN)));
    }

    /** {@code v}'s significant digits, placed as MariaDB places them. */
    private static String format(BigDecimal v) {
        v = v.stripTrailingZeros();
        String digits = v.unscaledValue().abs().toString();
        int decpt = digits.length() - v.scale(); // position of the decimal point relative to the digits' start
        var sb = new StringBuilder(32);
        if (v.signum() < 0) sb.append('-');
        // measured on MariaDB 11.4: 150000000000000 and 1234567890123456.8 plain, 1e15 and 1.2345678901234568e16 not;
        // 0.00000000000000123 plain, 1e-16 not
        if (decpt > 15 && decpt >= digits.length() || decpt < -14) {
            sb.append(digits.charAt(0));
            if (digits.length() > 1) sb.append('.').append(digits, 1, digits.length());
            sb.append('e').append(decpt - 1);
        } else if (decpt <= 0) {
            sb.append("0.").append("0".repeat(-decpt)).append(digits);
        } else if (decpt >= digits.length()) {
            sb.append(digits).append("0".repeat(decpt - digits.length()));
        } else {
            sb.append(digits, 0, decpt).append('.').append(digits, decpt, digits.length());
        }
        return sb.toString();
    }
}
