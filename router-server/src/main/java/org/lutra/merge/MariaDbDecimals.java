package org.lutra.merge;

import org.lutra.protocol.Refusal;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.SQLException;

/**
 * MariaDB's DECIMAL arithmetic inside an expression (strings/decimal.c). A value keeps more digits than the
 * client is shown: a quotient is computed to whole nine-digit words ({@code do_div_mod}: the operands' digits
 * after the point rounded up to words, plus div_precision_increment where the words do not already hold it)
 * and cut, not rounded, there; a product keeps all of its operands' digits. Only the final value is rounded
 * to the expression's {@link Expr#decimals}. {@code SELECT 1/3*3} is 1.0000: 0.333333333 * 3 rounded. The
 * {@link BigDecimal}'s scale is the number of digits MariaDB keeps.
 */
final class MariaDbDecimals {
    static final int DIV_PRECISION_INCREMENT = 4;
    static final int MAX_SCALE = 38;
    private static final int DIGITS_PER_WORD = 9;
    /** A decimal_t of the server holds nine words; a value needing more is cut where this class does not follow it. */
    private static final int WORDS = 9;

    private MariaDbDecimals() {}

    static BigDecimal multiply(BigDecimal a, BigDecimal b) throws SQLException {
        BigDecimal r = a.multiply(b);
        if (r.scale() > MAX_SCALE || words(r, r.scale()) > WORDS) throw tooLong(a, "*", b);
        return r;
    }

    /** a / b as MariaDB's decimal_div computes it with div_precision_increment 4 (b is not zero). */
    static BigDecimal divide(BigDecimal a, BigDecimal b) throws SQLException {
        int f1 = Math.max(0, a.scale());
        int f2 = Math.max(0, b.scale());
        int frac1 = roundUp(f1) * DIGITS_PER_WORD;
        int frac2 = roundUp(f2) * DIGITS_PER_WORD;
        int increment = Math.max(0, DIV_PRECISION_INCREMENT - (frac1 - f1) - (frac2 - f2));
        int scale = roundUp(frac1 + frac2 + increment) * DIGITS_PER_WORD;
        BigDecimal r = a.setScale(f1).divide(b.setScale(f2), scale, RoundingMode.DOWN);
        // one word to spare: the server estimates the quotient's integer words from the operands, not from it
        if (words(r, scale) + 1 > WORDS) throw tooLong(a, "/", b);
        return r;
    }

    private static int words(BigDecimal r, int scale) {
        int integerDigits = Math.max(0, r.precision() - r.scale());
        return roundUp(integerDigits) + roundUp(scale);
    }

    private static int roundUp(int digits) {
        return (digits + DIGITS_PER_WORD - 1) / DIGITS_PER_WORD;
    }

    private static SQLException tooLong(BigDecimal a, String op, BigDecimal b) {
        return Refusal.of("Lutra does not support DECIMAL arithmetic of more than 81 digits after merging partitions yet ("
                + a.toPlainString() + " " + op + " " + b.toPlainString() + ")");
    }
}
