package org.lutra.workload.tpce;

import org.lutra.trace.Access;
import org.lutra.trace.TraceLine;
import org.lutra.workload.RunState;
import org.lutra.workload.Session;
import org.lutra.workload.Txn;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;

/**
 * TPC-E's Trade Order, Trade Result, Trade Status and Customer Position, with the reads and writes
 * of their frames on these four tables, each statement on its own (as an application's data layer
 * loads an account, then its customer, then its broker).
 */
final class TpceTxns {
    static final String ACCOUNT = "SELECT ca_name, ca_b_id, ca_c_id, ca_tax_st FROM account WHERE ca_id = ?";
    static final String CUSTOMER = "SELECT c_f_name, c_l_name, c_tier, c_tax_id FROM customer WHERE c_id = ?";
    static final String BROKER = "SELECT b_name FROM broker WHERE b_id = ?";
    static final String INSERT_TRADE = "INSERT INTO trade (t_id, t_dts, t_st_id, t_tt_id, t_is_cash, t_s_symb, t_qty, t_bid_price, t_ca_id,"
            + " t_exec_name, t_trade_price, t_chrg, t_comm, t_lifo) VALUES (?, ?, 'PNDG', ?, 1, ?, ?, ?, ?, ?, NULL, ?, ?, 1)";
    static final String TRADE = "SELECT t_ca_id, t_st_id, t_tt_id, t_qty, t_bid_price, t_comm, t_chrg FROM trade WHERE t_id = ?";
    static final String COMPLETE = "UPDATE trade SET t_st_id = 'CMPT', t_trade_price = ?, t_dts = ? WHERE t_id = ? AND t_st_id = 'PNDG'";
    static final String SETTLE = "UPDATE account SET ca_bal = ca_bal + ? WHERE ca_id = ?";
    static final String BROKER_COMMISSION = "UPDATE broker SET b_num_trades = b_num_trades + 1, b_comm_total = b_comm_total + ? WHERE b_id = ?";
    static final String LATEST_TRADES = "SELECT t_id, t_dts, t_st_id, t_tt_id, t_s_symb, t_qty, t_exec_name, t_chrg FROM trade WHERE t_ca_id = ?"
            + " ORDER BY t_dts DESC LIMIT 50";
    static final String BY_TAX_ID = "SELECT c_id FROM customer WHERE c_tax_id = ?";
    static final String CUSTOMER_DETAILS = "SELECT c_st_id, c_l_name, c_f_name, c_tier, c_dob FROM customer WHERE c_id = ?";
    static final String ACCOUNTS = "SELECT ca_id, ca_bal FROM account WHERE ca_c_id = ? ORDER BY ca_id LIMIT 10";
    static final String HISTORY = "SELECT t_id, t_s_symb, t_qty, t_st_id, t_dts FROM trade WHERE t_ca_id = ? ORDER BY t_dts DESC LIMIT 10";

    private TpceTxns() {}

    static Txn tradeOrder(Tpce tpce, int account, long tradeId) {
        return new TradeOrder(account, tpce.data.customerOf[account - 1], tpce.data.brokerOf[account - 1], tradeId, tpce.data.order(tradeId));
    }

    static Txn tradeResult(Tpce tpce, long tradeId) {
        return new TradeResult(tradeId, tpce);
    }

    static Txn tradeStatus(Tpce tpce, int account) {
        return new TradeStatus(account, tpce.data.customerOf[account - 1], tpce.data.brokerOf[account - 1]);
    }

    static Txn customerPosition(Tpce tpce, int customer, boolean byTaxId, int account) {
        var data = tpce.data;
        var accounts = new ArrayList<Integer>();
        for (int a = data.firstAccount[customer - 1]; a < data.firstAccount[customer] && accounts.size() < 10; a++) accounts.add(a);
        return new CustomerPosition(customer, byTaxId ? TpceData.taxId(customer) : null, accounts, account);
    }

