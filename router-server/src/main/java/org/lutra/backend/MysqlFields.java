package org.lutra.backend;

import org.lutra.protocol.Column;
import org.lutra.protocol.MysqlField;

/**
 * Keeps, with a described column, the definition its backend sent ({@link MysqlField}), so that the
 * MySQL listener can send clients the definition one server would. A router operator that changes
 * a column's type (an aggregate, a union widening it) builds on the old column: the hash of the type
 * fields as they were read tells the listener the definition no longer fits.
 */
public final class MysqlFields {
    private MysqlFields() {}

    /** A hash of {@code c}'s type fields (names left out: relabelling keeps the definition valid). */
    public static int describedHash(Column c) {
        int h = c.getJdbcType();
        h = 31 * h + c.getTypeName().hashCode();
        h = 31 * h + c.getPrecision();
        h = 31 * h + c.getScale();
        h = 31 * h + (c.getNullable() ? 1 : 0);
        h = 31 * h + (c.getSigned() ? 1 : 0);
        h = 31 * h + c.getDisplaySize();
        return 31 * h + c.getNativeType().hashCode();
    }

    /** The definition kept with {@code c} if its type fields are still the ones it was read with, else null. */
    public static MysqlField current(Column c) {
        if (!c.hasMysql()) return null;
        var f = c.getMysql();
        return f.getDescribed() == describedHash(c) ? f : null;
    }

    /** The Java character set of a MySQL collation id, as Connector/J maps it (UTF-8 where it knows none). */
    public static java.nio.charset.Charset javaCharset(int collation) {
        return MariaDbColumns.ConnectorJCharsets.javaCharset(collation);
    }

    /** The most bytes one character takes in a collation's character set (1 if unknown). */
    public static int maxBytesPerChar(int collation) {
        return MariaDbColumns.ConnectorJCharsets.maxBytesPerChar(collation);
    }

    /** {@code described} with the backend's definition attached. */
    static Column withField(Column described, int type, int flags, long length, int decimals, int collation, String orgTable, String orgName,
                            String tableAlias) {
        var field = MysqlField.newBuilder().setType(type).setFlags(flags & 0xFFFF).setLength(length).setDecimals(decimals).setCollation(collation)
                .setOrgTable(orgTable == null ? "" : orgTable).setOrgName(orgName == null ? "" : orgName)
                .setTableAlias(tableAlias == null ? "" : tableAlias).setDescribed(describedHash(described));
        return described.toBuilder().setMysql(field).build();
    }
}
