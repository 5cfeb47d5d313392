package org.lutra.paper;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.junit.EmbeddedShardsExtension;
import org.lutra.workload.Mix;
import org.lutra.workload.RunState;
import org.lutra.workload.Scheme;
import org.lutra.workload.Session;
import org.lutra.workload.Txn;
import org.lutra.workload.tpce.Tpce;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What each TPC-E transaction type costs the shards under range and lookup, counted by the shards' gates (statements
 * and units, as the benchmark charges them; printed for docs/benchmarks.md), and, for one transaction of each type,
 * the statements themselves from the shards' general logs: under lookup, none of the router's placement statements
 * but the new trade id's entry (no move fence, no entries' read, no move-batch counts).
 */
@ExtendWith(EmbeddedShardsExtension.class)
class TpceStatementsIT {
    private static final int BACKENDS = 4;
    private static final int PER_TYPE = 200;
    private static final List<String> TYPES = List.of("trade_order", "trade_result", "trade_status", "customer_position");
    private static final long SEED = 11;
    private static GatedRouterHost bench;

    @BeforeAll
    static void start() throws Exception {
        bench = GatedRouterHost.start("tpce-statements");
    }

    @AfterAll
    static void stop() throws Exception {
        if (bench != null) bench.close();
    }

    @Test
    void perTransactionType() throws Exception {
        var tpce = new Tpce(4, SEED);
        for (Scheme scheme : tpce.schemes()) {
            if (scheme.name().equals("hash")) continue;
            Path dir = bench.out().resolve(scheme.name());
            var placement = PartitionStep.place(tpce, scheme, BACKENDS, dir, "auto", SEED);
            try (var router = RouterTarget.deploy(bench.cluster(), bench.host(), tpce, scheme, BACKENDS, placement, 1, dir, bench.terminal())) {
                var state = tpce.newRun();
                Mix mix = tpce.mix(0, 1, state);
                var random = new SplittableRandom(SEED);
                try (var session = new Session(router.connect(), state)) {
                    session.connection().setAutoCommit(false);
                    for (int i = 0; i < 400; i++) run(session, mix.next(random), state); // warm: plans, connections, guesses
                    var costs = new LinkedHashMap<String, double[]>();
                    bench.cluster().enforce(true); // the gates count only while they enforce their capacity (here far above this load)
                    for (String type : TYPES) { // Trade Order first: its trades are pending for Trade Result
                        double[] before = totals();
                        for (int i = 0; i < PER_TYPE; i++) run(session, next(mix, random, type), state);
                        double[] after = totals();
                        costs.put(type, new double[] {(after[0] - before[0]) / PER_TYPE, (after[1] - before[1]) / PER_TYPE});
                    }
                    bench.cluster().enforce(false);
                    costs.forEach((type, c) -> System.out.printf(Locale.ROOT, "TpceStatementsIT: %s %s: %.2f statements, %.2f units a transaction (%d)%n",
                            scheme.name(), type, c[0], c[1], PER_TYPE));
                    for (String type : TYPES) {
                        var sent = generalLog(session, next(mix, random, type), state);
                        for (String s : sent) System.out.println("TpceStatementsIT: " + scheme.name() + " " + type + " " + s);
                        if (scheme.lookup()) {
                            // the accounts by customer are one key's rows (account SAME AS customer), Trade Result reads the account before
                            // it writes: no move fence, no move-batch counts; of the entries, only the new trade id's insert
                            var placements = sent.stream().filter(s -> s.contains("lutra_") && !s.contains("SELECT partitions INTO placed")).toList();
                            assertEquals(type.equals("trade_order") ? 1 : 0, placements.size(), type + ": " + sent);
                            placements.forEach(s -> assertTrue(s.contains("INSERT IGNORE INTO `lutra_sec_trade_id`"), type + ": " + sent));
                        }
                    }
                }
            }
        }
    }

    /** The mix's next transaction of {@code type} (a Trade Order's trade id is drawn then: one drawn earlier may have been ordered). */
    private static Txn next(Mix mix, SplittableRandom random, String type) {
        for (int i = 0; i < 100_000; i++) {
            Txn next = mix.next(random);
            if (next.trace().type().equals(type)) return next;
        }
        throw new AssertionError("the mix drew no " + type); // Trade Result: no trade pending
    }

    private static void run(Session session, Txn t, RunState state) throws Exception {
        t.run(session);
        session.connection().commit();
        t.committed(state);
    }

    private static double[] totals() {
        double statements = 0;
        double units = 0;
        for (int i = 0; i < BACKENDS; i++) {
            var c = bench.cluster().gateCounters(i);
            statements += c.commands();
            units += c.units();
        }
        return new double[] {statements, units};
    }

    private static List<String> generalLog(Session session, Txn t, RunState state) throws Exception {
        var conns = new ArrayList<Connection>();
        for (int i = 0; i < BACKENDS; i++) conns.add(bench.cluster().direct(i, null));
        try {
            for (Connection c : conns) {
                try (var st = c.createStatement()) {
                    st.execute("SET GLOBAL log_output = 'TABLE'");
                    st.execute("TRUNCATE TABLE mysql.general_log");
                    st.execute("SET GLOBAL general_log = ON");
                }
            }
            run(session, t, state);
            var sent = new ArrayList<String>();
            for (int i = 0; i < BACKENDS; i++) {
                try (var st = conns.get(i).createStatement()) {
                    st.execute("SET GLOBAL general_log = OFF");
                    try (var rs = st.executeQuery("SELECT command_type, CONVERT(argument USING utf8mb4), thread_id FROM mysql.general_log ORDER BY event_time")) {
                        while (rs.next()) {
                            String type = rs.getString(1);
                            String text = rs.getString(2).strip().replaceAll("\\s+", " ");
                            if (!type.equals("Query") && !type.equals("Execute")) continue;
                            if (text.matches("(?is).*(lutra_placement_log|lutra_catalog|XA RECOVER|information_schema|lutra_xa_decisions|lutra_router|IS_USED_LOCK|mysql-connector).*")
                                    || text.equals("SELECT 1") || text.toUpperCase(Locale.ROOT).startsWith("SET GLOBAL") || text.startsWith("SHOW ")) continue;
                            sent.add("p" + i + " t" + rs.getLong(3) + ": " + (text.length() > 160 ? text.substring(0, 160) + "..." : text));
                        }
                    }
                }
            }
            return sent;
        } finally {
            for (Connection c : conns) c.close();
        }
    }
}
