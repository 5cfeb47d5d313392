package org.lutra.backend;

import com.mysql.cj.CharsetMapping;
import com.mysql.cj.MysqlType;
import com.mysql.cj.conf.DefaultPropertySet;
import com.mysql.cj.conf.PropertySet;
import com.mysql.cj.protocol.a.NativeProtocol;
import com.mysql.cj.util.LazyString;
import org.lutra.protocol.Column;
import org.mariadb.jdbc.client.ColumnDecoder;
import org.mariadb.jdbc.client.result.Result;
import org.mariadb.jdbc.message.server.ColumnDefinitionPacket;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A column that MariaDB Connector/J decoded, described as Connector/J describes the same column
 * definition packet: applications of the router were written against Connector/J's metadata, and
 * MariaDB's own getters differ in most fields (type names, BLOB/TEXT types, precisions, display
 * sizes, TINYINT(1), extended types...). So this reads MariaDB's raw column definition (type id,
 * flags, length, decimals, collation) and runs Connector/J's own type choice on it
 * ({@link NativeProtocol#findMysqlType}), then applies what Connector/J's column reader and
 * ResultSetMetaData do to lengths, decimals and character widths.
 */
final class MariaDbColumns {
    /** MariaDB keeps the column definitions in private fields; no public getter exposes them. */
    private static final VarHandle FIELD_PACKETS = privateField(org.mariadb.jdbc.client.result.ResultSetMetaData.class, "fieldPackets", ColumnDecoder[].class);
    private static final VarHandle RESULT_COLUMNS = privateField(Result.class, "metadataList", ColumnDecoder[].class);
    private static final VarHandle COLLATION = privateField(ColumnDefinitionPacket.class, "charset", int.class);

    /**
     * Connector/J's defaults for the four properties its type choice reads (tinyInt1isBit,
     * transformedBitIsBoolean, blobsAreStrings, functionsNeverReturnBlobs): the router's
     * Connector/J options ({@link Backends}) leave them at their defaults.
     */
    static final PropertySet CONNECTOR_J_DEFAULTS = new DefaultPropertySet();
    private static final int MYSQL_TYPE_BIT = 16;
    private static final int MYSQL_TYPE_TINY = 1;
    private static final int BINARY_COLLATION = 63;
    private static final int NOT_NULL_FLAG = 1;

    /** The Java character set of each collation id seen (ids are below 4096 in practice). */
    private static final AtomicReferenceArray<Charset> CHARSETS = new AtomicReferenceArray<>(4096);

    /** Distinct column definitions seen; a router sees a bounded set, the bound guards against ad-hoc expression lengths. */
    private static final int MAX_CACHED = 4096;
    private static final ConcurrentHashMap<Definition, Column> BY_DEFINITION = new ConcurrentHashMap<>();

    /**
     * The described columns of a result, by MariaDB's array of its column definitions. With metadata
     * caching (the router's statements are server-prepared) MariaDB hands every execution of a statement
     * the same array, and a new one when the server says the definitions changed; the definitions are
     * immutable. So the array's identity (arrays do not override equals) finds the columns again without
     * describing them per execution. Bounded like {@link #BY_DEFINITION}: an uncached statement brings a
     * new array each time.
     */
    private static final ConcurrentHashMap<ColumnDecoder[], java.util.List<Column>> BY_RESULT = new ConcurrentHashMap<>();

    private MariaDbColumns() {}

    /** All columns of {@code md}, as {@link ValueCodec#column} describes each, the same list for the same definitions. */
    static java.util.List<Column> columns(org.mariadb.jdbc.client.result.ResultSetMetaData md) throws SQLException {
        var fields = (ColumnDecoder[]) FIELD_PACKETS.get(md);
        var known = BY_RESULT.get(fields);
        if (known != null) return known;
        var columns = new Column[fields.length];
        for (int i = 1; i <= fields.length; i++) columns[i - 1] = withField(ValueCodec.described(column(md, i)), fields[i - 1]);
        var list = java.util.List.of(columns);
        if (BY_RESULT.size() >= MAX_CACHED) BY_RESULT.clear();
        BY_RESULT.put(fields, list);
        return list;
    }

    /** {@code described} with the definition MariaDB sent for it, for the MySQL listener ({@link MysqlFields}). */
    private static Column withField(Column described, ColumnDecoder c) {
        int collation = c instanceof ColumnDefinitionPacket p ? (int) COLLATION.get(p) : 0;
        return MysqlFields.withField(described, c.getType().get(), c.getFlags(), c.getColumnLength() & 0xFFFFFFFFL, c.getDecimals(), collation,
                c.getTable(), c.getColumnName(), c.getTableAlias());
    }

    /** The column definition fields Connector/J's description depends on (names aside). */
    private record Definition(int typeId, int flags, long length, int decimals, int collation, boolean implicitTemporaryTable) {}

    /** {@code md} as MariaDB's metadata, or null when another driver produced it. */
    static org.mariadb.jdbc.client.result.ResultSetMetaData of(ResultSetMetaData md) throws SQLException {
        if (md instanceof org.mariadb.jdbc.client.result.ResultSetMetaData m) return m;
        if (md instanceof com.mysql.cj.jdbc.result.ResultSetMetaData) return null;
        return md.isWrapperFor(org.mariadb.jdbc.client.result.ResultSetMetaData.class)
                ? md.unwrap(org.mariadb.jdbc.client.result.ResultSetMetaData.class) : null;
    }

    /** Column {@code i} (1-based) as Connector/J's metadata describes it, names included. */
    static Column.Builder column(org.mariadb.jdbc.client.result.ResultSetMetaData md, int i) throws SQLException {
        var fields = (ColumnDecoder[]) FIELD_PACKETS.get(md);
        if (i < 1 || i > fields.length) throw new SQLException("wrong column index " + i);
        ColumnDecoder c = fields[i - 1];
        int typeId = c.getType().get();
        int collation = c instanceof ColumnDefinitionPacket p ? (int) COLLATION.get(p) : 0;
        // Connector/J calls a binary string column of a server's implicit temporary table (#sql_...) a string
        boolean temporary = collation == BINARY_COLLATION && isString(typeId) && c.getTableAlias().startsWith("#sql_");
        // MariaDB reads the 4-byte length as a signed int (LONGTEXT's 4294967295 is -1); Connector/J as unsigned
        var key = new Definition(typeId, c.getFlags(), c.getColumnLength() & 0xFFFFFFFFL, c.getDecimals(), collation, temporary);
        Column described = BY_DEFINITION.get(key);
        if (described == null) {
            described = describe(key);
            if (BY_DEFINITION.size() >= MAX_CACHED) BY_DEFINITION.clear();
            BY_DEFINITION.put(key, described);
        }
        String alias = c.getColumnAlias();
        String name = c.getColumnName();
        return described.toBuilder()
                .setName(name.isEmpty() ? alias : name) // an expression has no original name: Connector/J names it by its label
                .setLabel(alias)
                .setTable(c.getTable());
    }

    /** The column definitions of a MariaDB result set, or null when another driver produced {@code rs}. */
    static ColumnDecoder[] of(ResultSet rs) throws SQLException {
        if (rs instanceof Result r) return (ColumnDecoder[]) RESULT_COLUMNS.get(r);
        if (rs instanceof com.mysql.cj.jdbc.result.ResultSetImpl) return null;
        return rs.isWrapperFor(Result.class) ? (ColumnDecoder[]) RESULT_COLUMNS.get(rs.unwrap(Result.class)) : null;
    }

    /**
     * Column {@code i}'s text as Connector/J decodes it: in the character set of the column's
     * collation. The router's MariaDB sessions ask for results unconverted
     * (character_set_results=NULL, as Connector/J's do), so that the column definitions are the
     * ones Connector/J sees; MariaDB's getString would read every text as UTF-8.
     */
    static String text(ResultSet rs, ColumnDecoder[] columns, int i) throws SQLException {
        Charset charset = charset(columns[i - 1]);
        if (charset == StandardCharsets.UTF_8) return rs.getString(i);
        byte[] bytes = rs.getBytes(i);
        return bytes == null ? null : new String(bytes, charset);
    }

    /** A DATE, TIME, DATETIME or TIMESTAMP value as Connector/J's getString gives it ({@link ConnectorJTemporalCodec}). */
    static String temporal(ResultSet rs, int i) throws SQLException {
        var text = rs.getObject(i, ConnectorJTemporalCodec.Text.class);
        return text == null ? null : text.value();
    }

    /** A character string (not binary): its bytes are in the column's character set. */
    static boolean isText(ColumnDecoder c) {
        int type = c.getType().get();
        boolean stringOrBlob = isString(type) || type == MysqlType.FIELD_TYPE_BLOB || type == MysqlType.FIELD_TYPE_TINY_BLOB
                || type == MysqlType.FIELD_TYPE_MEDIUM_BLOB || type == MysqlType.FIELD_TYPE_LONG_BLOB;
        return stringOrBlob && !c.isBinary();
    }

    static boolean isTemporal(ColumnDecoder c) {
        int type = c.getType().get();
        return type == MysqlType.FIELD_TYPE_DATE || type == 14 /* NEWDATE */ || type == MysqlType.FIELD_TYPE_TIME
                || type == MysqlType.FIELD_TYPE_DATETIME || type == MysqlType.FIELD_TYPE_TIMESTAMP;
    }

    private static Charset charset(ColumnDecoder c) {
        int collation = c instanceof ColumnDefinitionPacket p ? (int) COLLATION.get(p) : 0;
        if (collation >= CHARSETS.length()) return ConnectorJCharsets.javaCharset(collation);
        Charset charset = CHARSETS.get(collation);
        if (charset == null) {
            charset = ConnectorJCharsets.javaCharset(collation);
            CHARSETS.set(collation, charset);
        }
        return charset;
    }

    private static boolean isString(int typeId) {
        return typeId == MysqlType.FIELD_TYPE_STRING || typeId == MysqlType.FIELD_TYPE_VAR_STRING || typeId == MysqlType.FIELD_TYPE_VARCHAR;
    }

    /** What Connector/J 9.7's ColumnDefinitionReader, Field and ResultSetMetaData compute from the definition. */
    private static Column describe(Definition d) {
        var type = NativeProtocol.findMysqlType(CONNECTOR_J_DEFAULTS, d.typeId(), (short) d.flags(), d.length(),
                new LazyString(d.implicitTemporaryTable() ? "#sql_" : ""), new LazyString(""), d.collation(), null);
        long length = d.length();
        int decimals = d.decimals();
        // ColumnDefinitionReader: "Protocol returns precision and scale differently for some types. We need to align them to I_S."
        switch (type) {
            case TINYINT, TINYINT_UNSIGNED, SMALLINT, SMALLINT_UNSIGNED, MEDIUMINT, MEDIUMINT_UNSIGNED, INT, INT_UNSIGNED, BIGINT,
                 BIGINT_UNSIGNED, BOOLEAN -> length = type.getPrecision();
            case DECIMAL -> length -= decimals > 0 ? 2 : 1;
            case DECIMAL_UNSIGNED -> length -= decimals > 0 ? 1 : 0;
            case FLOAT, FLOAT_UNSIGNED, DOUBLE, DOUBLE_UNSIGNED -> decimals = decimals == 31 ? 0 : decimals;
            default -> { }
        }
        int clamped = (int) Math.min(length, Integer.MAX_VALUE);
        int perChar = ConnectorJCharsets.maxBytesPerChar(d.collation());
        boolean blob = type == MysqlType.TINYBLOB || type == MysqlType.BLOB || type == MysqlType.MEDIUMBLOB || type == MysqlType.LONGBLOB;
        return Column.newBuilder()
                .setJdbcType(type == MysqlType.YEAR ? java.sql.Types.SMALLINT : type.getJdbcType()) // yearIsDateType=false
                .setTypeName(type.getName())
                .setPrecision(blob || type.isDecimal() ? clamped : clamped / perChar)
                .setScale(type.isDecimal() ? decimals : 0)
                .setNullable((d.flags() & NOT_NULL_FLAG) == 0)
                .setSigned(MysqlType.isSigned(type))
                .setDisplaySize(clamped / perChar)
                // as ValueCodec names Connector/J's types: TINYINT(1), which Connector/J calls BIT, is a TINYINT
                .setNativeType(d.typeId() == MYSQL_TYPE_BIT ? "BIT" : d.typeId() == MYSQL_TYPE_TINY ? "TINYINT" : type.getName())
                .build();
    }

    /** Connector/J's static character set tables (its default: detectCustomCollations=false), reached through their protected statics. */
    static final class ConnectorJCharsets extends CharsetMapping {
        /**
         * Connector/J's NativeCharsetSettings.getMaxBytesPerChar: the collation's character set,
         * else the one of the field's Java encoding, which for a collation Connector/J does not know
         * is the session's (UTF-8: utf8mb4); 1 if unknown.
         */
        static int maxBytesPerChar(int collation) {
            String charset = getStaticMysqlCharsetNameForCollationIndex(collation);
            if (charset == null) charset = "utf8mb4";
            int mblen = getStaticMblen(charset);
            return mblen > 0 ? mblen : 1;
        }

        /** Connector/J's Java encoding for a collation (the session's UTF-8 when its static tables do not know it). */
        static Charset javaCharset(int collation) {
            String encoding = getStaticJavaEncodingForCollationIndex(collation, "UTF-8");
            try {
                Charset charset = Charset.forName(encoding);
                return charset.equals(StandardCharsets.UTF_8) ? StandardCharsets.UTF_8 : charset;
            } catch (IllegalArgumentException e) {
                return StandardCharsets.UTF_8;
            }
        }
    }

    private static VarHandle privateField(Class<?> owner, String name, Class<?> type) {
        try {
            return MethodHandles.privateLookupIn(owner, MethodHandles.lookup()).findVarHandle(owner, name, type);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError("MariaDB Connector/J changed its internals (" + owner.getName() + "." + name + "): " + e);
        }
    }
}
