package org.lutra.txn;

import org.lutra.log.LogText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.UUID;

/** An unexpected exception as the client sees it: a short message with an incident id; the details go to the log. */
final class Internal {
    private static final Logger log = LoggerFactory.getLogger(Internal.class);

    private Internal() {}

    static SQLException error(Exception e) {
        String incident = UUID.randomUUID().toString().substring(0, 8);
        log.warn("internal error {}", incident, LogText.redacted(e)); // a message may quote the client's statement
        return new SQLException("internal router error (incident " + incident + " in the router's log)", "HY000", 0, e);
    }
}
