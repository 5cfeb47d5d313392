package org.lutra.server.mysql;

import io.netty.buffer.ByteBuf;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Values as a binary result row carries them (Protocol::BinaryResultsetRow), by the column's
 * MySQL type: fixed-width little-endian integers and floating-point numbers, temporal values as
 * their packed fields, everything else (DECIMAL, strings, BIT, ...) as a length-encoded string.
 * NULLs are in the row's bitmap, not here.
 */
final class BinaryValues {
    private BinaryValues() {}

    static void write(ByteBuf out, Value v, MysqlColumn c, ClientCharset client) {
        switch (c.type()) {
            case MysqlWire.TYPE_TINY -> out.writeByte((int) asLong(v));
            case MysqlWire.TYPE_SHORT, MysqlWire.TYPE_YEAR -> out.writeShortLE((int) asLong(v));
            case MysqlWire.TYPE_LONG, MysqlWire.TYPE_INT24 -> out.writeIntLE((int) asLong(v));
            case MysqlWire.TYPE_LONGLONG -> out.writeLongLE(asLong(v));
            case MysqlWire.TYPE_FLOAT -> out.writeFloatLE(v.hasFloatValue() ? v.getFloatValue() : (float) asDouble(v));
            case MysqlWire.TYPE_DOUBLE -> out.writeDoubleLE(v.hasFloatValue() ? Double.parseDouble(Float.toString(v.getFloatValue())) : asDouble(v));
            case MysqlWire.TYPE_DATE, MysqlWire.TYPE_NEWDATE, MysqlWire.TYPE_DATETIME, MysqlWire.TYPE_TIMESTAMP -> dateTime(out, text(v));
            case MysqlWire.TYPE_TIME -> time(out, text(v));
            default -> TextValues.write(out, v, c, client);
        }
    }

    private static String text(Value v) {
        return switch (v.getKindCase()) {
            case DATE_VALUE -> v.getDateValue();
            case TIME_VALUE -> v.getTimeValue();
            case TIMESTAMP_VALUE -> v.getTimestampValue();
            case STRING_VALUE -> v.getStringValue();
            default -> throw new IllegalStateException("a " + v.getKindCase() + " in a temporal column");
        };
    }

    static long asLong(Value v) {
        return switch (v.getKindCase()) {
            case INT_VALUE -> v.getIntValue();
            case BOOL_VALUE -> v.getBoolValue() ? 1 : 0;
            case DECIMAL_VALUE -> new BigDecimal(v.getDecimalValue()).toBigInteger().longValue(); // BIGINT UNSIGNED past 2^63: its 64 bits
            case DOUBLE_VALUE -> (long) v.getDoubleValue();
            case FLOAT_VALUE -> (long) v.getFloatValue();
            case STRING_VALUE -> new BigInteger(v.getStringValue().trim()).longValue();
            case DATE_VALUE -> Long.parseLong(v.getDateValue().substring(0, 4)); // YEAR read as a date
            default -> throw new IllegalStateException("a " + v.getKindCase() + " in an integer column");
        };
    }

    static double asDouble(Value v) {
        return switch (v.getKindCase()) {
            case DOUBLE_VALUE -> v.getDoubleValue();
            case FLOAT_VALUE -> v.getFloatValue();
            case INT_VALUE -> v.getIntValue();
            case DECIMAL_VALUE -> Double.parseDouble(v.getDecimalValue());
            case STRING_VALUE -> Double.parseDouble(v.getStringValue());
            default -> throw new IllegalStateException("a " + v.getKindCase() + " in a floating-point column");
        };
    }

    /** "YYYY-MM-DD[ hh:mm:ss[.ffffff]]" packed: 0, 4, 7 or 11 bytes after the length byte. */
    static void dateTime(ByteBuf out, String s) {
        int year = num(s, 0, 4), month = num(s, 5, 7), day = num(s, 8, 10);
        int hour = 0, minute = 0, second = 0, micros = 0;
        if (s.length() >= 19) {
            hour = num(s, 11, 13);
            minute = num(s, 14, 16);
            second = num(s, 17, 19);
            if (s.length() > 20) micros = micros(s.substring(20));
        }
        if (micros != 0) out.writeByte(11);
        else if (hour != 0 || minute != 0 || second != 0) out.writeByte(7);
        else if (year != 0 || month != 0 || day != 0) out.writeByte(4);
        else {
            out.writeByte(0);
            return;
        }
        out.writeShortLE(year).writeByte(month).writeByte(day);
        if (micros == 0 && hour == 0 && minute == 0 && second == 0) return;
        out.writeByte(hour).writeByte(minute).writeByte(second);
        if (micros != 0) out.writeIntLE(micros);
    }

    /** "[-]h:mm:ss[.ffffff]" (hours may exceed 24) packed: 0, 8 or 12 bytes after the length byte. */
    static void time(ByteBuf out, String s) {
        boolean negative = s.startsWith("-");
        String t = negative ? s.substring(1) : s;
        int colon = t.indexOf(':');
        long hours = Long.parseLong(t.substring(0, colon));
        int minute = num(t, colon + 1, colon + 3), second = num(t, colon + 4, colon + 6);
        int micros = t.length() > colon + 7 ? micros(t.substring(colon + 7)) : 0;
        if (hours == 0 && minute == 0 && second == 0 && micros == 0) {
            out.writeByte(0);
            return;
        }
        out.writeByte(micros == 0 ? 8 : 12);
        out.writeByte(negative ? 1 : 0).writeIntLE((int) (hours / 24)).writeByte((int) (hours % 24)).writeByte(minute).writeByte(second);
        if (micros != 0) out.writeIntLE(micros);
    }

    private static int num(String s, int from, int to) {
        return Integer.parseInt(s, from, to, 10);
    }

    private static int micros(String fraction) {
        String six = fraction.length() >= 6 ? fraction.substring(0, 6) : fraction + "0".repeat(6 - fraction.length());
        return Integer.parseInt(six);
    }
}
