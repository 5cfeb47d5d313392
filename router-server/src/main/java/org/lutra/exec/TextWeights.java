package org.lutra.exec;

import org.lutra.placement.Shards;
import com.google.protobuf.ByteString;
import org.lutra.merge.RowSource;
import org.lutra.protocol.Refusal;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Weight strings of text values in one collation, asked of a backend for one statement:
 * {@code WEIGHT_STRING(CONVERT(? USING charset) COLLATE collation AS CHAR(n))}, the same form a
 * branch's own weight column has, so weights from both compare. The value travels as a string in
 * the connection's character set (utf8mb4), as the router received it; converted to the union's
 * character set it must come back the same, or MySQL (which converts it too) would return another
 * text than the router holds, and the union is refused.
 */
final class TextWeights {
    /** Values per round trip. */
    static final int BATCH = 200;

    private final int partition;
    private final String collation;
    private final String charset;
    private final int length;
    private final Map<String, ByteString> known = new HashMap<>();

    TextWeights(int partition, String collation, String charset, int length) {
        this.partition = partition;
        this.collation = collation;
        this.charset = charset;
        this.length = length;
    }

    /** Weighs the values not weighed yet (nulls left out), one round trip per {@link #BATCH}. */
    void weigh(Context ctx, List<String> values) throws SQLException {
        var missing = new LinkedHashSet<String>();
        for (String v : values) if (v != null && !known.containsKey(v)) missing.add(v);
        var asked = new ArrayList<>(missing);
        for (int from = 0; from < asked.size(); from += BATCH) weighBatch(ctx, asked.subList(from, Math.min(asked.size(), from + BATCH)));
    }

    /** The weight of a value {@link #weigh} weighed. */
    ByteString weight(String value) {
        ByteString w = known.get(value);
        if (w == null) throw new IllegalStateException("not weighed: " + value);
        return w;
    }

    private void weighBatch(Context ctx, List<String> values) throws SQLException {
        boolean unicode = charset.equalsIgnoreCase("utf8mb4");
        String converted = "CONVERT(? USING " + charset + ")";
        var sql = new StringBuilder("SELECT ");
        var params = new ArrayList<Value>();
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) sql.append(", ");
            sql.append("WEIGHT_STRING(").append(converted).append(" COLLATE ").append(collation).append(" AS CHAR(").append(length).append("))");
            Value v = Value.newBuilder().setStringValue(values.get(i)).build();
            params.add(v);
            if (!unicode) {
                sql.append(", CAST(CONVERT(").append(converted).append(" USING utf8mb4) AS BINARY) = CAST(? AS BINARY)");
                params.add(v);
                params.add(v);
            }
        }
        try (Shards.Scratch scratch = ctx.shards().scratch(partition); RowSource rows = scratch.query(sql.toString(), params)) {
            Row row = rows.next();
            int col = 0;
            for (String value : values) {
                Value w = row.getValues(col++);
                if (!unicode && !isTrue(row.getValues(col++))) {
                    throw Refusal.of("Lutra does not support this UNION: its text column is " + charset + " (" + collation + "), which cannot hold '"
                            + abbreviated(value) + "' of another branch; MySQL would return that text converted");
                }
                if (w.getKindCase() != Value.KindCase.BYTES_VALUE) throw new SQLException("WEIGHT_STRING answered " + w, "HY000", 1105);
                known.put(value, w.getBytesValue());
            }
        }
    }

    private static boolean isTrue(Value v) {
        return switch (v.getKindCase()) {
            case INT_VALUE -> v.getIntValue() != 0;
            case BOOL_VALUE -> v.getBoolValue();
            case DECIMAL_VALUE -> new java.math.BigDecimal(v.getDecimalValue()).signum() != 0;
            default -> false;
        };
    }

    private static String abbreviated(String value) {
        return value.length() <= 40 ? value : value.substring(0, 40) + "...";
    }
}
