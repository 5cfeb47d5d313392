package org.lutra.jdbc;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Reader;
import java.io.StringReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.sql.Clob;
import java.sql.NClob;
import java.sql.SQLException;

/**
 * A CLOB (or NCLOB) held in memory: what {@code Connection.createClob()} returns and
 * {@code ResultSet.getClob()} reads; it travels as a string, as MySQL's TEXT does. Growable from
 * empty, which the JDK's SerialClob is not (ORMs create an empty one and write into it).
 */
final class TextLob implements NClob {
    private StringBuilder text;

    TextLob(String text) {
        this.text = new StringBuilder(text);
    }

    String text() throws SQLException {
        return open().toString();
    }

    private StringBuilder open() throws SQLException {
        if (text == null) throw Errors.of("the CLOB was freed", Errors.GENERAL);
        return text;
    }

    /** Position {@code pos} (1-based, at most one past the end) as an index. */
    private int at(long pos) throws SQLException {
        if (pos < 1 || pos > open().length() + 1L) throw Errors.of("position " + pos + " is outside the CLOB (length " + text.length() + ")", Errors.INVALID_COLUMN);
        return (int) (pos - 1);
    }

    @Override
    public long length() throws SQLException {
        return open().length();
    }

    @Override
    public String getSubString(long pos, int length) throws SQLException {
        int from = at(pos);
        if (length < 0) throw Errors.of("negative length " + length, Errors.INVALID_COLUMN);
        return text.substring(from, Math.min(text.length(), from + length));
    }

    @Override
    public Reader getCharacterStream() throws SQLException {
        return new StringReader(text());
    }

    @Override
    public Reader getCharacterStream(long pos, long length) throws SQLException {
        return new StringReader(getSubString(pos, Math.toIntExact(length)));
    }

    @Override
    public InputStream getAsciiStream() throws SQLException {
        return new ByteArrayInputStream(text().getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    public long position(String searched, long start) throws SQLException {
        int found = open().indexOf(searched, at(start));
        return found < 0 ? -1 : found + 1;
    }

    @Override
    public long position(Clob searched, long start) throws SQLException {
        return position(searched.getSubString(1, Math.toIntExact(searched.length())), start);
    }

    @Override
    public int setString(long pos, String str) throws SQLException {
        return setString(pos, str, 0, str.length());
    }

    @Override
    public int setString(long pos, String str, int offset, int len) throws SQLException {
        int from = at(pos);
        String part = str.substring(offset, offset + len);
        text.replace(from, Math.min(text.length(), from + part.length()), part);
        return part.length();
    }

    @Override
    public OutputStream setAsciiStream(long pos) throws SQLException {
        long[] next = {at(pos) + 1L};
        return new OutputStream() {
            @Override
            public void write(int b) {
                try {
                    setString(next[0]++, String.valueOf((char) (b & 0x7f)));
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    @Override
    public Writer setCharacterStream(long pos) throws SQLException {
        long[] next = {at(pos) + 1L};
        return new Writer() {
            @Override
            public void write(char[] chars, int off, int len) {
                try {
                    next[0] += setString(next[0], new String(chars, off, len));
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
    }

    @Override
    public void truncate(long len) throws SQLException {
        if (len < 0 || len > open().length()) throw Errors.of("cannot truncate a CLOB of length " + text.length() + " to " + len, Errors.INVALID_COLUMN);
        text.setLength((int) len);
    }

    @Override
    public void free() {
        text = null;
    }
}
