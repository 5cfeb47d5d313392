package org.lutra.server;

import org.lutra.exec.Result;
import org.lutra.merge.ListRows;
import org.lutra.exec.Plan;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;
import org.lutra.txn.SessionTransactions;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Locale;
import java.util.Set;

/**
 * The system variables a session keeps in the router (auto-commit, isolation, read-only, whether a
 * transaction is open), put into a partition's answer to {@code SELECT @@...} or
 * {@code SHOW VARIABLES} ({@link Plan.SessionVariables}); rows of variables that belong to one
 * backend session are left out of SHOW VARIABLES.
 */
final class SessionValues {
    private static final Set<String> BACKEND_SESSION_ONLY = Set.of("last_insert_id", "identity", "insert_id", "warning_count",
            "error_count", "pseudo_thread_id", "rand_seed1", "rand_seed2", "last_gtid", "gtid_next", "timestamp");

    private SessionValues() {}

    static Result.Rows patch(Plan.SessionVariables plan, Result.Rows answer, SessionTransactions session) throws SQLException {
        var rows = new ArrayList<Row>();
        try (var source = answer.rows()) {
            for (Row r; (r = source.next()) != null; ) {
                if (!plan.show()) {
                    var row = r.toBuilder();
                    for (int i = 0; i < plan.managed().size(); i++) {
                        String name = plan.managed().get(i);
                        if (name != null) row.setValues(i, value(name, session, false));
                    }
                    rows.add(row.build());
                    continue;
                }
                String name = r.getValues(0).getStringValue().toLowerCase(Locale.ROOT);
                if (BACKEND_SESSION_ONLY.contains(name)) continue;
                if (org.lutra.plan.SessionVariables.managed(name)) {
                    rows.add(r.toBuilder().setValues(1, value(name, session, true)).build());
                } else {
                    rows.add(r);
                }
            }
            return new Result.Rows(new ListRows(source.columns(), rows), answer.partitions());
        }
    }

    /** The session's value of a variable it keeps, as SELECT @@x (numbers) or SHOW VARIABLES (text) gives it. */
    private static Value value(String name, SessionTransactions session, boolean text) {
        return switch (name) {
            case "autocommit" -> flag(session.autocommit(), text);
            case "in_transaction" -> flag(session.inTransaction(), text);
            case "transaction_read_only", "tx_read_only" -> flag(session.readOnly(), text);
            default -> Value.newBuilder().setStringValue(isolationName(session.isolation())).build(); // transaction_isolation, tx_isolation
        };
    }

    private static Value flag(boolean on, boolean text) {
        return text ? Value.newBuilder().setStringValue(on ? "ON" : "OFF").build() : Value.newBuilder().setIntValue(on ? 1 : 0).build();
    }

    static String isolationName(int level) {
        return switch (level) {
            case Connection.TRANSACTION_READ_UNCOMMITTED -> "READ-UNCOMMITTED";
            case Connection.TRANSACTION_READ_COMMITTED -> "READ-COMMITTED";
            case Connection.TRANSACTION_SERIALIZABLE -> "SERIALIZABLE";
            default -> "REPEATABLE-READ";
        };
    }
}
