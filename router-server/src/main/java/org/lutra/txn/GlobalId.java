package org.lutra.txn;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * A distributed transaction's id: {@code lutra:<router>:<life>:<seq>:<coordinator>}. The router
 * name is configured (stable across restarts, distinct per router), the life is new at every
 * start (start time and randomness), so ids never repeat across routers or restarts. The
 * coordinator is the partition whose database holds this transaction's commit decision, which
 * lets any router that knows the partitions decide an in-doubt branch.
 */
public record GlobalId(String router, String life, long seq, String coordinator) {
    private static final Pattern FORMAT = Pattern.compile("lutra:([A-Za-z0-9_.-]{1,16}):([0-9a-z]{1,16}):([0-9a-z]{1,13}):(.+)");

    @Override
    public String toString() {
        return "lutra:" + router + ":" + life + ":" + Long.toString(seq, 36) + ":" + coordinator;
    }

    /** The id spelled by {@code gtrid}, or null if it is not one of Lutra's. */
    static GlobalId parse(String gtrid) {
        var m = FORMAT.matcher(gtrid);
        if (!m.matches()) return null;
        try {
            return new GlobalId(m.group(1), m.group(2), Long.parseLong(m.group(3), 36), m.group(4));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Hands out the ids of one router life. */
    static final class Factory {
        private final String router;
        private final String life;
        private final AtomicLong seq = new AtomicLong();

        Factory(String router) {
            this.router = router;
            this.life = Long.toString(System.currentTimeMillis(), 36) + Integer.toString(new SecureRandom().nextInt(36 * 36), 36);
        }

        GlobalId next(String coordinator) {
            return new GlobalId(router, life, seq.incrementAndGet(), coordinator);
        }

        String router() {
            return router;
        }

        String life() {
            return life;
        }

        /** Fails at start, naming the partition, if some coordinator name would make a gtrid longer than XA allows. */
        void check(Iterable<String> partitionNames) {
            for (String p : partitionNames) {
                String worst = new GlobalId(router, life, Long.MAX_VALUE, p).toString();
                if (worst.length() > Xid.MAX_PART_BYTES) {
                    throw new IllegalArgumentException("XA transaction ids coordinated by partition '" + p + "' would be up to "
                            + worst.length() + " bytes, more than XA's 64: shorten transactions.router_name ('" + router
                            + "') or the partition name");
                }
            }
        }
    }
}
