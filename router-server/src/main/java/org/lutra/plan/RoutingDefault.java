package org.lutra.plan;

import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.create.table.ColumnDefinition;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import org.lutra.catalog.ColumnType;
import org.lutra.catalog.CreateTableColumns;
import org.lutra.catalog.TableDef;
import org.lutra.sql.PlanException;
import org.lutra.sql.ValueRef;

import java.util.List;
import java.util.Locale;

/**
 * The value a row inserted without its routing column holds there, read from the column's definition in the table's
 * CREATE TABLE text, so that the row is placed where that value places it (and a later {@code UPDATE} of the column
 * moves it from there). An ORM that inserts a child before it sets the parent's id (Hibernate:
 * {@code INSERT INTO pets (name) ...}, then {@code UPDATE pets SET owner_id = ? WHERE id = ?}) leaves the column NULL.
 *
 * <ul>
 *   <li>{@code DEFAULT literal} (a number, a string, NULL): that literal;</li>
 *   <li>no DEFAULT, nullable: NULL;</li>
 *   <li>no DEFAULT, NOT NULL: MariaDB's implicit default where it has one the router can route on (0 for a number
 *       column, '' for a string one); under strict mode the partition then refuses the row itself (1364), as one
 *       MariaDB does;</li>
 *   <li>anything else (a default that is an expression, such as {@code CURRENT_TIMESTAMP} or {@code (UUID())}; a NOT
 *       NULL date column) is refused: the router would not know where the row belongs.</li>
 * </ul>
 * AUTO_INCREMENT routing columns are filled by the router itself ({@link InsertIds}) and never come here.
 */
final class RoutingDefault {
    private RoutingDefault() {}

    /** The routing column's value in a row that does not give it. */
    static ValueRef of(TableDef table, String column) throws PlanException {
        ColumnDefinition definition = definition(table, column);
        if (definition == null) throw refused(table, column, "its definition could not be read");
        List<String> specs = definition.getColumnSpecs() == null ? List.of() : definition.getColumnSpecs();
        boolean notNull = false;
        for (int i = 0; i < specs.size(); i++) {
            String spec = specs.get(i).toUpperCase(Locale.ROOT);
            if (spec.equals("NOT") && i + 1 < specs.size() && specs.get(i + 1).equalsIgnoreCase("NULL")) notNull = true;
            if (spec.equals("PRIMARY")) notNull = true; // a primary key column is NOT NULL
            if (!spec.equals("DEFAULT")) continue;
            if (i + 1 >= specs.size()) break;
            String literal = specs.get(i + 1);
            if ((literal.equals("-") || literal.equals("+")) && i + 2 < specs.size()) literal += specs.get(i + 2);
            ValueRef value;
            try {
                value = KeyFinder.valueRef(CCJSqlParserUtil.parseExpression(literal));
            } catch (JSQLParserException | RuntimeException e) {
                value = null;
            }
            if (!(value instanceof ValueRef.Literal)) {
                throw refused(table, column, "its DEFAULT " + literal + " is not a literal the router can route on");
            }
            return value;
        }
        if (!notNull) return new ValueRef.Literal(null);
        ColumnType type = table.column(column) == null ? null : table.column(column).type();
        if (type != null && (type.integer() || type.kind() == ColumnType.Kind.DECIMAL)) return new ValueRef.Literal(0L);
        if (type != null && type.text()) return new ValueRef.Literal("");
        throw refused(table, column, "it is NOT NULL without a DEFAULT the router can route on");
    }

    private static ColumnDefinition definition(TableDef table, String column) {
        if (table.ddl() == null) return null;
        try {
            var create = (CreateTable) CCJSqlParserUtil.parse(table.ddl());
            for (ColumnDefinition c : CreateTableColumns.columnList(create)) {
                if (KeyFinder.unquote(c.getColumnName()).equalsIgnoreCase(column)) return c;
            }
        } catch (JSQLParserException | RuntimeException e) {
            return null;
        }
        return null;
    }

    private static PlanException refused(TableDef table, String column, String why) {
        return PlanException.unsupported("INSERT INTO " + table.name() + " without its routing column '" + column + "': " + why
                + " (the router must know the value the row will hold to place it); give the column a value");
    }
}