    static Txn replay(Tpce tpce, TraceLine line) {
        var p = line.params();
        return switch (line.type()) {
            case "trade_order" -> tradeOrder(tpce, Integer.parseInt(p.get(0)), Long.parseLong(p.get(1)));
            case "trade_result" -> tradeResult(tpce, Long.parseLong(p.get(0)));
            case "trade_status" -> tradeStatus(tpce, Integer.parseInt(p.get(0)));
            case "customer_position" -> customerPosition(tpce, Integer.parseInt(p.get(0)), p.get(1) != null, Integer.parseInt(p.get(2)));
            default -> throw new IllegalArgumentException("not a tpce transaction: " + line.type());
        };
    }

    private static String s(long v) {
        return Long.toString(v);
    }

    /** A new order: the account, its customer and broker read, the trade inserted pending. */
    record TradeOrder(int account, int customer, int broker, long tradeId, TpceData.Order order) implements Txn {
        @Override
        public TraceLine trace() {
            return new TraceLine("trade_order", List.of(s(account), s(tradeId)), List.of(Access.read("account", s(customer)),
                    Access.read("customer", s(customer)), Access.read("broker", s(broker)), Access.write("trade", s(account))));
        }

        @Override
        public void run(Session session) throws SQLException {
            var ps = session.prepare(ACCOUNT);
            ps.setLong(1, account);
            long b;
            long c;
            try (var rs = ps.executeQuery()) {
                if (!rs.next()) throw new SQLException("tpce: no account " + account, "XX000");
                b = rs.getLong(2);
                c = rs.getLong(3);
            }
            if (c != customer || b != broker) throw new SQLException("tpce: account " + account + " names customer " + c + ", broker " + b, "XX000");
            readOne(session, CUSTOMER, c, "customer");
            readOne(session, BROKER, b, "broker");
            var insert = session.prepare(INSERT_TRADE);
            insert.setLong(1, tradeId);
            insert.setTimestamp(2, Timestamp.valueOf(TpceData.time(tradeId)));
            insert.setString(3, order.type());
            insert.setString(4, order.symbol());
            insert.setInt(5, order.qty());
            insert.setBigDecimal(6, order.price());
            insert.setLong(7, account);
            insert.setString(8, "Exec" + (tradeId % 1000));
            insert.setBigDecimal(9, order.charge());
            insert.setBigDecimal(10, order.comm());
            if (insert.executeUpdate() != 1) throw new SQLException("tpce: trade " + tradeId + " not inserted", "XX000");
        }

        @Override
        public void committed(RunState state) {
            var run = (Tpce.Run) state;
            run.pending.add(tradeId);
            run.ordered.incrementAndGet();
        }
    }

    private static void readOne(Session session, String sql, long id, String what) throws SQLException {
        var ps = session.prepare(sql);
        ps.setLong(1, id);
        try (var rs = ps.executeQuery()) {
            if (!rs.next()) throw new SQLException("tpce: no " + what + " " + id, "XX000");
        }
    }

    /**
     * The market reports a pending trade done at its bid price: the trade and its account read (TPC-E's
     * frames 1 and 2), the trade completed, its account settled, its broker's count and commission raised.
     * A trade found completed already is left alone.
     */
    record TradeResult(long tradeId, Tpce tpce) implements Txn {
        @Override
        public TraceLine trace() {
            var data = tpce.data;
            int account = tradeId <= data.trades ? data.tradeAccount[(int) tradeId - 1] : -1;
            var accesses = new ArrayList<Access>();
            if (account > 0) {
                accesses.add(Access.write("trade", s(account)));
                accesses.add(Access.write("account", s(data.customerOf[account - 1])));
                accesses.add(Access.write("broker", s(data.brokerOf[account - 1])));
            }
            return new TraceLine("trade_result", List.of(s(tradeId)), accesses);
        }

