package org.lutra.sql;

import org.lutra.protocol.Value;

import java.util.List;
import java.util.function.Function;

/** A value the router routes on: a literal from the SQL text, or the n-th bound parameter. */
public sealed interface ValueRef {
    /** The value as a Java object (Long, String, BigDecimal, Double, ...), or null for SQL NULL. */
    public Object resolve(List<Value> params, Function<Value, Object> decode);

    public record Literal(Object value) implements ValueRef {
        @Override
        public Object resolve(List<Value> params, Function<Value, Object> decode) {
            return value;
        }
    }

    public record Param(int index) implements ValueRef {
        @Override
        public Object resolve(List<Value> params, Function<Value, Object> decode) {
            return decode.apply(params.get(index));
        }
    }
}
