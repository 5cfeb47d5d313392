package org.lutra.server.mysql;

import io.netty.buffer.ByteBuf;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * Values as a text result row carries them (Protocol::ResultsetRow): each a length-encoded string,
 * 0xFB for NULL, in the text a MariaDB server prints for the column's type: integers in decimal
 * (unsigned ones as such), DOUBLE and FLOAT as MariaDB's {@link FloatingText}, or rounded to the
 * column's fixed decimals, temporal values with exactly the column's fractional digits, BIT as its
 * bytes.
 */
final class TextValues {
    private TextValues() {}

    static void write(ByteBuf out, Value v, MysqlColumn c, ClientCharset client) {
        switch (v.getKindCase()) {
            case IS_NULL, KIND_NOT_SET -> out.writeByte(0xFB);
            case INT_VALUE -> {
                long n = v.getIntValue();
                if (c.type() == MysqlWire.TYPE_BIT) {
                    MysqlWire.writeLenEncBytes(out, bitBytes(n, c.length()));
                } else if (c.type() == MysqlWire.TYPE_YEAR) {
                    ascii(out, String.format("%04d", n)); // YEAR(4): 0000 for the zero year
                } else {
                    ascii(out, c.unsigned() && n < 0 ? Long.toUnsignedString(n) : Long.toString(n));
                }
            }
            case BOOL_VALUE -> ascii(out, v.getBoolValue() ? "1" : "0");
            case DECIMAL_VALUE -> ascii(out, v.getDecimalValue());
            case DOUBLE_VALUE -> ascii(out, doubleText(v.getDoubleValue(), c));
            case FLOAT_VALUE -> ascii(out, floatText(v.getFloatValue(), c));
            case STRING_VALUE -> MysqlWire.writeLenEncBytes(out, c.binary() ? v.getStringValue().getBytes(java.nio.charset.StandardCharsets.UTF_8)
                    : client.encode(v.getStringValue()));
            case BYTES_VALUE -> {
                var bytes = v.getBytesValue();
                MysqlWire.writeLenEnc(out, bytes.size());
                out.writeBytes(bytes.asReadOnlyByteBuffer());
            }
            case DATE_VALUE -> ascii(out, v.getDateValue());
            case TIME_VALUE -> ascii(out, withFraction(v.getTimeValue(), c.decimals()));
            case TIMESTAMP_VALUE -> ascii(out, withFraction(v.getTimestampValue(), c.decimals()));
        }
    }

    static String doubleText(double d, MysqlColumn c) {
        if (c.decimals() < MysqlColumn.NOT_FIXED_DECIMALS) return fixed(d, c.decimals());
        return FloatingText.ofDouble(d);
    }

    static String floatText(float f, MysqlColumn c) {
        if (c.decimals() < MysqlColumn.NOT_FIXED_DECIMALS) return fixed(f, c.decimals());
        return c.type() == MysqlWire.TYPE_FLOAT ? FloatingText.ofFloat(f) : FloatingText.ofDouble(f);
    }

    /**
     * {@code d} with {@code decimals} places, as MariaDB's my_fcvt prints a fixed-decimals FLOAT/DOUBLE (measured): the
     * shortest digits that read back as {@code d}, padded with zeros (1e300 prints as 1 and 300 zeros, not its binary
     * expansion); where those digits go past the places, the exact value correctly rounded to them. -0 keeps its sign.
     */
    static String fixed(double d, int decimals) {
        if (!Double.isFinite(d)) return Double.toString(d);
        var shortest = new BigDecimal(Double.toString(d));
        var value = shortest.scale() <= decimals ? shortest.setScale(decimals) : new BigDecimal(d).setScale(decimals, RoundingMode.HALF_EVEN);
        String s = value.toPlainString();
        return value.signum() == 0 && (1 / d < 0 || d < 0) ? "-" + s : s;
    }

    /**
     * A temporal value's text with exactly {@code decimals} fractional digits, as a server sends a
     * TIME(n)/DATETIME(n) column (the router's text may have fewer or more).
     */
    static String withFraction(String text, int decimals) {
        int dot = text.indexOf('.');
        String whole = dot < 0 ? text : text.substring(0, dot);
        String fraction = dot < 0 ? "" : text.substring(dot + 1);
        if (decimals <= 0 || decimals > 6) return decimals > 6 && dot >= 0 ? text : whole;
        if (fraction.length() >= decimals) return whole + "." + fraction.substring(0, decimals);
        return whole + "." + fraction + "0".repeat(decimals - fraction.length());
    }

    /** A BIT(n) value's bytes: big-endian, (n + 7) / 8 of them. */
    static byte[] bitBytes(long n, long bits) {
        int size = (int) Math.max(1, Math.min(8, (bits + 7) / 8));
        byte[] b = new byte[size];
        for (int i = size - 1; i >= 0; i--) {
            b[i] = (byte) n;
            n >>>= 8;
        }
        return b;
    }

    private static void ascii(ByteBuf out, String s) {
        MysqlWire.writeLenEnc(out, s.length());
        out.writeCharSequence(s, StandardCharsets.US_ASCII);
    }
}
