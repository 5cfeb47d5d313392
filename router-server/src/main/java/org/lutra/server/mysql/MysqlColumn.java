package org.lutra.server.mysql;

import io.netty.buffer.ByteBuf;
import org.lutra.backend.MysqlFields;
import org.lutra.protocol.Column;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.sql.Types;
import java.util.Locale;

/**
 * A result column as a MySQL server describes it (Protocol::ColumnDefinition41), made from the
 * router's column: the definition its backend sent where the router still has it
 * ({@link MysqlFields#current}), re-stated in the client's character set as a server converting
 * results to {@code character_set_results} does (length in the client's bytes per character);
 * otherwise worked out from the column's type, as MariaDB describes an expression of that type.
 *
 * @param type      MYSQL_TYPE_*, which also decides the binary protocol's encoding of a value
 * @param collation the character set the client decodes the column's text in (63: binary)
 */
record MysqlColumn(String schema, String table, String orgTable, String name, String orgName, int collation, long length, int type, int flags,
                   int decimals) {
    /** MariaDB's decimals of a FLOAT/DOUBLE (and other) result whose fraction is not fixed. */
    static final int NOT_FIXED_DECIMALS = 31;

    static MysqlColumn of(Column c, String database, ClientCharset client) {
        var raw = MysqlFields.current(c);
        if (raw != null) {
            boolean text = raw.getCollation() != MysqlWire.BINARY_COLLATION && isCharacterType(raw.getType());
            long length = raw.getLength();
            int collation = raw.getCollation();
            if (text) {
                // measured on MariaDB 11.4: a utf8mb4 TEXT column is sent as 262140 bytes to a client that named utf8mb4_general_ci
                // (MariaDB counts a TEXT's characters as its bytes), as 65535 to Connector/J, whose handshake names MySQL 8's
                // utf8mb4_0900_ai_ci (255), which MariaDB does not convert to; other columns in the client's bytes per character
                boolean blob = raw.getType() >= MysqlWire.TYPE_TINY_BLOB && raw.getType() <= MysqlWire.TYPE_BLOB;
                if (!blob) length = length / MysqlFields.maxBytesPerChar(collation) * client.maxBytesPerChar();
                else if (client.collation() < 255) length = Math.min(0xFFFFFFFFL, length * client.maxBytesPerChar());
                collation = client.collation();
            }
            return new MysqlColumn(raw.getOrgTable().isEmpty() ? "" : database, raw.getTableAlias(), raw.getOrgTable(), c.getLabel(), raw.getOrgName(),
                    collation, length, raw.getType(), raw.getFlags(), raw.getDecimals());
        }
        return derived(c, client);
    }

    private static boolean isCharacterType(int type) {
        return switch (type) {
            case MysqlWire.TYPE_VARCHAR, MysqlWire.TYPE_VAR_STRING, MysqlWire.TYPE_STRING, MysqlWire.TYPE_TINY_BLOB, MysqlWire.TYPE_MEDIUM_BLOB,
                 MysqlWire.TYPE_LONG_BLOB, MysqlWire.TYPE_BLOB, MysqlWire.TYPE_ENUM, MysqlWire.TYPE_SET, MysqlWire.TYPE_JSON -> true;
            default -> false;
        };
    }

    /** A column the router made (or changed): its MySQL type from the JDBC type and type name. */
    private static MysqlColumn derived(Column c, ClientCharset client) {
        String typeName = c.getTypeName().toUpperCase(Locale.ROOT);
        boolean unsigned = typeName.contains("UNSIGNED");
        int flags = (c.getNullable() ? 0 : MysqlWire.NOT_NULL_FLAG) | (unsigned ? MysqlWire.UNSIGNED_FLAG : 0);
        int precision = Math.max(0, c.getPrecision());
        int type;
        long length;
        int decimals = 0;
        int collation = MysqlWire.BINARY_COLLATION;
        switch (c.getJdbcType()) {
            case Types.TINYINT, Types.BOOLEAN -> {
                type = MysqlWire.TYPE_TINY;
                length = Math.max(1, precision);
                flags |= MysqlWire.NUM_FLAG;
            }
            case Types.SMALLINT -> {
                type = typeName.startsWith("YEAR") ? MysqlWire.TYPE_YEAR : MysqlWire.TYPE_SHORT;
                length = type == MysqlWire.TYPE_YEAR ? 4 : Math.max(6, precision);
                flags |= type == MysqlWire.TYPE_YEAR ? MysqlWire.UNSIGNED_FLAG | MysqlWire.NUM_FLAG : MysqlWire.NUM_FLAG;
            }
            case Types.INTEGER -> {
                type = typeName.startsWith("MEDIUMINT") ? MysqlWire.TYPE_INT24 : MysqlWire.TYPE_LONG;
                length = Math.max(precision, 11);
                flags |= MysqlWire.NUM_FLAG;
            }
            case Types.BIGINT -> {
                type = MysqlWire.TYPE_LONGLONG;
                length = Math.max(precision, 20);
                flags |= MysqlWire.NUM_FLAG;
            }
            case Types.REAL, Types.FLOAT -> {
                type = MysqlWire.TYPE_FLOAT;
                length = 12;
                decimals = c.getScale() > 0 ? c.getScale() : NOT_FIXED_DECIMALS;
                flags |= MysqlWire.NUM_FLAG;
            }
            case Types.DOUBLE -> {
                type = MysqlWire.TYPE_DOUBLE;
                length = 22;
                decimals = c.getScale() > 0 ? c.getScale() : NOT_FIXED_DECIMALS;
                flags |= MysqlWire.NUM_FLAG;
            }
            case Types.DECIMAL, Types.NUMERIC -> {
                type = MysqlWire.TYPE_NEWDECIMAL;
                decimals = Math.max(0, c.getScale());
                length = Math.max(1, precision) + (decimals > 0 ? 1 : 0) + (unsigned ? 0 : 1);
                flags |= MysqlWire.NUM_FLAG;
            }
            case Types.DATE -> {
                type = typeName.startsWith("YEAR") ? MysqlWire.TYPE_YEAR : MysqlWire.TYPE_DATE;
                length = type == MysqlWire.TYPE_YEAR ? 4 : 10;
                if (type == MysqlWire.TYPE_YEAR) flags |= MysqlWire.UNSIGNED_FLAG | MysqlWire.NUM_FLAG;
            }
            case Types.TIME -> {
                type = MysqlWire.TYPE_TIME;
                decimals = Math.max(0, c.getScale());
                length = 10 + (decimals > 0 ? decimals + 1 : 0);
            }
            case Types.TIMESTAMP -> {
                type = typeName.startsWith("TIMESTAMP") ? MysqlWire.TYPE_TIMESTAMP : MysqlWire.TYPE_DATETIME;
                decimals = Math.max(0, c.getScale());
                length = 19 + (decimals > 0 ? decimals + 1 : 0);
            }
            case Types.BIT -> {
                type = c.getPrecision() > 1 || typeName.equals("BIT") ? MysqlWire.TYPE_BIT : MysqlWire.TYPE_TINY;
                length = Math.max(1, precision);
                flags |= MysqlWire.UNSIGNED_FLAG;
            }
            case Types.BINARY -> {
                type = MysqlWire.TYPE_STRING;
                length = precision;
                flags |= MysqlWire.BINARY_FLAG;
            }
            case Types.VARBINARY -> {
                type = MysqlWire.TYPE_VAR_STRING;
                length = precision;
                flags |= MysqlWire.BINARY_FLAG;
            }
            case Types.LONGVARBINARY, Types.BLOB -> {
                type = MysqlWire.TYPE_BLOB;
                length = precision;
                flags |= MysqlWire.BINARY_FLAG | MysqlWire.BLOB_FLAG;
            }
            case Types.LONGVARCHAR, Types.CLOB -> {
                type = MysqlWire.TYPE_BLOB;
                collation = client.collation();
                length = (long) precision * client.maxBytesPerChar();
                flags |= MysqlWire.BLOB_FLAG;
            }
            case Types.CHAR -> {
                type = MysqlWire.TYPE_STRING;
                collation = client.collation();
                length = (long) precision * client.maxBytesPerChar();
            }
            default -> {
                type = MysqlWire.TYPE_VAR_STRING;
                collation = client.collation();
                length = (long) precision * client.maxBytesPerChar();
                decimals = 39; // MariaDB's for a string expression
            }
        }
        return new MysqlColumn("", c.getTable(), "", c.getLabel(), c.getName().equals(c.getLabel()) ? "" : c.getName(), collation, length, type, flags,
                decimals);
    }

    boolean unsigned() {
        return (flags & MysqlWire.UNSIGNED_FLAG) != 0;
    }

    boolean binary() {
        return collation == MysqlWire.BINARY_COLLATION;
    }

    /** The character set the column's text is sent in. */
    Charset charset(ClientCharset client) {
        return binary() ? StandardCharsets.UTF_8 : client.charset();
    }

    void write(ByteBuf b, Charset names) {
        MysqlWire.writeLenEncBytes(b, DEF);
        MysqlWire.writeLenEncString(b, schema, names);
        MysqlWire.writeLenEncString(b, table, names);
        MysqlWire.writeLenEncString(b, orgTable, names);
        MysqlWire.writeLenEncString(b, name, names);
        MysqlWire.writeLenEncString(b, orgName, names);
        b.writeByte(0x0C);
        b.writeShortLE(collation);
        b.writeIntLE((int) Math.min(length, 0xFFFFFFFFL));
        b.writeByte(type);
        b.writeShortLE(flags);
        b.writeByte(decimals);
        b.writeShortLE(0);
    }

    private static final byte[] DEF = {'d', 'e', 'f'};
}