        @Override
        public void run(Session session) throws SQLException {
            var ps = session.prepare(TRADE);
            ps.setLong(1, tradeId);
            long account;
            boolean sell;
            int qty;
            BigDecimal price;
            BigDecimal comm;
            BigDecimal charge;
            try (var rs = ps.executeQuery()) {
                if (!rs.next()) throw new SQLException("tpce: no trade " + tradeId, "XX000");
                account = rs.getLong(1);
                if (!rs.getString(2).equals("PNDG")) return;
                sell = rs.getString(3).equals("TMS");
                qty = rs.getInt(4);
                price = rs.getBigDecimal(5);
                comm = rs.getBigDecimal(6);
                charge = rs.getBigDecimal(7);
            }
            var acct = session.prepare(ACCOUNT); // TPC-E's frame 2, before frame 5 completes the trade
            acct.setLong(1, account);
            long broker;
            try (var rs = acct.executeQuery()) {
                if (!rs.next()) throw new SQLException("tpce: no account " + account, "XX000");
                broker = rs.getLong(2);
            }
            var complete = session.prepare(COMPLETE);
            complete.setBigDecimal(1, price);
            complete.setTimestamp(2, Timestamp.valueOf(TpceData.time(tradeId)));
            complete.setLong(3, tradeId);
            if (complete.executeUpdate() != 1) return; // completed meanwhile by another Trade Result of the same report
            BigDecimal value = price.multiply(BigDecimal.valueOf(qty));
            var settle = session.prepare(SETTLE);
            settle.setBigDecimal(1, (sell ? value : value.negate()).subtract(comm).subtract(charge));
            settle.setLong(2, account);
            if (settle.executeUpdate() != 1) throw new SQLException("tpce: account " + account + " not settled", "XX000");
            var b = session.prepare(BROKER_COMMISSION);
            b.setBigDecimal(1, comm);
            b.setLong(2, broker);
            if (b.executeUpdate() != 1) throw new SQLException("tpce: broker " + broker + " not updated", "XX000");
        }
    }

    /** An account's 50 latest trades, and the names of its customer and broker. */
    record TradeStatus(int account, int customer, int broker) implements Txn {
        @Override
        public TraceLine trace() {
            return new TraceLine("trade_status", List.of(s(account)), List.of(Access.read("trade", s(account)), Access.read("account", s(customer)),
                    Access.read("customer", s(customer)), Access.read("broker", s(broker))));
        }

        @Override
        public void run(Session session) throws SQLException {
            var ps = session.prepare(LATEST_TRADES);
            ps.setLong(1, account);
            int n = 0;
            try (var rs = ps.executeQuery()) {
                while (rs.next()) n++;
            }
            if (n < 1) throw new SQLException("tpce: account " + account + " has no trades", "XX000");
            var acct = session.prepare(ACCOUNT);
            acct.setLong(1, account);
            try (var rs = acct.executeQuery()) {
                if (!rs.next()) throw new SQLException("tpce: no account " + account, "XX000");
            }
            readOne(session, CUSTOMER, customer, "customer");
            readOne(session, BROKER, broker, "broker");
        }
    }

    /** A customer (by id, or by tax id), its accounts and balances, and one account's 10 latest trades. */
    record CustomerPosition(int customer, String taxId, List<Integer> accounts, int account) implements Txn {
        @Override
        public TraceLine trace() {
            var accesses = new ArrayList<Access>();
            accesses.add(Access.read("customer", s(customer)));
            if (!accounts.isEmpty()) accesses.add(Access.read("account", s(customer)));
            accesses.add(Access.read("trade", s(account)));
            return new TraceLine("customer_position", java.util.Arrays.asList(s(customer), taxId, s(account)), accesses);
        }

        @Override
        public void run(Session session) throws SQLException {
            long c = customer;
            if (taxId != null) {
                var ps = session.prepare(BY_TAX_ID);
                ps.setString(1, taxId);
                try (var rs = ps.executeQuery()) {
                    if (!rs.next() || rs.getLong(1) != customer) throw new SQLException("tpce: tax id " + taxId + " is not customer " + customer, "XX000");
                }
            }
            readOne(session, CUSTOMER_DETAILS, c, "customer");
            var ps = session.prepare(ACCOUNTS);
            ps.setLong(1, c);
            int n = 0;
            try (var rs = ps.executeQuery()) {
                while (rs.next()) n++;
            }
            if (n != accounts.size()) throw new SQLException("tpce: customer " + c + " has " + n + " accounts, expected " + accounts.size(), "XX000");
            var history = session.prepare(HISTORY);
            history.setLong(1, account);
            try (var rs = history.executeQuery()) {
                while (rs.next()) {
                    rs.getLong(1);
                }
            }
        }
    }
}
