package org.lutra.it;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.lutra.it.BenchBaseRun.letters;
import static org.lutra.it.BenchBaseRun.query;
import static org.lutra.it.BenchBaseRun.update;

/**
 * TPC-C at a small scale over BenchBase's MySQL schema, with the statements BenchBase's five transactions send (TPC-C
 * 2.4–2.8: NewOrder with its 1% of orders naming an unused item, rolled back; Payment and OrderStatus by customer id
 * and by last name; Delivery; StockLevel). Loading uses prepared batches, as BenchBase's loader does. Every value,
 * timestamps too, comes from the random generator, so two databases given the same seeds end alike.
 */
final class TpccWorkload {
    static final int WAREHOUSES = 2, DISTRICTS = 4, CUSTOMERS = 12, ITEMS = 60, ORDERS = 12;
    static final List<String> TABLES = List.of("warehouse", "item", "stock", "district", "customer", "history", "oorder", "new_order", "order_line");
    private static final Timestamp EPOCH = Timestamp.valueOf("2024-01-01 00:00:00");

    private TpccWorkload() {}

    static void load(Connection c, SplittableRandom r) throws SQLException {
        c.setAutoCommit(false);
        batch(c, "INSERT INTO item (i_id, i_name, i_price, i_data, i_im_id) VALUES (?, ?, ?, ?, ?)", ITEMS, (ps, i) -> {
            ps.setInt(1, i + 1);
            ps.setString(2, letters(r, 14, 24));
            ps.setBigDecimal(3, BigDecimal.valueOf(r.nextInt(100, 10000), 2));
            ps.setString(4, letters(r, 26, 50));
            ps.setInt(5, r.nextInt(1, 10001));
        });
        batch(c, "INSERT INTO warehouse VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", WAREHOUSES, (ps, w) -> {
            ps.setInt(1, w + 1);
            ps.setBigDecimal(2, new BigDecimal("300000.00"));
            ps.setBigDecimal(3, BigDecimal.valueOf(r.nextInt(0, 2001), 4));
            for (int k = 4; k <= 7; k++) ps.setString(k, letters(r, 6, 10));
            ps.setString(8, letters(r, 2, 2));
            ps.setString(9, "123456789");
        });
        batch(c, "INSERT INTO stock VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", WAREHOUSES * ITEMS, (ps, n) -> {
            ps.setInt(1, n / ITEMS + 1);
            ps.setInt(2, n % ITEMS + 1);
            ps.setInt(3, r.nextInt(10, 101));
            ps.setBigDecimal(4, BigDecimal.ZERO);
            ps.setInt(5, 0);
            ps.setInt(6, 0);
            ps.setString(7, letters(r, 26, 50));
            for (int k = 8; k <= 17; k++) ps.setString(k, letters(r, 24, 24));
        });
        batch(c, "INSERT INTO district VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", WAREHOUSES * DISTRICTS, (ps, n) -> {
            ps.setInt(1, n / DISTRICTS + 1);
            ps.setInt(2, n % DISTRICTS + 1);
            ps.setBigDecimal(3, new BigDecimal("30000.00"));
            ps.setBigDecimal(4, BigDecimal.valueOf(r.nextInt(0, 2001), 4));
            ps.setInt(5, ORDERS + 1);
            for (int k = 6; k <= 9; k++) ps.setString(k, letters(r, 6, 10));
            ps.setString(10, letters(r, 2, 2));
            ps.setString(11, "123456789");
        });
        batch(c, "INSERT INTO customer VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", WAREHOUSES * DISTRICTS * CUSTOMERS, (ps, n) -> {
            ps.setInt(1, n / (DISTRICTS * CUSTOMERS) + 1);
            ps.setInt(2, n / CUSTOMERS % DISTRICTS + 1);
            ps.setInt(3, n % CUSTOMERS + 1);
            ps.setBigDecimal(4, BigDecimal.valueOf(r.nextInt(0, 5001), 4));
            ps.setString(5, r.nextInt(10) == 0 ? "BC" : "GC");
            ps.setString(6, lastName(n % CUSTOMERS));
            ps.setString(7, letters(r, 8, 16));
            ps.setBigDecimal(8, new BigDecimal("50000.00"));
            ps.setBigDecimal(9, new BigDecimal("-10.00"));
            ps.setFloat(10, 10.0f);
            ps.setInt(11, 1);
            ps.setInt(12, 0);
            for (int k = 13; k <= 15; k++) ps.setString(k, letters(r, 10, 20));
            ps.setString(16, letters(r, 2, 2));
            ps.setString(17, "123456789");
            ps.setString(18, "1234567890123456");
            ps.setTimestamp(19, EPOCH);
            ps.setString(20, "OE");
            ps.setString(21, letters(r, 300, 500));
        });
        batch(c, "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                WAREHOUSES * DISTRICTS * CUSTOMERS, (ps, n) -> {
                    ps.setInt(1, n % CUSTOMERS + 1);
                    ps.setInt(2, n / CUSTOMERS % DISTRICTS + 1);
                    ps.setInt(3, n / (DISTRICTS * CUSTOMERS) + 1);
                    ps.setInt(4, n / CUSTOMERS % DISTRICTS + 1);
                    ps.setInt(5, n / (DISTRICTS * CUSTOMERS) + 1);
                    ps.setTimestamp(6, EPOCH);
                    ps.setBigDecimal(7, new BigDecimal("10.00"));
                    ps.setString(8, letters(r, 12, 24));
                });
        var lines = new ArrayList<int[]>(); // w, d, o, number, count
        batch(c, "INSERT INTO oorder (o_w_id, o_d_id, o_id, o_c_id, o_carrier_id, o_ol_cnt, o_all_local, o_entry_d) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                WAREHOUSES * DISTRICTS * ORDERS, (ps, n) -> {
                    int w = n / (DISTRICTS * ORDERS) + 1, d = n / ORDERS % DISTRICTS + 1, o = n % ORDERS + 1, count = r.nextInt(5, 16);
                    ps.setInt(1, w);
                    ps.setInt(2, d);
                    ps.setInt(3, o);
                    ps.setInt(4, (o * 7) % CUSTOMERS + 1);
                    ps.setObject(5, o > ORDERS * 2 / 3 ? null : r.nextInt(1, 11));
                    ps.setInt(6, count);
                    ps.setInt(7, 1);
                    ps.setTimestamp(8, new Timestamp(EPOCH.getTime() + n * 1000L));
                    for (int l = 1; l <= count; l++) lines.add(new int[] {w, d, o, l});
                });
        batch(c, "INSERT INTO new_order (no_w_id, no_d_id, no_o_id) VALUES (?, ?, ?)", WAREHOUSES * DISTRICTS * (ORDERS - ORDERS * 2 / 3), (ps, n) -> {
            int per = ORDERS - ORDERS * 2 / 3;
            ps.setInt(1, n / (DISTRICTS * per) + 1);
            ps.setInt(2, n / per % DISTRICTS + 1);
            ps.setInt(3, ORDERS * 2 / 3 + n % per + 1);
        });
        batch(c, "INSERT INTO order_line (ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_delivery_d, ol_amount, ol_supply_w_id, ol_quantity, ol_dist_info)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", lines.size(), (ps, n) -> {
                    int[] l = lines.get(n);
                    boolean delivered = l[2] <= ORDERS * 2 / 3;
                    for (int k = 0; k < 4; k++) ps.setInt(k + 1, l[k]);
                    ps.setInt(5, r.nextInt(1, ITEMS + 1));
                    ps.setTimestamp(6, delivered ? EPOCH : null);
                    ps.setBigDecimal(7, delivered ? BigDecimal.ZERO : BigDecimal.valueOf(r.nextInt(1, 999999), 2));
                    ps.setInt(8, l[0]);
                    ps.setInt(9, 5);
                    ps.setString(10, letters(r, 24, 24));
                });
        c.commit();
        c.setAutoCommit(true);
    }

    interface Row {
        void set(java.sql.PreparedStatement ps, int n) throws SQLException;
    }

    private static void batch(Connection c, String sql, int rows, Row row) throws SQLException {
        try (var ps = c.prepareStatement(sql)) {
            for (int n = 0; n < rows; n++) {
                row.set(ps, n);
                ps.addBatch();
                if (n % 128 == 127) ps.executeBatch();
            }
            ps.executeBatch();
        }
    }

    private static String lastName(int n) {
        String[] syllables = {"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"};
        return syllables[n % 10] + syllables[n / 3 % 10];
    }

    /** The five transactions in TPC-C's mix proportions. */
    static String next(Connection c, SplittableRandom r) throws SQLException {
        int pick = r.nextInt(100);
        BenchBaseRun.Transaction t = pick < 45 ? TpccWorkload::newOrder : pick < 88 ? TpccWorkload::payment : pick < 92 ? TpccWorkload::orderStatus
                : pick < 96 ? TpccWorkload::delivery : TpccWorkload::stockLevel;
        return BenchBaseRun.inTransaction(c, t, r);
    }

    static String newOrder(Connection c, SplittableRandom r) throws SQLException {
        int w = r.nextInt(1, WAREHOUSES + 1), d = r.nextInt(1, DISTRICTS + 1), cust = r.nextInt(1, CUSTOMERS + 1), count = r.nextInt(5, 16);
        boolean unused = r.nextInt(100) == 0;
        var out = new StringBuilder("new order ");
        out.append(query(c, "SELECT C_DISCOUNT, C_LAST, C_CREDIT FROM customer WHERE C_W_ID = ? AND C_D_ID = ? AND C_ID = ?", w, d, cust));
        out.append(query(c, "SELECT W_TAX FROM warehouse WHERE W_ID = ?", w));
        String district = query(c, "SELECT D_NEXT_O_ID, D_TAX FROM district WHERE D_W_ID = ? AND D_ID = ? FOR UPDATE", w, d);
        out.append(district);
        int order = Integer.parseInt(district.split("\\|")[0]);
        update(c, "UPDATE district SET D_NEXT_O_ID = D_NEXT_O_ID + 1 WHERE D_W_ID = ? AND D_ID = ?", w, d);
        var supply = new int[count];
        boolean allLocal = true;
        for (int l = 0; l < count; l++) {
            supply[l] = WAREHOUSES > 1 && r.nextInt(100) == 0 ? w % WAREHOUSES + 1 : w;
            allLocal &= supply[l] == w;
        }
        update(c, "INSERT INTO oorder (O_ID, O_D_ID, O_W_ID, O_C_ID, O_ENTRY_D, O_OL_CNT, O_ALL_LOCAL) VALUES (?, ?, ?, ?, ?, ?, ?)",
                order, d, w, cust, new Timestamp(EPOCH.getTime() + r.nextInt(1_000_000) * 1000L), count, allLocal ? 1 : 0);
        update(c, "INSERT INTO new_order (NO_O_ID, NO_D_ID, NO_W_ID) VALUES (?, ?, ?)", order, d, w);
        try (var lines = c.prepareStatement("INSERT INTO order_line (OL_O_ID, OL_D_ID, OL_W_ID, OL_NUMBER, OL_I_ID, OL_SUPPLY_W_ID, OL_QUANTITY,"
                + " OL_AMOUNT, OL_DIST_INFO) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int l = 0; l < count; l++) {
                int item = unused && l == count - 1 ? ITEMS + 1000 : r.nextInt(1, ITEMS + 1), quantity = r.nextInt(1, 11);
                String price = query(c, "SELECT I_PRICE, I_NAME, I_DATA FROM item WHERE I_ID = ?", item);
                if (price.isEmpty()) return "rolled back: " + out + " (an unused item, as TPC-C asks of 1% of orders)";
                out.append(price);
                String stock = query(c, "SELECT S_QUANTITY, S_DATA, S_DIST_01, S_DIST_02, S_DIST_03, S_DIST_04, S_DIST_05, S_DIST_06, S_DIST_07,"
                        + " S_DIST_08, S_DIST_09, S_DIST_10 FROM stock WHERE S_I_ID = ? AND S_W_ID = ? FOR UPDATE", item, supply[l]);
                out.append(stock);
                String[] s = stock.split("\\|");
                int onHand = Integer.parseInt(s[0]);
                update(c, "UPDATE stock SET S_QUANTITY = ?, S_YTD = S_YTD + ?, S_ORDER_CNT = S_ORDER_CNT + 1, S_REMOTE_CNT = S_REMOTE_CNT + ?"
                        + " WHERE S_I_ID = ? AND S_W_ID = ?", onHand - quantity >= 10 ? onHand - quantity : onHand - quantity + 91, quantity,
                        supply[l] == w ? 0 : 1, item, supply[l]);
                lines.setInt(1, order);
                lines.setInt(2, d);
                lines.setInt(3, w);
                lines.setInt(4, l + 1);
                lines.setInt(5, item);
                lines.setInt(6, supply[l]);
                lines.setInt(7, quantity);
                lines.setBigDecimal(8, new BigDecimal(price.split("\\|")[0]).multiply(BigDecimal.valueOf(quantity)));
                lines.setString(9, s[d + 1].replace(";", ""));
                lines.addBatch();
            }
            lines.executeBatch();
        }
        return out.toString();
    }

    /** The customer by id (40%) or by last name (60%, the middle one of those ordered by first name): its id and what was read. */
    private static String[] customer(Connection c, SplittableRandom r, int w, int d) throws SQLException {
        if (r.nextInt(100) < 40) {
            int id = r.nextInt(1, CUSTOMERS + 1);
            return new String[] {String.valueOf(id), query(c, "SELECT C_FIRST, C_MIDDLE, C_LAST, C_STREET_1, C_STREET_2, C_CITY, C_STATE, C_ZIP,"
                    + " C_PHONE, C_CREDIT, C_CREDIT_LIM, C_DISCOUNT, C_BALANCE, C_YTD_PAYMENT, C_PAYMENT_CNT, C_SINCE FROM customer"
                    + " WHERE C_W_ID = ? AND C_D_ID = ? AND C_ID = ?", w, d, id)};
        }
        String all = query(c, "SELECT C_FIRST, C_MIDDLE, C_ID, C_STREET_1, C_STREET_2, C_CITY, C_STATE, C_ZIP, C_PHONE, C_CREDIT, C_CREDIT_LIM,"
                + " C_DISCOUNT, C_BALANCE, C_YTD_PAYMENT, C_PAYMENT_CNT, C_SINCE FROM customer WHERE C_W_ID = ? AND C_D_ID = ? AND C_LAST = ?"
                + " ORDER BY C_FIRST", w, d, lastName(r.nextInt(CUSTOMERS)));
        String[] rows = all.split(";");
        return new String[] {rows[(rows.length - 1) / 2].split("\\|")[2], all};
    }

    static String payment(Connection c, SplittableRandom r) throws SQLException {
        int w = r.nextInt(1, WAREHOUSES + 1), d = r.nextInt(1, DISTRICTS + 1);
        BigDecimal amount = BigDecimal.valueOf(r.nextInt(100, 500001), 2);
        var out = new StringBuilder("payment ");
        update(c, "UPDATE warehouse SET W_YTD = W_YTD + ? WHERE W_ID = ?", amount, w);
        out.append(query(c, "SELECT W_STREET_1, W_STREET_2, W_CITY, W_STATE, W_ZIP, W_NAME FROM warehouse WHERE W_ID = ?", w));
        update(c, "UPDATE district SET D_YTD = D_YTD + ? WHERE D_W_ID = ? AND D_ID = ?", amount, w, d);
        out.append(query(c, "SELECT D_STREET_1, D_STREET_2, D_CITY, D_STATE, D_ZIP, D_NAME FROM district WHERE D_W_ID = ? AND D_ID = ?", w, d));
        String[] customer = customer(c, r, w, d);
        out.append(customer[1]);
        int id = Integer.parseInt(customer[0]);
        String balance = query(c, "SELECT C_BALANCE, C_YTD_PAYMENT, C_PAYMENT_CNT, C_CREDIT FROM customer WHERE C_W_ID = ? AND C_D_ID = ? AND C_ID = ?", w, d, id);
        String[] b = balance.replace(";", "").split("\\|");
        var newBalance = new BigDecimal(b[0]).subtract(amount);
        float ytd = Float.parseFloat(b[1]) + amount.floatValue();
        int count = Integer.parseInt(b[2]) + 1;
        if (b[3].equals("BC")) {
            String data = query(c, "SELECT C_DATA FROM customer WHERE C_W_ID = ? AND C_D_ID = ? AND C_ID = ?", w, d, id).replace(";", "");
            String updated = (id + " " + d + " " + w + " " + amount + " | " + data);
            update(c, "UPDATE customer SET C_BALANCE = ?, C_YTD_PAYMENT = ?, C_PAYMENT_CNT = ?, C_DATA = ? WHERE C_W_ID = ? AND C_D_ID = ? AND C_ID = ?",
                    newBalance, ytd, count, updated.substring(0, Math.min(500, updated.length())), w, d, id);
        } else {
            update(c, "UPDATE customer SET C_BALANCE = ?, C_YTD_PAYMENT = ?, C_PAYMENT_CNT = ? WHERE C_W_ID = ? AND C_D_ID = ? AND C_ID = ?",
                    newBalance, ytd, count, w, d, id);
        }
        update(c, "INSERT INTO history (H_C_D_ID, H_C_W_ID, H_C_ID, H_D_ID, H_W_ID, H_DATE, H_AMOUNT, H_DATA) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                d, w, id, d, w, new Timestamp(EPOCH.getTime() + r.nextInt(1_000_000) * 1000L), amount, letters(r, 10, 24));
        return out.append(balance).toString();
    }

    static String orderStatus(Connection c, SplittableRandom r) throws SQLException {
        int w = r.nextInt(1, WAREHOUSES + 1), d = r.nextInt(1, DISTRICTS + 1);
        String[] customer = customer(c, r, w, d);
        String order = query(c, "SELECT O_ID, O_CARRIER_ID, O_ENTRY_D FROM oorder WHERE O_W_ID = ? AND O_D_ID = ? AND O_C_ID = ? ORDER BY O_ID DESC LIMIT 1",
                w, d, Integer.parseInt(customer[0]));
        if (order.isEmpty()) return "order status " + customer[1] + " (no order)";
        String lines = query(c, "SELECT OL_I_ID, OL_SUPPLY_W_ID, OL_QUANTITY, OL_AMOUNT, OL_DELIVERY_D FROM order_line WHERE OL_O_ID = ? AND OL_D_ID = ?"
                + " AND OL_W_ID = ? ORDER BY OL_NUMBER", Integer.parseInt(order.split("\\|")[0]), d, w);
        return "order status " + customer[1] + order + lines;
    }

    static String delivery(Connection c, SplittableRandom r) throws SQLException {
        int w = r.nextInt(1, WAREHOUSES + 1), carrier = r.nextInt(1, 11);
        var when = new Timestamp(EPOCH.getTime() + r.nextInt(1_000_000) * 1000L);
        var out = new StringBuilder("delivery ");
        for (int d = 1; d <= DISTRICTS; d++) {
            String next = query(c, "SELECT NO_O_ID FROM new_order WHERE NO_D_ID = ? AND NO_W_ID = ? ORDER BY NO_O_ID ASC LIMIT 1", d, w);
            if (next.isEmpty()) continue;
            int order = Integer.parseInt(next.replace(";", ""));
            if (update(c, "DELETE FROM new_order WHERE NO_O_ID = ? AND NO_D_ID = ? AND NO_W_ID = ?", order, d, w) != 1) return "rolled back: delivery lost a race";
            String customer = query(c, "SELECT O_C_ID FROM oorder WHERE O_ID = ? AND O_D_ID = ? AND O_W_ID = ?", order, d, w).replace(";", "");
            update(c, "UPDATE oorder SET O_CARRIER_ID = ? WHERE O_ID = ? AND O_D_ID = ? AND O_W_ID = ?", carrier, order, d, w);
            update(c, "UPDATE order_line SET OL_DELIVERY_D = ? WHERE OL_O_ID = ? AND OL_D_ID = ? AND OL_W_ID = ?", when, order, d, w);
            String total = query(c, "SELECT SUM(OL_AMOUNT) AS OL_TOTAL FROM order_line WHERE OL_O_ID = ? AND OL_D_ID = ? AND OL_W_ID = ?", order, d, w);
            update(c, "UPDATE customer SET C_BALANCE = C_BALANCE + ?, C_DELIVERY_CNT = C_DELIVERY_CNT + 1 WHERE C_W_ID = ? AND C_D_ID = ? AND C_ID = ?",
                    new BigDecimal(total.replace(";", "")), w, d, Integer.parseInt(customer));
            out.append(order).append(' ').append(customer).append(' ').append(total);
        }
        return out.toString();
    }

    static String stockLevel(Connection c, SplittableRandom r) throws SQLException {
        int w = r.nextInt(1, WAREHOUSES + 1), d = r.nextInt(1, DISTRICTS + 1), threshold = r.nextInt(10, 21);
        String next = query(c, "SELECT D_NEXT_O_ID FROM district WHERE D_W_ID = ? AND D_ID = ?", w, d);
        int o = Integer.parseInt(next.replace(";", ""));
        return "stock level " + next + query(c, "SELECT COUNT(DISTINCT (S_I_ID)) AS STOCK_COUNT FROM order_line, stock WHERE OL_W_ID = ? AND OL_D_ID = ?"
                + " AND OL_O_ID < ? AND OL_O_ID >= ? AND S_W_ID = ? AND S_I_ID = OL_I_ID AND S_QUANTITY < ?", w, d, o, o - 20, w, threshold);
    }
}
