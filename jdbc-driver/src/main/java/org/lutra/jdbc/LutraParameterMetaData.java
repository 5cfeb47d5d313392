package org.lutra.jdbc;

import java.sql.ParameterMetaData;
import java.sql.SQLException;
import java.sql.Types;

/**
 * Only the number of parameters is known on the client: the router does not describe a
 * statement before running it. The rest answers "unknown" the way JDBC allows.
 */
final class LutraParameterMetaData implements ParameterMetaData {
    private final int count;

    LutraParameterMetaData(int count) {
        this.count = count;
    }

    private void check(int i) throws SQLException {
        if (i < 1 || i > count) {
            throw Errors.of("parameter index " + i + " is out of range 1.." + count, Errors.INVALID_PARAMETER_INDEX);
        }
    }

    @Override
    public int getParameterCount() {
        return count;
    }

    @Override
    public int isNullable(int i) throws SQLException {
        check(i);
        return parameterNullableUnknown;
    }

    @Override
    public boolean isSigned(int i) throws SQLException {
        check(i);
        return true;
    }

    @Override
    public int getPrecision(int i) throws SQLException {
        check(i);
        return 0;
    }

    @Override
    public int getScale(int i) throws SQLException {
        check(i);
        return 0;
    }

    @Override
    public int getParameterType(int i) throws SQLException {
        check(i);
        return Types.OTHER;
    }

    @Override
    public String getParameterTypeName(int i) throws SQLException {
        check(i);
        return "UNKNOWN";
    }

    @Override
    public String getParameterClassName(int i) throws SQLException {
        check(i);
        return Object.class.getName();
    }

    @Override
    public int getParameterMode(int i) throws SQLException {
        check(i);
        return parameterModeIn;
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return Wrappers.unwrap(this, iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return Wrappers.isWrapperFor(this, iface);
    }
}
