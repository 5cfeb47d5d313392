package org.lutra.catalog;

import org.lutra.lookup.TextKey;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The value of a secondary lookup over several columns ({@link SecondaryLookup#columns}): one key per column, each as that
 * column's {@link ColumnDef#key} makes it (a string under its collation's weights), in the lookup's column order. Two
 * tuples are equal when every part is, as the backend's {@code c1 = ? AND c2 = ?} holds their rows equal; equal tuples
 * share one entry, one home and one guess. A one-column lookup's value is its column's key itself, never a tuple.
 */
public final class TupleKey implements TextKey {
    private final Object[] parts;
    private final String text;

    /** @param parts the columns' keys, none null (a row with a NULL in any column has no entry: {@code =} never matches it) */
    public TupleKey(Object[] parts) {
        this.parts = parts.clone();
        var b = new StringBuilder("t");
        for (Object p : this.parts) {
            if (p == null) throw new IllegalArgumentException("a secondary lookup's value has no NULL part");
            String t = p instanceof Long l ? "i" + l : p instanceof TextKey k ? k.lookupText() : "s" + p;
            b.append(':').append(t.length()).append(':').append(t); // length-prefixed: no two tuples share a text
        }
        this.text = b.toString();
    }

    /** The columns' keys, in the lookup's column order. */
    public List<Object> parts() {
        return Arrays.asList(parts.clone());
    }

    @Override
    public String lookupText() {
        return text;
    }

    /** The hash bucket of the tuple ({@link KeyValues#bucket}): the same on every router, equal tuples in one bucket. */
    int bucket(int buckets) {
        var crc = new CRC32();
        for (Object p : parts) {
            if (p instanceof Long l) crc.update(ByteBuffer.allocate(9).put((byte) 'i').putLong(l).array());
            else if (p instanceof CollatedKey c) {
                crc.update('w');
                crc.update(ByteBuffer.allocate(4).putInt(c.weight().length).array());
                crc.update(c.weight());
            } else {
                byte[] s = ((String) p).getBytes(StandardCharsets.UTF_8);
                crc.update('s');
                crc.update(ByteBuffer.allocate(4).putInt(s.length).array());
                crc.update(s);
            }
        }
        return (int) Math.floorMod(crc.getValue(), (long) buckets);
    }

    /** Part by part ({@link KeyValues#compare}): a total order, to order locks. */
    int compareTo(TupleKey other) {
        for (int i = 0; i < Math.min(parts.length, other.parts.length); i++) {
            int c = KeyValues.compare(parts[i], other.parts[i]);
            if (c != 0) return c;
        }
        return Integer.compare(parts.length, other.parts.length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TupleKey k && text.equals(k.text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** The parts joined by '-', as MariaDB names a value of a unique key over several columns ({@code Duplicate entry '0-Main_Page'}). */
    @Override
    public String toString() {
        var b = new StringBuilder();
        for (Object p : parts) b.append(b.isEmpty() ? "" : "-").append(p);
        return b.toString();
    }
}
