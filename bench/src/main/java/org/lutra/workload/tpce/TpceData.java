package org.lutra.workload.tpce;

import org.lutra.workload.TableData;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * TPC-E's customers, accounts, brokers and trades in chunks (TPC-E's load units) of 1,000
 * customers, about 5,000 accounts (1 to 9 a customer) and 10 brokers. An account links its
 * customer to a broker: one of its chunk's brokers, except for {@value #CROSS_CHUNK} of the
 * accounts, whose broker is in another chunk (TPC-E keeps every account's broker in its load
 * unit; links across chunks make a placement by chunk imperfect, as real data is). Each account
 * starts with {@value #TRADES_PER_ACCOUNT} completed trades, made over time across all accounts
 * (trade ids follow time), and one account in {@value #PENDING_EVERY} with a pending one.
 */
final class TpceData {
    static final int CUSTOMERS_PER_CHUNK = 1000;
    static final int BROKERS_PER_CHUNK = 10;
    static final double CROSS_CHUNK = 0.01;
    static final int TRADES_PER_ACCOUNT = 1;
    static final int PENDING_EVERY = 20;
    static final long EPOCH_SECONDS = 1_104_537_600L; // 2005-01-01
    static final String[] SYMBOLS = {"AAPL", "MSFT", "IBM", "ORCL", "SAP", "INTC", "CSCO", "HPQ", "DELL", "EBAY", "YHOO", "AMZN"};

    final int chunks;
    final int customers;
    final int brokers;
    final int accounts;
    final int[] firstAccount; // of customer c at c - 1; its accounts are firstAccount[c-1] .. firstAccount[c]-1
    final int[] customerOf; // of account a at a - 1
    final int[] brokerOf;
    final int trades;
    final int[] tradeAccount; // of trade t at t - 1
    final boolean[] pendingAtStart;
    private final long seed;

    TpceData(int chunks, long seed) {
        this.chunks = chunks;
        this.seed = seed;
        this.customers = chunks * CUSTOMERS_PER_CHUNK;
        this.brokers = chunks * BROKERS_PER_CHUNK;
        var random = new SplittableRandom(seed ^ 0x7bce);
        firstAccount = new int[customers + 1];
        var owner = new ArrayList<Integer>();
        for (int c = 1; c <= customers; c++) {
            firstAccount[c - 1] = owner.size() + 1;
            int n = 1 + random.nextInt(9);
            for (int i = 0; i < n; i++) owner.add(c);
        }
        firstAccount[customers] = owner.size() + 1;
        accounts = owner.size();
        customerOf = owner.stream().mapToInt(Integer::intValue).toArray();
        brokerOf = new int[accounts];
        for (int a = 0; a < accounts; a++) {
            int chunk = (customerOf[a] - 1) / CUSTOMERS_PER_CHUNK;
            if (chunks > 1 && random.nextDouble() < CROSS_CHUNK) chunk = (chunk + 1 + random.nextInt(chunks - 1)) % chunks;
            brokerOf[a] = chunk * BROKERS_PER_CHUNK + 1 + random.nextInt(BROKERS_PER_CHUNK);
        }
        int pending = accounts / PENDING_EVERY;
        trades = accounts * TRADES_PER_ACCOUNT + pending;
        tradeAccount = new int[trades];
        int at = 0;
        for (int a = 1; a <= accounts; a++) for (int i = 0; i < TRADES_PER_ACCOUNT; i++) tradeAccount[at++] = a;
        for (int i = 0; i < pending; i++) tradeAccount[at++] = 1 + random.nextInt(accounts);
        pendingAtStart = new boolean[trades];
        for (int i = accounts * TRADES_PER_ACCOUNT; i < trades; i++) pendingAtStart[i] = true;
        for (int i = trades - 1; i > 0; i--) { // time order across accounts
            int j = random.nextInt(i + 1);
            int t = tradeAccount[i];
            tradeAccount[i] = tradeAccount[j];
            tradeAccount[j] = t;
            boolean p = pendingAtStart[i];
            pendingAtStart[i] = pendingAtStart[j];
            pendingAtStart[j] = p;
        }
    }

    int chunkOfCustomer(int c) {
        return (c - 1) / CUSTOMERS_PER_CHUNK;
    }

    /** A customer's tax id, unique: c times a number coprime with 10^9, modulo 10^9, as ddd-dd-dddd. */
    static String taxId(int c) {
        long n = (c * 387_420_489L) % 1_000_000_000L;
        String d = String.format("%09d", n);
        return d.substring(0, 3) + "-" + d.substring(3, 5) + "-" + d.substring(5);
    }

    /** An account's balance before any trade: 10,000.00 to 60,000.00, from the seed. */
    BigDecimal openingBalance(int account) {
        long cents = 1_000_000 + new SplittableRandom(seed * 131 + account).nextLong(5_000_000);
        return BigDecimal.valueOf(cents, 2);
    }

    /** What trade {@code t} (initial or new) would be: its order's terms, from the seed. */
    Order order(long t) {
        var random = new SplittableRandom(seed * 7919 + t);
        boolean sell = random.nextBoolean();
        int qty = 100 * (1 + random.nextInt(8));
        BigDecimal price = BigDecimal.valueOf(2000 + random.nextInt(1001), 2);
        BigDecimal comm = price.multiply(BigDecimal.valueOf(qty)).multiply(new BigDecimal("0.005")).setScale(2, RoundingMode.HALF_UP);
        return new Order(SYMBOLS[random.nextInt(SYMBOLS.length)], qty, price, sell, comm, new BigDecimal("5.00"));
    }

    /** A trade's terms; it executes at its bid price. */
    record Order(String symbol, int qty, BigDecimal price, boolean sell, BigDecimal comm, BigDecimal charge) {
        String type() {
            return sell ? "TMS" : "TMB";
        }

        /** What completing it adds to its account's balance: the proceeds of a sale or minus the cost of a buy, less fees. */
        BigDecimal settlement() {
            BigDecimal value = price.multiply(BigDecimal.valueOf(qty));
            return (sell ? value : value.negate()).subtract(comm).subtract(charge);
        }
    }

    static LocalDateTime time(long t) {
        return LocalDateTime.ofEpochSecond(EPOCH_SECONDS + t * 60, 0, ZoneOffset.UTC);
    }

    List<TableData> tables() {
        var customerRows = new ArrayList<Object[]>(customers);
        for (int c = 1; c <= customers; c++) {
            var random = new SplittableRandom(seed * 17 + c);
            customerRows.add(new Object[] {(long) c, taxId(c), "ACTV", "Last" + c, "First" + (c % 997), 1 + random.nextInt(3),
                    LocalDate.of(1940 + random.nextInt(60), 1 + random.nextInt(12), 1 + random.nextInt(28))});
        }
        var brokerRows = new ArrayList<Object[]>(brokers);
        int[] trades = new int[brokers + 1];
        BigDecimal[] comm = new BigDecimal[brokers + 1];
        java.util.Arrays.fill(comm, BigDecimal.ZERO.setScale(2));
        BigDecimal[] balance = new BigDecimal[accounts + 1];
        for (int a = 1; a <= accounts; a++) balance[a] = openingBalance(a);
        var tradeRows = new ArrayList<Object[]>(this.trades);
        for (int t = 1; t <= this.trades; t++) {
            int a = tradeAccount[t - 1];
            Order o = order(t);
            boolean pending = pendingAtStart[t - 1];
            if (!pending) {
                balance[a] = balance[a].add(o.settlement());
                trades[brokerOf[a - 1]]++;
                comm[brokerOf[a - 1]] = comm[brokerOf[a - 1]].add(o.comm());
            }
            tradeRows.add(new Object[] {(long) t, time(t), pending ? "PNDG" : "CMPT", o.type(), 1, o.symbol(), o.qty(), o.price(), (long) a,
                    "Exec" + (t % 1000), pending ? null : o.price(), o.charge(), o.comm(), 1});
        }
        for (int b = 1; b <= brokers; b++) brokerRows.add(new Object[] {(long) b, "ACTV", "Broker" + b, trades[b], comm[b]});
        var accountRows = new ArrayList<Object[]>(accounts);
        for (int a = 1; a <= accounts; a++) {
            accountRows.add(new Object[] {(long) a, (long) brokerOf[a - 1], (long) customerOf[a - 1], "Account " + a, a % 3, balance[a]});
        }
        return List.of(
                new TableData("customer", List.of("c_id", "c_tax_id", "c_st_id", "c_l_name", "c_f_name", "c_tier", "c_dob"), customerRows),
                new TableData("broker", List.of("b_id", "b_st_id", "b_name", "b_num_trades", "b_comm_total"), brokerRows),
                new TableData("account", List.of("ca_id", "ca_b_id", "ca_c_id", "ca_name", "ca_tax_st", "ca_bal"), accountRows),
                new TableData("trade", List.of("t_id", "t_dts", "t_st_id", "t_tt_id", "t_is_cash", "t_s_symb", "t_qty", "t_bid_price", "t_ca_id",
                        "t_exec_name", "t_trade_price", "t_chrg", "t_comm", "t_lifo"), tradeRows));
    }
}
