package org.lutra.jdbc;

import java.sql.SQLException;

/** java.sql.Wrapper for objects that wrap nothing: they unwrap only to what they are. */
final class Wrappers {
    private Wrappers() {}

    static <T> T unwrap(Object self, Class<T> iface) throws SQLException {
        if (iface != null && iface.isInstance(self)) {
            return iface.cast(self);
        }
        throw Errors.of(self.getClass().getSimpleName() + " does not wrap " + (iface == null ? null : iface.getName()), Errors.GENERAL);
    }

    static boolean isWrapperFor(Object self, Class<?> iface) {
        return iface != null && iface.isInstance(self);
    }
}
