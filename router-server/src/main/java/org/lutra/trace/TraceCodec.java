package org.lutra.trace;

import java.util.ArrayList;

/**
 * The text of one trace line and back ({@code docs/traces.md}, version 1). Fields are TAB
 * separated; values escape {@code \}, TAB, LF and CR with a backslash, table names {@code :} too.
 */
final class TraceCodec {
    static final String HEADER = "lutra-trace";
    static final int VERSION = 1;
    static final String SAME_AS = "@same-as";
    /** A parameter that is SQL NULL. */
    static final String NULL = "\\N";

    private TraceCodec() {}

    static String format(TraceLine line) {
        var sb = new StringBuilder(32 + 16 * line.accesses().size());
        sb.append(line.type());
        for (String p : line.params()) {
            sb.append("\tp:");
            if (p == null) sb.append(NULL);
            else escape(p, false, sb);
        }
        for (Access a : line.accesses()) {
            sb.append(a.write() ? "\tw:" : "\tr:");
            escape(a.table(), true, sb);
            sb.append(':');
            escape(a.key(), false, sb);
        }
        return sb.toString();
    }

    static String escape(String value, boolean tableName) {
        var sb = new StringBuilder(value.length() + 4);
        escape(value, tableName, sb);
        return sb.toString();
    }

    private static void escape(String value, boolean tableName, StringBuilder sb) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '\t' -> sb.append("\\t");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case ':' -> sb.append(tableName ? "\\:" : ":");
                default -> sb.append(c);
            }
        }
    }

    /** A transaction line; {@link IllegalArgumentException} says what is wrong with it. */
    static TraceLine parse(String text) {
        String[] fields = text.split("\t", -1);
        String type = fields[0];
        if (!TraceLine.TYPE.matcher(type).matches()) {
            throw new IllegalArgumentException("not a transaction type: '" + printable(type) + "' (letters, digits, '_', '.', '-'; or '-' alone)");
        }
        var params = new ArrayList<String>();
        var accesses = new ArrayList<Access>();
        for (int i = 1; i < fields.length; i++) {
            String f = fields[i];
            if (f.startsWith("p:")) {
                if (!accesses.isEmpty()) throw new IllegalArgumentException("parameter in field " + (i + 1) + " after an access: parameters come first");
                String v = f.substring(2);
                params.add(v.equals(NULL) ? null : unescape(v, i));
            } else if (f.startsWith("r:") || f.startsWith("w:")) {
                accesses.add(access(f, i));
            } else {
                throw new IllegalArgumentException("unknown field '" + printable(f) + "' (expected p:VALUE, r:TABLE:KEY or w:TABLE:KEY)");
            }
        }
        return new TraceLine(type, params, accesses);
    }

    private static Access access(String field, int index) {
        int colon = -1;
        for (int i = 2; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\') {
                i++; // the escaped character is part of the name
            } else if (c == ':') {
                colon = i;
                break;
            }
        }
        if (colon < 0) throw new IllegalArgumentException("field " + (index + 1) + " '" + printable(field) + "' has no ':' between table and key");
        String table = unescape(field.substring(2, colon), index);
        if (table.isEmpty()) throw new IllegalArgumentException("field " + (index + 1) + " '" + printable(field) + "' has no table name");
        String key = unescape(field.substring(colon + 1), index);
        return new Access(field.charAt(0) == 'w', table, key);
    }

    static String unescape(String value, int index) {
        int slash = value.indexOf('\\');
        if (slash < 0) return value;
        var sb = new StringBuilder(value.length());
        sb.append(value, 0, slash);
        for (int i = slash; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (++i == value.length()) throw new IllegalArgumentException("field " + (index + 1) + " ends in a lone backslash");
            sb.append(switch (value.charAt(i)) {
                case '\\' -> '\\';
                case 't' -> '\t';
                case 'n' -> '\n';
                case 'r' -> '\r';
                case ':' -> ':';
                default -> throw new IllegalArgumentException("field " + (index + 1) + " has an unknown escape '\\" + value.charAt(i)
                        + "' (known: \\\\ \\t \\n \\r \\:)");
            });
        }
        return sb.toString();
    }

    /** At most 200 characters of a bad field, control characters as \xNN: an error message must not carry junk whole. */
    static String printable(String s) {
        var sb = new StringBuilder();
        for (int i = 0; i < s.length() && sb.length() < 200; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f) sb.append(String.format("\\x%02X", (int) c));
            else sb.append(c);
        }
        return sb.length() >= 200 ? sb + "..." : sb.toString();
    }
}
