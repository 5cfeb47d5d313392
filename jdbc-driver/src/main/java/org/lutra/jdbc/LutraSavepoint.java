package org.lutra.jdbc;

import java.sql.SQLException;
import java.sql.Savepoint;

/**
 * A savepoint set through {@link LutraConnection#setSavepoint}: named by the application, or
 * unnamed with an id (it then travels as {@code lutra_savepoint_<id>}, as Connector/J names its own).
 */
final class LutraSavepoint implements Savepoint {
    private final String name;
    private final int id;

    private LutraSavepoint(String name, int id) {
        this.name = name;
        this.id = id;
    }

    static LutraSavepoint named(String name) {
        return new LutraSavepoint(name, 0);
    }

    static LutraSavepoint unnamed(int id) {
        return new LutraSavepoint(null, id);
    }

    /** The name SAVEPOINT / ROLLBACK TO / RELEASE use on the router. */
    String sqlName() {
        return name != null ? name : "lutra_savepoint_" + id;
    }

    @Override
    public int getSavepointId() throws SQLException {
        if (name != null) throw Errors.of("a named savepoint has no id (getSavepointName gives '" + name + "')", "HY000");
        return id;
    }

    @Override
    public String getSavepointName() throws SQLException {
        if (name == null) throw Errors.of("an unnamed savepoint has no name (getSavepointId gives " + id + ")", "HY000");
        return name;
    }

    @Override
    public String toString() {
        return sqlName();
    }
}
