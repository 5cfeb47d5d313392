package org.lutra.merge;

import org.junit.jupiter.api.Test;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Expected values are MariaDB 11.4's own answers to the same expressions over literals. */
class MariaDbDecimalsTest {
    private static Expr dec(String v) {
        return new Expr.Literal(Value.newBuilder().setDecimalValue(v).build());
    }

    private static Expr integer(long v) {
        return new Expr.Literal(Value.newBuilder().setIntValue(v).build());
    }

    private static Expr op(Expr.ArithOp op, Expr a, Expr b) {
        return new Expr.Arith(op, a, b);
    }

    /** The value as MariaDB shows it: the kept digits rounded to the expression's decimals. */
    private static String shown(Expr e) throws SQLException {
        Value v = e.eval(Row.getDefaultInstance());
        int decimals = Expr.decimals(e, List.of());
        return new BigDecimal(v.getDecimalValue()).setScale(decimals, java.math.RoundingMode.HALF_UP).toPlainString();
    }

    @Test
    void aQuotientKeepsWholeWordsOfDigitsUntilTheEnd() throws SQLException {
        // SELECT 1/3*3: 1.0000 (0.333333333 * 3, rounded), not 0.9999
        assertEquals("1.0000", shown(op(Expr.ArithOp.MULTIPLY, op(Expr.ArithOp.DIVIDE, integer(1), integer(3)), integer(3))));
        assertEquals("333333333.0000", shown(op(Expr.ArithOp.MULTIPLY, op(Expr.ArithOp.DIVIDE, integer(1), integer(3)), integer(1_000_000_000))));
        // SELECT 18446744073709551615 / 5.25 * 95
        assertEquals("333798226095696648271.4286", shown(op(Expr.ArithOp.MULTIPLY,
                op(Expr.ArithOp.DIVIDE, dec("18446744073709551615"), dec("5.25")), integer(95))));
        // AVG(a) / AVG(-5.5) over a = 1, 2, 4, 7: (14 / 4) / (-22.0 / 4)
        assertEquals("-0.63636364", shown(op(Expr.ArithOp.DIVIDE, op(Expr.ArithOp.DIVIDE, dec("14"), integer(4)),
                op(Expr.ArithOp.DIVIDE, dec("-22.0"), integer(4)))));
    }

    @Test
    void aQuotientIsCutNotRounded() throws SQLException {
        Value v = op(Expr.ArithOp.DIVIDE, integer(2), integer(3)).eval(Row.getDefaultInstance());
        assertEquals("0.666666666", v.getDecimalValue());
        assertEquals("0.666666666666666666", op(Expr.ArithOp.DIVIDE, dec("2.000000000"), integer(3)).eval(Row.getDefaultInstance()).getDecimalValue());
    }

    @Test
    void decimalsFollowTheOperands() {
        var columns = List.of(Column.newBuilder().setJdbcType(Types.DECIMAL).setScale(2).build());
        Expr sum = new Expr.Col(0, "SUM(d)");
        assertEquals(6, Expr.decimals(op(Expr.ArithOp.DIVIDE, sum, integer(7)), columns));
        assertEquals(3, Expr.decimals(op(Expr.ArithOp.MULTIPLY, sum, dec("1.5")), columns));
        assertEquals(2, Expr.decimals(op(Expr.ArithOp.ADD, sum, integer(7)), columns));
        assertEquals(8, Expr.decimals(op(Expr.ArithOp.DIVIDE, op(Expr.ArithOp.DIVIDE, integer(14), integer(4)), integer(2)), columns));
    }
}
