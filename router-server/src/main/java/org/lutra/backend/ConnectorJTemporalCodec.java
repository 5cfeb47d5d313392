package org.lutra.backend;

import com.mysql.cj.protocol.ValueDecoder;
import com.mysql.cj.protocol.a.MysqlBinaryValueDecoder;
import com.mysql.cj.protocol.a.MysqlTextValueDecoder;
import com.mysql.cj.result.StringValueFactory;
import org.mariadb.jdbc.client.ColumnDecoder;
import org.mariadb.jdbc.client.Context;
import org.mariadb.jdbc.client.DataType;
import org.mariadb.jdbc.client.ReadableByteBuf;
import org.mariadb.jdbc.client.socket.Writer;
import org.mariadb.jdbc.client.util.MutableInt;
import org.mariadb.jdbc.plugin.Codec;

import java.sql.SQLDataException;
import java.sql.SQLException;
import java.util.Calendar;
import java.util.EnumSet;

/**
 * A MariaDB Connector/J codec (registered in META-INF/services) that gives a DATE, TIME, DATETIME
 * or TIMESTAMP value as the text Connector/J's getString gives: Connector/J's own decoders run on
 * the value's bytes as the server sent them. MariaDB's getString differs (it pads every fraction to
 * the column's decimals and prints microseconds as an integer, "00:00:01.1000" for 1 ms; it moves
 * local times in a daylight-saving gap), and no public getter gives the bytes of a temporal value.
 * Read with {@code rs.getObject(i, ConnectorJTemporalCodec.Text.class)}.
 */
public final class ConnectorJTemporalCodec implements Codec<ConnectorJTemporalCodec.Text> {
    /** The text of one value; a type of its own so that no other codec claims it. */
    public record Text(String value) {}

    private static final EnumSet<DataType> TEMPORAL = EnumSet.of(DataType.DATE, DataType.NEWDATE, DataType.TIME, DataType.TIMESTAMP, DataType.DATETIME);
    private static final StringValueFactory STRINGS = new StringValueFactory(MariaDbColumns.CONNECTOR_J_DEFAULTS);
    private static final ValueDecoder TEXT = new MysqlTextValueDecoder();
    private static final ValueDecoder BINARY = new MysqlBinaryValueDecoder();

    @Override
    public String className() {
        return Text.class.getName();
    }

    @Override
    public boolean canDecode(ColumnDecoder column, Class<?> type) {
        return type == Text.class && TEMPORAL.contains(column.getType());
    }

    @Override
    public boolean canEncode(Object value) {
        return false;
    }

    @Override
    public Text decodeText(ReadableByteBuf buffer, MutableInt fieldLength, ColumnDecoder column, Calendar cal, Context context) throws SQLDataException {
        return decode(TEXT, buffer, fieldLength, column);
    }

    @Override
    public Text decodeBinary(ReadableByteBuf buffer, MutableInt fieldLength, ColumnDecoder column, Calendar cal, Context context) throws SQLDataException {
        return decode(BINARY, buffer, fieldLength, column);
    }

    /** As Connector/J's AbstractResultsetRow picks the decoder: by the protocol's type id, with the column's decimals. */
    private static Text decode(ValueDecoder decoder, ReadableByteBuf buffer, MutableInt fieldLength, ColumnDecoder column) throws SQLDataException {
        byte[] bytes = new byte[fieldLength.get()];
        buffer.readBytes(bytes);
        int scale = column.getDecimals();
        try {
            return new Text(switch (column.getType()) {
                case DATETIME -> decoder.decodeDatetime(bytes, 0, bytes.length, scale, STRINGS);
                case TIMESTAMP -> decoder.decodeTimestamp(bytes, 0, bytes.length, scale, STRINGS);
                case TIME -> decoder.decodeTime(bytes, 0, bytes.length, scale, STRINGS);
                default -> decoder.decodeDate(bytes, 0, bytes.length, STRINGS);
            });
        } catch (RuntimeException e) { // Connector/J's decoders fail with its unchecked exceptions, as its getString would
            throw new SQLDataException(e.getMessage(), "22007", e);
        }
    }

    @Override
    public void encodeText(Writer encoder, Context context, Object value, Calendar cal, Long length) throws SQLException {
        throw new SQLException("decoding only");
    }

    @Override
    public int getApproximateTextProtocolLength(Object value, Long length) {
        return 0;
    }

    @Override
    public void encodeBinary(Writer encoder, Context context, Object value, Calendar cal, Long length) throws SQLException {
        throw new SQLException("decoding only");
    }

    @Override
    public int getBinaryEncodeType() {
        return DataType.VARCHAR.get();
    }
}
