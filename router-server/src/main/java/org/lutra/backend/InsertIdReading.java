package org.lutra.backend;

import java.util.OptionalLong;
import java.util.function.LongConsumer;

/**
 * A statement's connections that keep the last insert id its writes' OK packets carried, for
 * {@code UPDATE ... SET c = LAST_INSERT_ID(expr)}: MySQL puts the value the session's
 * LAST_INSERT_ID() became there (Connector/J's getLastInsertID). A backend evaluates the SET
 * values only for rows the WHERE matches (Connector/J counts matched rows, it sets
 * CLIENT_FOUND_ROWS), so only writes that matched rows report; a statement none of whose writes
 * matched leaves the session's value as it was, as in MySQL. The executor runs such an UPDATE on
 * one partition or on every replica of a replicated table, which compute the same value.
 */
public final class InsertIdReading extends Connections.Forwarding {
    private volatile OptionalLong value = OptionalLong.empty();

    public InsertIdReading(Connections inner) {
        super(inner);
    }

    public OptionalLong value() {
        return value;
    }

    @Override
    public LongConsumer insertIds() {
        return id -> value = OptionalLong.of(id);
    }
}
