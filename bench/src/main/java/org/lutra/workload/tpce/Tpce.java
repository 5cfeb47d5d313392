package org.lutra.workload.tpce;

import org.lutra.trace.TraceLine;
import org.lutra.workload.Mix;
import org.lutra.workload.PartitionTrace;
import org.lutra.workload.RunState;
import org.lutra.workload.Scheme;
import org.lutra.workload.TableData;
import org.lutra.workload.Txn;
import org.lutra.workload.Workload;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The paper's TPC-E workload (§VI-A and E, Table II): customer, account, broker and trade
 * ({@link TpceData}), and four of TPC-E's transactions in its proportions: Trade Order 19.4 %,
 * Trade Result 19.2 %, Trade Status 36.5 %, Customer Position 25.0 % ({@link TpceTxns}).
 *
 * <p>Schemes: {@code hash} and {@code range} on each table's primary key (trade's ids follow time,
 * so range puts new trades on the last partition); {@code lookup}: customer by c_id and broker by
 * b_id, each placed by the partitioner, account {@code SAME AS} customer by its customer (ca_c_id: a customer's
 * accounts are where the customer is, so a read of them by customer id is a read of one key), trade by
 * its account (t_ca_id, a lookup of its own, placed by the partitioner with the account's customer),
 * with secondary lookups on the tax id, the account id and the trade id ({@code UNIQUE} all three).
 */
public final class Tpce implements Workload {
    private static final List<Scheme> SCHEMES = List.of(
            new Scheme("hash", "hash: customer by c_id, account by ca_id, broker by b_id, trade by t_id", false),
            new Scheme("range", "range: the same columns in ranges, a chunk's customers, accounts and brokers together", false),
            new Scheme("lookup", "lookup: customer, broker and trade (by its account) placed by the partitioner, account SAME AS customer; "
                    + "secondary lookups on tax id, account id, trade id", true));

    final TpceData data;
    private final long seed;

    /** {@code chunks} load units of 1,000 customers. */
    public Tpce(int chunks, long seed) {
        this.seed = seed;
        this.data = new TpceData(chunks, seed);
    }

    @Override
    public String name() {
        return "tpce";
    }

    @Override
    public String describe() {
        return String.format(Locale.ROOT, "%d chunks: %,d customers, %,d accounts, %,d brokers (%.0f %% of accounts with a broker in another chunk), "
                + "%,d trades; Trade Order 19.4 %%, Trade Result 19.2 %%, Trade Status 36.5 %%, Customer Position 25.0 %% (half by tax id)",
                data.chunks, data.customers, data.accounts, data.brokers, 100 * TpceData.CROSS_CHUNK, data.trades);
    }

    @Override
    public List<Scheme> schemes() {
        return SCHEMES;
    }

    static final String CUSTOMER = "CREATE TABLE customer (c_id BIGINT NOT NULL PRIMARY KEY, c_tax_id VARCHAR(20) NOT NULL, c_st_id CHAR(4) NOT NULL,"
            + " c_l_name VARCHAR(25) NOT NULL, c_f_name VARCHAR(20) NOT NULL, c_tier TINYINT NOT NULL, c_dob DATE NOT NULL, UNIQUE KEY c_tax_id (c_tax_id))";
    static final String BROKER = "CREATE TABLE broker (b_id BIGINT NOT NULL PRIMARY KEY, b_st_id CHAR(4) NOT NULL, b_name VARCHAR(49) NOT NULL,"
            + " b_num_trades INT NOT NULL, b_comm_total DECIMAL(12,2) NOT NULL)";
    static final String ACCOUNT = "CREATE TABLE account (ca_id BIGINT NOT NULL PRIMARY KEY, ca_b_id BIGINT NOT NULL, ca_c_id BIGINT NOT NULL,"
            + " ca_name VARCHAR(50), ca_tax_st TINYINT NOT NULL, ca_bal DECIMAL(12,2) NOT NULL, KEY ca_c_id (ca_c_id))";
    static final String TRADE = "CREATE TABLE trade (t_id BIGINT NOT NULL PRIMARY KEY, t_dts DATETIME NOT NULL, t_st_id CHAR(4) NOT NULL,"
            + " t_tt_id CHAR(3) NOT NULL, t_is_cash TINYINT NOT NULL, t_s_symb CHAR(15) NOT NULL, t_qty INT NOT NULL, t_bid_price DECIMAL(8,2) NOT NULL,"
            + " t_ca_id BIGINT NOT NULL, t_exec_name VARCHAR(49) NOT NULL, t_trade_price DECIMAL(8,2), t_chrg DECIMAL(10,2) NOT NULL,"
            + " t_comm DECIMAL(10,2) NOT NULL, t_lifo TINYINT NOT NULL, KEY t_ca_id (t_ca_id, t_dts))";

    @Override
    public String schema(Scheme scheme, int partitions) {
        var names = new ArrayList<String>();
        for (int p = 0; p < partitions; p++) names.add("p" + p);
        String on = "ON (" + String.join(", ", names) + ")";
        return switch (scheme.name()) {
            case "hash" -> CUSTOMER + " PARTITION BY hash(c_id) " + on + ";\n" + BROKER + " PARTITION BY hash(b_id) " + on + ";\n"
                    + ACCOUNT + " PARTITION BY hash(ca_id) " + on + ";\n" + TRADE + " PARTITION BY hash(t_id) " + on + ";\n";
            case "range" -> CUSTOMER + " PARTITION BY range(c_id) " + byChunk(partitions, TpceData.CUSTOMERS_PER_CHUNK) + ";\n"
                    + BROKER + " PARTITION BY range(b_id) " + byChunk(partitions, TpceData.BROKERS_PER_CHUNK) + ";\n"
                    + ACCOUNT + " PARTITION BY range(ca_id) " + accountRanges(partitions) + ";\n"
                    + TRADE + " PARTITION BY range(t_id) " + tradeRanges(partitions) + ";\n";
            case "lookup" -> CUSTOMER + " PARTITION BY lookup(c_id) " + on + " DEFAULT NEW ON hash(c_id);\n"
                    + BROKER + " PARTITION BY lookup(b_id) " + on + " DEFAULT NEW ON hash(b_id);\n"
                    + ACCOUNT + " PARTITION BY lookup(ca_c_id) SAME AS customer;\n"
                    + TRADE + " PARTITION BY lookup(t_ca_id) " + on + " DEFAULT NEW ON hash(t_ca_id);\n";
            default -> throw new IllegalArgumentException(scheme.name());
        };
    }

    /** Whole chunks per partition: partition p from chunk p × chunks / partitions. */
    private String byChunk(int partitions, int perChunk) {
        var parts = new ArrayList<String>();
        for (int p = 0; p < partitions - 1; p++) parts.add("p" + p + " < " + (1 + (long) perChunk * firstChunk(p + 1, partitions)));
        parts.add("p" + (partitions - 1));
        return "ON (" + String.join(", ", parts) + ")";
    }

    private int firstChunk(int partition, int partitions) {
        return (int) ((long) data.chunks * partition / partitions);
    }

    private String accountRanges(int partitions) {
        var parts = new ArrayList<String>();
        for (int p = 0; p < partitions - 1; p++) {
            int firstCustomer = 1 + TpceData.CUSTOMERS_PER_CHUNK * firstChunk(p + 1, partitions);
            parts.add("p" + p + " < " + data.firstAccount[firstCustomer - 1]);
        }
        parts.add("p" + (partitions - 1));
        return "ON (" + String.join(", ", parts) + ")";
    }

    /** The loaded trades' ids in equal ranges: new trades, with higher ids, all land on the last partition. */
    private String tradeRanges(int partitions) {
        var parts = new ArrayList<String>();
        for (int p = 0; p < partitions - 1; p++) parts.add("p" + p + " < " + (1 + (long) data.trades * (p + 1) / partitions));
        parts.add("p" + (partitions - 1));
        return "ON (" + String.join(", ", parts) + ")";
    }

    @Override
    public List<String> afterLoad(Scheme scheme) {
        if (!scheme.name().equals("lookup")) return List.of();
        return List.of("CREATE SECONDARY LOOKUP cust_tax ON customer (c_tax_id) UNIQUE",
                "CREATE SECONDARY LOOKUP acct_id ON account (ca_id) UNIQUE",
                "CREATE SECONDARY LOOKUP trade_id ON trade (t_id) UNIQUE");
    }

    @Override
    public List<String> plainSchema() {
        return List.of(CUSTOMER, BROKER, ACCOUNT, TRADE);
    }

    @Override
    public List<TableData> data() {
        return data.tables();
    }

    /**
     * The partitioner's trace: each customer's position once (the customer with its accounts),
     * each account's trade status once (account, customer, broker), then the mix again as many
     * times as there are accounts. Vertices: customers (accounts are SAME AS customer: their accesses name
     * their customer), brokers and accounts' trades.
     */
    @Override
    public PartitionTrace partitionTrace(Scheme scheme) {
        if (!scheme.lookup()) return null;
        var trace = new ArrayList<TraceLine>();
        for (int c = 1; c <= data.customers; c++) trace.add(TpceTxns.customerPosition(this, c, false, data.firstAccount[c - 1]).trace());
        for (int a = 1; a <= data.accounts; a++) trace.add(TpceTxns.tradeStatus(this, a).trace());
        var state = newRun();
        var mix = mix(0, 1, state);
        var random = new SplittableRandom(seed ^ 0x7ace);
        for (int i = 0; i < data.accounts; i++) trace.add(mix.next(random).trace());
        return new PartitionTrace("tpce: every customer's position and every account's trade status once, then " + data.accounts
                + " transactions of the mix; seed " + seed, trace, Map.of("account", "customer"), List.of("customer", "broker", "trade"));
    }

    /** A run's state: the pending trades a Trade Result completes, and the next trade id. */
    static final class Run implements RunState {
        final ConcurrentLinkedQueue<Long> pending = new ConcurrentLinkedQueue<>();
        final AtomicLong nextTrade;
        final AtomicLong ordered = new AtomicLong();

        Run(TpceData data) {
            for (int t = 1; t <= data.trades; t++) if (data.pendingAtStart[t - 1]) pending.add((long) t);
            nextTrade = new AtomicLong(data.trades + 1L);
        }
    }

    @Override
    public RunState newRun() {
        return new Run(data);
    }

    @Override
    public Mix mix(int client, int clients, RunState state) {
        var run = (Run) state;
        return random -> {
            double r = random.nextDouble() * 100;
            int c = 1 + random.nextInt(data.customers);
            int account = data.firstAccount[c - 1] + random.nextInt(data.firstAccount[c] - data.firstAccount[c - 1]);
            if (r < 19.4) return TpceTxns.tradeOrder(this, account, run.nextTrade.getAndIncrement());
            if (r < 38.6) {
                Long t = run.pending.poll();
                if (t != null) return TpceTxns.tradeResult(this, t);
                return TpceTxns.tradeStatus(this, account); // nothing pending: the market has no trade to report
            }
            if (r < 75.1) return TpceTxns.tradeStatus(this, account);
            return TpceTxns.customerPosition(this, c, random.nextBoolean(), data.firstAccount[c - 1] + random.nextInt(data.firstAccount[c] - data.firstAccount[c - 1]));
        };
    }

    @Override
    public Txn replay(TraceLine line) {
        return TpceTxns.replay(this, line);
    }

    /**
     * On the shards: each trade once, in a known state (PNDG without a price, CMPT with one); every
     * account's balance its opening balance plus the settlements of its completed trades; every
     * broker's trade count and commission those of its accounts' completed trades; customers,
     * accounts and brokers all there.
     */
    @Override
    public List<String> check(RunState state, List<Connection> databases) throws SQLException {
        var problems = new ArrayList<String>();
        var seen = new HashSet<Long>();
        var settled = new HashMap<Long, BigDecimal>();
        var completedOf = new HashMap<Long, long[]>();
        var commOf = new HashMap<Long, BigDecimal>();
        var balances = new HashMap<Long, BigDecimal>();
        var brokerOf = new HashMap<Long, Long>();
        long customers = 0;
        var brokers = new HashMap<Long, Object[]>();
        long badStates = 0;
        for (Connection c : databases) {
            try (var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM customer")) {
                rs.next();
                customers += rs.getLong(1);
            }
            try (var rs = c.createStatement().executeQuery("SELECT ca_id, ca_b_id, ca_bal FROM account")) {
                while (rs.next()) {
                    balances.put(rs.getLong(1), rs.getBigDecimal(3));
                    brokerOf.put(rs.getLong(1), rs.getLong(2));
                }
            }
            try (var rs = c.createStatement().executeQuery("SELECT b_id, b_num_trades, b_comm_total FROM broker")) {
                while (rs.next()) brokers.put(rs.getLong(1), new Object[] {rs.getLong(2), rs.getBigDecimal(3)});
            }
            try (var rs = c.createStatement().executeQuery("SELECT t_id, t_ca_id, t_st_id, t_tt_id, t_qty, t_trade_price, t_comm, t_chrg FROM trade")) {
                while (rs.next()) {
                    long t = rs.getLong(1);
                    if (!seen.add(t)) problems.add("trade " + t + " is on two partitions");
                    String st = rs.getString(3);
                    BigDecimal price = rs.getBigDecimal(6);
                    if (st.equals("PNDG") && price == null) continue;
                    if (!st.equals("CMPT") || price == null) {
                        badStates++;
                        continue;
                    }
                    long account = rs.getLong(2);
                    BigDecimal value = price.multiply(BigDecimal.valueOf(rs.getInt(5)));
                    BigDecimal s = (rs.getString(4).equals("TMS") ? value : value.negate()).subtract(rs.getBigDecimal(7)).subtract(rs.getBigDecimal(8));
                    settled.merge(account, s, BigDecimal::add);
                    completedOf.computeIfAbsent(account, k -> new long[1])[0]++;
                    commOf.merge(account, rs.getBigDecimal(7), BigDecimal::add);
                }
            }
        }
        if (customers != data.customers) problems.add("customer holds " + customers + " rows, expected " + data.customers);
        if (balances.size() != data.accounts) problems.add("account holds " + balances.size() + " accounts, expected " + data.accounts);
        if (brokers.size() != data.brokers) problems.add("broker holds " + brokers.size() + " brokers, expected " + data.brokers);
        if (badStates > 0) problems.add(badStates + " trades in another state than PNDG without a price or CMPT with one");
        var run = (Run) state;
        long expected = data.trades + run.ordered.get();
        if (seen.size() != expected) problems.add("trade holds " + seen.size() + " trades, expected " + expected + " (" + run.ordered.get() + " ordered in the run)");
        long wrongBalances = 0;
        for (var e : balances.entrySet()) {
            BigDecimal want = data.openingBalance(e.getKey().intValue()).add(settled.getOrDefault(e.getKey(), BigDecimal.ZERO));
            if (want.compareTo(e.getValue()) != 0) wrongBalances++;
        }
        if (wrongBalances > 0) problems.add(wrongBalances + " accounts' balances differ from their opening balance plus their completed trades");
        var brokerTrades = new HashMap<Long, Long>();
        var brokerComm = new HashMap<Long, BigDecimal>();
        completedOf.forEach((a, n) -> brokerTrades.merge(brokerOf.getOrDefault(a, -1L), n[0], Long::sum));
        commOf.forEach((a, m) -> brokerComm.merge(brokerOf.getOrDefault(a, -1L), m, BigDecimal::add));
        long wrongBrokers = 0;
        for (var e : brokers.entrySet()) {
            long n = (Long) e.getValue()[0];
            BigDecimal comm = (BigDecimal) e.getValue()[1];
            if (n != brokerTrades.getOrDefault(e.getKey(), 0L) || comm.compareTo(brokerComm.getOrDefault(e.getKey(), BigDecimal.ZERO)) != 0) wrongBrokers++;
        }
        if (wrongBrokers > 0) problems.add(wrongBrokers + " brokers' trade counts or commissions differ from their accounts' completed trades");
        return problems;
    }
}
