package org.lutra.jdbc;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.sql.Blob;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * A BLOB held in memory: what {@code Connection.createBlob()} returns and {@code ResultSet.getBlob()}
 * reads; it travels as bytes, as MySQL's BLOB does. Growable from empty, which the JDK's
 * SerialBlob is not (ORMs create an empty one and write into it).
 */
final class BytesLob implements Blob {
    private byte[] bytes;
    private int length;

    BytesLob(byte[] bytes) {
        this.bytes = bytes.clone();
        this.length = bytes.length;
    }

    byte[] bytes() throws SQLException {
        return Arrays.copyOf(open(), length);
    }

    private byte[] open() throws SQLException {
        if (bytes == null) throw Errors.of("the BLOB was freed", Errors.GENERAL);
        return bytes;
    }

    private int at(long pos) throws SQLException {
        open();
        if (pos < 1 || pos > length + 1L) throw Errors.of("position " + pos + " is outside the BLOB (length " + length + ")", Errors.INVALID_COLUMN);
        return (int) (pos - 1);
    }

    @Override
    public long length() throws SQLException {
        open();
        return length;
    }

    @Override
    public byte[] getBytes(long pos, int len) throws SQLException {
        int from = at(pos);
        if (len < 0) throw Errors.of("negative length " + len, Errors.INVALID_COLUMN);
        return Arrays.copyOfRange(bytes, from, Math.min(length, from + len));
    }

    @Override
    public InputStream getBinaryStream() throws SQLException {
        return new ByteArrayInputStream(bytes());
    }

    @Override
    public InputStream getBinaryStream(long pos, long len) throws SQLException {
        return new ByteArrayInputStream(getBytes(pos, Math.toIntExact(len)));
    }

    @Override
    public long position(byte[] pattern, long start) throws SQLException {
        int from = at(start);
        for (int i = from; i + pattern.length <= length; i++) {
            if (Arrays.equals(bytes, i, i + pattern.length, pattern, 0, pattern.length)) return i + 1L;
        }
        return -1;
    }

    @Override
    public long position(Blob pattern, long start) throws SQLException {
        return position(pattern.getBytes(1, Math.toIntExact(pattern.length())), start);
    }

    @Override
    public int setBytes(long pos, byte[] data) throws SQLException {
        return setBytes(pos, data, 0, data.length);
    }

    @Override
    public int setBytes(long pos, byte[] data, int offset, int len) throws SQLException {
        int from = at(pos);
        int end = Math.addExact(from, len);
        if (end > bytes.length) bytes = Arrays.copyOf(bytes, Math.max(end, bytes.length * 2));
        System.arraycopy(data, offset, bytes, from, len);
        length = Math.max(length, end);
        return len;
    }

    @Override
    public OutputStream setBinaryStream(long pos) throws SQLException {
        long start = at(pos) + 1L;
        return new ByteArrayOutputStream() {
            private long next = start;

            @Override
            public void flush() {
                try {
                    next += setBytes(next, toByteArray());
                    reset();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public void close() {
                flush();
            }
        };
    }

    @Override
    public void truncate(long len) throws SQLException {
        open();
        if (len < 0 || len > length) throw Errors.of("cannot truncate a BLOB of length " + length + " to " + len, Errors.INVALID_COLUMN);
        length = (int) len;
    }

    @Override
    public void free() {
        bytes = null;
    }
}
