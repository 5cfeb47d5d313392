package org.lutra.it.rqg;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The random schema and rows of one generator run. Table and column names are fixed so that
 * regression cases replay under any seed; what varies per seed is placement (which partitions a
 * hash table uses, where range boundaries fall) and every row.
 *
 * <p>Every table has the columns {@code id INT} (primary key), {@code k INT}, {@code a INT},
 * {@code d DECIMAL(10,2)}, {@code s VARCHAR} in utf8mb4_general_ci and {@code dt DATE}; all but
 * the primary key and a routing column hold NULLs and duplicates.
 * <ul>
 *   <li>{@code th}: hash(id)</li>
 *   <li>{@code tr}: range(k)</li>
 *   <li>{@code tl}: lookup(id), DEFAULT NEW ON hash(id)</li>
 *   <li>{@code tc}: lookup(k) SAME AS tl — k is the id of the tl row it lives with</li>
 *   <li>{@code tp}: replicated</li>
 * </ul>
 * String values come from a pool with no two values equal under the case-insensitive collation,
 * so DISTINCT, GROUP BY, MIN and MAX on {@code s} have one right answer.
 */
public final class RqgSchema {
    public static final List<String> TABLES = List.of("th", "tr", "tl", "tc", "tp");
    public static final List<String> STRINGS = List.of("apple", "Banana", "cherry", "Date", "elder", "FIG", "grape", "Kiwi",
            "lemon", "mango x", "", "b%c", "o'neil", "Zed");

    private final Random random;
    public final String ddl;
    /** INSERT statements that fill the tables, in order (tl before tc). */
    public final List<String> inserts = new ArrayList<>();
    /** Row counts per table, in {@link #TABLES} order. */
    public final int[] rows = new int[TABLES.size()];

    public RqgSchema(long seed) {
        this.random = new Random(seed);
        this.ddl = ddl();
        for (int t = 0; t < TABLES.size(); t++) {
            rows[t] = 15 + random.nextInt(40);
        }
        for (int t = 0; t < TABLES.size(); t++) {
            inserts.add(insert(TABLES.get(t), rows[t], rows[2]));
        }
    }

    private String ddl() {
        String kRange = "k INT NOT NULL";
        var sb = new StringBuilder();
        sb.append(create("th", "k INT")).append(" PARTITION BY hash(id) ON (").append(somePartitions()).append(");\n");
        int b1 = 5 + random.nextInt(25), b2 = b1 + 1 + random.nextInt(30), b3 = b2 + 1 + random.nextInt(30);
        sb.append(create("tr", kRange)).append(" PARTITION BY range(k) ON (p0 < ").append(b1).append(", p1 < ").append(b2)
                .append(", p2 < ").append(b3).append(", p3);\n");
        sb.append(create("tl", "k INT")).append(" PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);\n");
        sb.append(create("tc", kRange)).append(" PARTITION BY lookup(k) SAME AS tl;\n");
        sb.append(create("tp", "k INT")).append(" REPLICATED;\n");
        return sb.toString();
    }

    private static String create(String table, String k) {
        return "CREATE TABLE " + table + " (id INT PRIMARY KEY, " + k + ", a INT, d DECIMAL(10,2), "
                + "s VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci, dt DATE)";
    }

    private String somePartitions() {
        var ps = new ArrayList<>(List.of("p0", "p1", "p2", "p3"));
        java.util.Collections.shuffle(ps, random);
        return String.join(", ", ps.subList(0, 2 + random.nextInt(3)));
    }

    private String insert(String table, int n, int parents) {
        var sb = new StringBuilder("INSERT INTO ").append(table).append(" (id, k, a, d, s, dt) VALUES ");
        for (int id = 1; id <= n; id++) {
            String k = switch (table) {
                case "tr" -> String.valueOf(random.nextInt(100));
                case "tc" -> String.valueOf(1 + random.nextInt(parents));
                default -> maybeNull(String.valueOf(1 + random.nextInt(60)));
            };
            sb.append(id > 1 ? ", " : "").append('(').append(id).append(", ").append(k).append(", ")
                    .append(maybeNull(String.valueOf(random.nextInt(12) - 3))).append(", ")
                    .append(maybeNull(decimal())).append(", ")
                    .append(maybeNull(quote(STRINGS.get(random.nextInt(STRINGS.size()))))).append(", ")
                    .append(maybeNull(date())).append(')');
        }
        return sb.toString();
    }

    private String decimal() {
        // few distinct values, so duplicates are common
        return (random.nextInt(41) - 20) * 5 / 2 + "." + (random.nextBoolean() ? "50" : "25");
    }

    private String date() {
        return "'2024-0" + (1 + random.nextInt(3)) + "-" + (10 + random.nextInt(5)) + "'";
    }

    private String maybeNull(String v) {
        return random.nextInt(6) == 0 ? "NULL" : v;
    }

    static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
