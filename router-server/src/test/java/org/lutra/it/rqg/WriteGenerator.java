package org.lutra.it.rqg;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Random writes over {@link RqgSchema}'s tables, foreign-key ones and replicated ones included:
 * INSERT (several rows, new keys and taken ones, values of other types than the column's),
 * INSERT IGNORE, INSERT ... ON DUPLICATE KEY UPDATE, REPLACE, UPDATE and DELETE (of parents whose
 * children restrict or cascade), as an application's seed scripts and forms send them.
 */
public final class WriteGenerator {
    /** The tables written (the foreign-key ones twice as often); no statement writes the join tables. */
    public static final List<String> TABLES = List.of("th", "tr", "tl", "tc", "tp", "te", "fp", "fc", "fr", "fp", "fc", "fr");

    private final Random random;
    private final Exprs exprs;
    private final Set<String> features = new LinkedHashSet<>();
    private int nextId = 200;

    public WriteGenerator(long seed) {
        this.random = new Random(seed);
        this.exprs = new Exprs(random, features, null);
    }

    public Query.Dml next() {
        features.clear();
        String table = TABLES.get(random.nextInt(TABLES.size()));
        features.add("write-" + table);
        int r = random.nextInt(20);
        String sql;
        if (r < 6) sql = insert(table, false);
        else if (r < 11) sql = insert(table, true);
        else if (r < 13) sql = upsert(table);
        else if (r < 14) sql = replace(table);
        else if (r < 17) sql = update(table);
        else sql = delete(table);
        return new Query.Dml(sql, table, List.of(), Set.copyOf(features));
    }

    private String insert(String table, boolean ignore) {
        features.add(ignore ? "insert-ignore" : "insert");
        var sb = new StringBuilder(ignore ? "INSERT IGNORE INTO " : "INSERT INTO ").append(table).append(" (id, k, a, d, s, dt) VALUES ");
        for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) sb.append(i > 0 ? ", " : "").append(row(table));
        return sb.toString();
    }

    private String upsert(String table) {
        features.add("insert-on-duplicate-key-update");
        return "INSERT INTO " + table + " (id, k, a, d, s, dt) VALUES " + row(table) + " ON DUPLICATE KEY UPDATE "
                + exprs.pick("a = a + 1", "s = VALUES(s)", "d = NULL", "a = VALUES(a) + 1");
    }

    private String replace(String table) {
        features.add("replace");
        return "REPLACE INTO " + table + " (id, k, a, d, s, dt) VALUES " + row(table);
    }

    private String update(String table) {
        features.add("update");
        String set = switch (random.nextInt(5)) {
            case 0 -> "a = a + 1";
            case 1 -> "s = " + RqgSchema.quote(RqgSchema.STRINGS.get(random.nextInt(RqgSchema.STRINGS.size())));
            case 2 -> "d = d * 2, dt = DATE '2024-06-01'";
            // a foreign key's column: a parent that may not exist, or live on another partition
            case 3 -> table.startsWith("f") && !table.equals("fp") ? "k = " + parent() : "a = NULL";
            default -> "a = " + (random.nextInt(20) - 5);
        };
        return (random.nextInt(6) == 0 ? "UPDATE IGNORE " : "UPDATE ") + table + " SET " + set + " WHERE " + condition(table);
    }

    private String delete(String table) {
        features.add(table.equals("fp") ? "delete-parent" : "delete");
        return "DELETE FROM " + table + " WHERE " + condition(table);
    }

    private String condition(String table) {
        var scope = RqgSchema.COMMON.stream().map(c -> new Exprs.Ref(c.name(), c.type())).toList();
        return switch (random.nextInt(4)) {
            case 0 -> "id = " + (1 + random.nextInt(60));
            case 1 -> "id IN (" + (1 + random.nextInt(60)) + ", " + (1 + random.nextInt(60)) + ")";
            default -> exprs.predicate(scope, 1).sql();
        };
    }

    private String row(String table) {
        int id = random.nextInt(3) == 0 ? 1 + random.nextInt(60) : nextId++; // a taken key, or a new one
        String idText = random.nextInt(25) == 0 ? id + ".6" : String.valueOf(id); // 12.6 into an INT key: MySQL stores 13
        if (idText.endsWith(".6")) features.add("decimal-into-int");
        String k = switch (table) {
            case "tr" -> String.valueOf(random.nextInt(100));
            case "tc" -> String.valueOf(1 + random.nextInt(60));
            case "fc", "fr" -> parent();
            default -> random.nextInt(6) == 0 ? "NULL" : String.valueOf(1 + random.nextInt(60));
        };
        String a = random.nextInt(6) == 0 ? "NULL" : random.nextInt(10) == 0 ? "'" + random.nextInt(9) + "'" : String.valueOf(random.nextInt(12) - 3);
        String d = random.nextInt(6) == 0 ? "NULL" : (random.nextInt(41) - 20) + ".5";
        String s = random.nextInt(6) == 0 ? "NULL" : RqgSchema.quote(RqgSchema.STRINGS.get(random.nextInt(RqgSchema.STRINGS.size())));
        String dt = random.nextInt(6) == 0 ? "NULL" : "'2024-0" + (1 + random.nextInt(3)) + "-1" + random.nextInt(5) + "'";
        return "(" + idText + ", " + k + ", " + a + ", " + d + ", " + s + ", " + dt + ")";
    }

    /** A parent key for fc and fr: mostly one fp holds, sometimes one it does not (1452), sometimes NULL. */
    private String parent() {
        features.add("foreign-key");
        int r = random.nextInt(10);
        return r == 0 ? "NULL" : r == 1 ? String.valueOf(500 + random.nextInt(10)) : String.valueOf(1 + random.nextInt(30));
    }
}
