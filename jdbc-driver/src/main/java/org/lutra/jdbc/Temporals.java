package org.lutra.jdbc;

import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoField;

/**
 * The JDBC escape formats temporal values travel in: "2024-02-29", "13:45:00",
 * "2024-02-29 13:45:00.123456". Fractions are written without trailing zeros and read with 0-9
 * digits; reading also takes an ISO 'T' between date and time.
 */
final class Temporals {
    private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("uuuu-MM-dd").withResolverStyle(ResolverStyle.STRICT);
    private static final DateTimeFormatter TIME = new DateTimeFormatterBuilder()
            .appendValue(ChronoField.HOUR_OF_DAY, 2).appendLiteral(':')
            .appendValue(ChronoField.MINUTE_OF_HOUR, 2)
            .optionalStart().appendLiteral(':').appendValue(ChronoField.SECOND_OF_MINUTE, 2)
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd()
            .optionalEnd()
            .toFormatter().withResolverStyle(ResolverStyle.STRICT);
    private static final DateTimeFormatter TIMESTAMP = new DateTimeFormatterBuilder()
            .append(DATE).optionalStart().appendLiteral(' ').optionalEnd()
            .optionalStart().appendLiteral('T').optionalEnd()
            .append(TIME).toFormatter().withResolverStyle(ResolverStyle.STRICT);

    private Temporals() {}

    /**
     * A temporal value as getObject(i, type) reads it across types, as Connector/J does: a YEAR is
     * January 1st of it (yearIsDateType, "2024-01-01" as a String too), a DATE read as a time is
     * midnight, a TIME read as a date or a timestamp is on 1970-01-01. Other values are returned as
     * they are.
     */
    static org.lutra.protocol.Value asRequested(org.lutra.protocol.Value v, org.lutra.protocol.Column c, Class<?> type) {
        boolean time = type == LocalTime.class || type == java.sql.Time.class;
        boolean date = type == LocalDate.class || type == java.sql.Date.class;
        boolean stamp = type == LocalDateTime.class || type == java.sql.Timestamp.class || type == java.util.Date.class
                || type == java.time.OffsetDateTime.class || type == java.time.ZonedDateTime.class;
        var kind = v.getKindCase();
        if (kind == org.lutra.protocol.Value.KindCase.INT_VALUE && c.getNativeType().equalsIgnoreCase("YEAR") && (time || date || stamp || type == String.class)) {
            v = org.lutra.protocol.Value.newBuilder().setDateValue(String.format(java.util.Locale.ROOT, "%04d-01-01", Conversions.year(v.getIntValue()))).build();
            kind = v.getKindCase();
        }
        if (kind == org.lutra.protocol.Value.KindCase.DATE_VALUE && time) {
            return org.lutra.protocol.Value.newBuilder().setTimeValue("00:00:00").build();
        }
        if (kind == org.lutra.protocol.Value.KindCase.TIME_VALUE && (date || stamp)) {
            return org.lutra.protocol.Value.newBuilder().setTimestampValue("1970-01-01 " + v.getTimeValue()).build();
        }
        return v;
    }

    static String format(LocalDate d) {
        return DATE.format(d);
    }

    static String format(LocalTime t) {
        var sb = new StringBuilder(18);
        two(sb, t.getHour()).append(':');
        two(sb, t.getMinute()).append(':');
        two(sb, t.getSecond());
        fraction(sb, t.getNano());
        return sb.toString();
    }

    static String format(LocalDateTime t) {
        return format(t.toLocalDate()) + " " + format(t.toLocalTime());
    }

    /**
     * A TIME or DATETIME/TIMESTAMP text with exactly the column's fraction digits, as MySQL's text
     * protocol sends it ("00:00:00.000" for a DATETIME(3)); the router sends the shortest text.
     */
    static String withFraction(String text, int digits) {
        int dot = text.indexOf('.', Math.max(0, text.lastIndexOf(':')));
        String whole = dot < 0 ? text : text.substring(0, dot);
        String fraction = dot < 0 ? "" : text.substring(dot + 1);
        if (digits <= 0 || digits > 6) {
            return digits <= 0 && fraction.chars().allMatch(ch -> ch == '0') ? whole : text;
        }
        if (fraction.length() > digits) {
            return text; // more digits than the column has: not MySQL's text of it, left as it came
        }
        return whole + "." + fraction + "0".repeat(digits - fraction.length());
    }

    static LocalDate parseDate(String s) throws SQLException {
        String text = s.trim();
        try {
            return LocalDate.parse(text, DATE);
        } catch (DateTimeParseException e) {
            if (text.length() > 10) {
                return parseTimestamp(text).toLocalDate(); // a timestamp read as a date keeps its date
            }
            throw invalid("date", s);
        }
    }

    static LocalTime parseTime(String s) throws SQLException {
        String text = s.trim();
        try {
            return LocalTime.parse(text, TIME);
        } catch (DateTimeParseException e) {
            if (text.length() > 10 && text.charAt(4) == '-') {
                return parseTimestamp(text).toLocalTime();
            }
            throw invalid("time", s);
        }
    }

    static LocalDateTime parseTimestamp(String s) throws SQLException {
        String text = s.trim();
        try {
            if (text.length() == 10) {
                return LocalDate.parse(text, DATE).atStartOfDay();
            }
            return LocalDateTime.parse(text, TIMESTAMP);
        } catch (DateTimeParseException e) {
            throw invalid("timestamp", s);
        }
    }

    private static SQLException invalid(String kind, String s) {
        String hint = s.startsWith("0000-00-00") ? " (MySQL's zero date has no Java value; read it with getString)" : "";
        return Errors.of("'" + s + "' is not a valid " + kind + hint, Errors.INVALID_DATETIME);
    }

    private static StringBuilder two(StringBuilder sb, int n) {
        if (n < 10) {
            sb.append('0');
        }
        return sb.append(n);
    }

    private static void fraction(StringBuilder sb, int nanos) {
        if (nanos == 0) {
            return;
        }
        String digits = String.valueOf(1_000_000_000 + nanos).substring(1);
        int end = digits.length();
        while (digits.charAt(end - 1) == '0') {
            end--;
        }
        sb.append('.').append(digits, 0, end);
    }
}
