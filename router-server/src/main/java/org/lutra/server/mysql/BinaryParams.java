package org.lutra.server.mysql;

import com.google.protobuf.ByteString;
import io.netty.buffer.ByteBuf;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.nio.charset.Charset;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * COM_STMT_EXECUTE's parameters (Protocol::COM_STMT_EXECUTE) as the router's values: the NULL
 * bitmap, the types the client bound (sent with "new params bound", else those of the statement's
 * previous execution), then each non-NULL value that was not sent as long data before.
 */
final class BinaryParams {
    private BinaryParams() {}

    static List<Value> read(ByteBuf in, PreparedStatements.Statement statement, Charset charset) throws SQLException {
        int n = statement.paramCount();
        var values = new ArrayList<Value>(n);
        if (n == 0) return values;
        byte[] nulls = new byte[(n + 7) / 8];
        in.readBytes(nulls);
        boolean newTypes = in.readByte() != 0;
        if (newTypes) {
            int[] types = new int[n];
            for (int i = 0; i < n; i++) types[i] = in.readUnsignedShortLE(); // type, then 0x80 in the high byte for unsigned
            statement.types(types);
        }
        int[] types = statement.types();
        if (types == null) throw new SQLException("COM_STMT_EXECUTE without the parameters' types on a statement's first execution", "HY000", 1210);
        for (int i = 0; i < n; i++) {
            byte[] longData = statement.longData(i);
            if ((nulls[i >> 3] & (1 << (i & 7))) != 0) {
                values.add(Value.newBuilder().setIsNull(true).build());
            } else if (longData != null) {
                values.add(fromBytes(types[i] & 0xFF, longData, charset));
            } else {
                values.add(read(in, types[i] & 0xFF, (types[i] & 0x8000) != 0, charset));
            }
        }
        return values;
    }

    private static Value read(ByteBuf in, int type, boolean unsigned, Charset charset) throws SQLException {
        var v = Value.newBuilder();
        switch (type) {
            case MysqlWire.TYPE_NULL -> v.setIsNull(true);
            case MysqlWire.TYPE_TINY -> v.setIntValue(unsigned ? in.readUnsignedByte() : in.readByte());
            case MysqlWire.TYPE_SHORT, MysqlWire.TYPE_YEAR -> v.setIntValue(unsigned ? in.readUnsignedShortLE() : in.readShortLE());
            case MysqlWire.TYPE_LONG, MysqlWire.TYPE_INT24 -> v.setIntValue(unsigned ? in.readUnsignedIntLE() : in.readIntLE());
            case MysqlWire.TYPE_LONGLONG -> {
                long n = in.readLongLE();
                if (unsigned && n < 0) v.setDecimalValue(Long.toUnsignedString(n));
                else v.setIntValue(n);
            }
            case MysqlWire.TYPE_FLOAT -> v.setFloatValue(in.readFloatLE());
            case MysqlWire.TYPE_DOUBLE -> v.setDoubleValue(in.readDoubleLE());
            case MysqlWire.TYPE_DATE, MysqlWire.TYPE_DATETIME, MysqlWire.TYPE_TIMESTAMP, MysqlWire.TYPE_NEWDATE -> dateTime(in, type, v);
            case MysqlWire.TYPE_TIME -> time(in, v);
            default -> {
                return fromBytes(type, MysqlWire.readLenEncBytes(in), charset);
            }
        }
        return v.build();
    }

    /** A value sent as a string (or as long data): text in the client's character set, or bytes for binary types. */
    private static Value fromBytes(int type, byte[] bytes, Charset charset) throws SQLException {
        var v = Value.newBuilder();
        switch (type) {
            case MysqlWire.TYPE_DECIMAL, MysqlWire.TYPE_NEWDECIMAL -> {
                String text = new String(bytes, java.nio.charset.StandardCharsets.US_ASCII).trim();
                try {
                    new BigDecimal(text);
                } catch (NumberFormatException e) {
                    throw new SQLException("Incorrect decimal value: '" + (text.length() > 40 ? text.substring(0, 40) + "..." : text)
                            + "' for a parameter", "22007", 1366);
                }
                v.setDecimalValue(text);
            }
            // BLOB-typed and BIT parameters are bytes (Connector/J's setBytes, a binary stream); the string types are text
            case MysqlWire.TYPE_TINY_BLOB, MysqlWire.TYPE_MEDIUM_BLOB, MysqlWire.TYPE_LONG_BLOB, MysqlWire.TYPE_BLOB, MysqlWire.TYPE_BIT,
                 MysqlWire.TYPE_GEOMETRY -> v.setBytesValue(ByteString.copyFrom(bytes));
            default -> v.setStringValue(new String(bytes, charset));
        }
        return v.build();
    }

    private static void dateTime(ByteBuf in, int type, Value.Builder v) {
        int length = in.readUnsignedByte();
        int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, micros = 0;
        if (length >= 4) {
            year = in.readUnsignedShortLE();
            month = in.readUnsignedByte();
            day = in.readUnsignedByte();
        }
        if (length >= 7) {
            hour = in.readUnsignedByte();
            minute = in.readUnsignedByte();
            second = in.readUnsignedByte();
        }
        if (length >= 11) micros = (int) in.readUnsignedIntLE();
        String date = String.format("%04d-%02d-%02d", year, month, day);
        if (type == MysqlWire.TYPE_DATE) {
            v.setDateValue(date);
            return;
        }
        String time = String.format("%02d:%02d:%02d", hour, minute, second) + (micros != 0 ? String.format(".%06d", micros) : "");
        v.setTimestampValue(date + " " + time);
    }

    private static void time(ByteBuf in, Value.Builder v) {
        int length = in.readUnsignedByte();
        boolean negative = false;
        long days = 0;
        int hour = 0, minute = 0, second = 0, micros = 0;
        if (length >= 8) {
            negative = in.readByte() != 0;
            days = in.readUnsignedIntLE();
            hour = in.readUnsignedByte();
            minute = in.readUnsignedByte();
            second = in.readUnsignedByte();
        }
        if (length >= 12) micros = (int) in.readUnsignedIntLE();
        v.setTimeValue((negative ? "-" : "") + String.format("%02d:%02d:%02d", days * 24 + hour, minute, second)
                + (micros != 0 ? String.format(".%06d", micros) : ""));
    }
}
