package org.lutra.it.rqg;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The random schema and rows of one generator run. Table and column names are fixed so that
 * regression cases replay under any seed; what varies per seed is placement (which partitions a
 * table uses, where range boundaries fall, which tables are replicated, which foreign keys cross
 * partitions) and every row.
 *
 * <p>The tables queries read ({@link #TABLES}) have the columns {@code id INT} (primary key),
 * {@code k INT}, {@code a INT}, {@code d DECIMAL(10,2)}, {@code s VARCHAR} in utf8mb4_general_ci
 * and {@code dt DATE}; all but the primary key and a routing column hold NULLs and duplicates.
 * <ul>
 *   <li>{@code th}: hash(id)</li>
 *   <li>{@code tr}: range(k)</li>
 *   <li>{@code tl}: lookup(id), DEFAULT NEW ON hash(id)</li>
 *   <li>{@code tc}: lookup(k) SAME AS tl — k is the id of the tl row it lives with</li>
 *   <li>{@code tp}: replicated, on every partition or on some</li>
 *   <li>{@code te}: hash(id), and empty (queries over no rows)</li>
 * </ul>
 * Small tables for joins of many tables, as sqllogictest's select5 has them: {@code j1 .. j20}, each
 * {@code (aN INT PRIMARY KEY, bN INT, xN VARCHAR)} with ten rows, each placed by hash, range or lookup
 * on aN, or replicated. Tables with foreign keys ({@link #FK_TABLES}, the common columns; {@code k}
 * references {@code fp.id}): the parent {@code fp} by hash, lookup or replicated; {@code fc} SAME AS
 * fp, by hash, or replicated; {@code fr} replicated.
 *
 * <p>String values come from a pool with no two values equal under the case-insensitive collation,
 * so DISTINCT, GROUP BY, MIN and MAX on {@code s} have one right answer.
 */
public final class RqgSchema {
    public enum Type { INT, DECIMAL, STRING, DATE }

    public record Column(String name, Type type) {}

    /** A table the generator reads: its columns and its routing column (null for a replicated table). */
    public record Table(String name, List<Column> columns, String routing) {}

    public static final List<String> TABLES = List.of("th", "tr", "tl", "tc", "tp", "te");
    public static final List<String> FK_TABLES = List.of("fp", "fc", "fr");
    public static final int JOIN_TABLES = 20;
    public static final List<String> STRINGS = List.of("apple", "Banana", "cherry", "Date", "elder", "FIG", "grape", "Kiwi",
            "lemon", "mango x", "", "b%c", "o'neil", "Zed");
    static final List<Column> COMMON = List.of(new Column("id", Type.INT), new Column("k", Type.INT), new Column("a", Type.INT),
            new Column("d", Type.DECIMAL), new Column("s", Type.STRING), new Column("dt", Type.DATE));

    private final Random random;
    public final String ddl;
    /** INSERT statements that fill the tables, in order (parents first); run with foreign_key_checks = 0. */
    public final List<String> inserts = new ArrayList<>();
    /** Every table with its placement as generated (name to routing column, null when replicated). */
    private final List<Table> tables = new ArrayList<>();
    /** True when some foreign key's rows may live on other partitions than the rows they reference. */
    public final boolean foreignKeysCrossPartitions;
    private final String fpPlacement;
    private final String fcPlacement;
    /** Whether fr's k references fp (a replicated table referencing a partitioned one crosses partitions). */
    private final boolean frReferences;
    private final List<Integer> joinable = new ArrayList<>();

    public RqgSchema(long seed) {
        this.random = new Random(seed);
        fpPlacement = pick("hash", "lookup", "replicated");
        fcPlacement = fpPlacement.equals("lookup") ? pick("same-as", "same-as", "hash", "replicated") : pick("hash", "replicated");
        frReferences = fpPlacement.equals("replicated") || random.nextBoolean();
        // a child finds its parent (and a parent its children) on its own partition when it lives with it (SAME AS) or the
        // parent is replicated (a parent's DELETE then fails or cascades on the partition of each child, as on one server)
        boolean childrenWithParents = fcPlacement.equals("same-as") || fpPlacement.equals("replicated");
        foreignKeysCrossPartitions = !childrenWithParents || frReferencesPartitionedParent();
        this.ddl = ddl();
        int parents = 0;
        for (String t : TABLES) {
            int n = t.equals("te") ? 0 : 15 + random.nextInt(40);
            if (t.equals("tl")) parents = n;
            if (n > 0) inserts.add(insert(t, n, parents));
        }
        for (int j = 1; j <= JOIN_TABLES; j++) inserts.add(joinRows(j));
        int fp = 10 + random.nextInt(20);
        inserts.add(insert("fp", fp, 0));
        inserts.add(insert("fc", 10 + random.nextInt(30), fp));
        inserts.add(insert("fr", 5 + random.nextInt(15), fp));
    }

    /** Whether the replicated fr references fp while fp is not replicated (each copy of fr checks the parents of its partition only). */
    public boolean frReferencesPartitionedParent() {
        return frReferences && !fpPlacement.equals("replicated");
    }

    /** Every table: the common ones, the join tables, the foreign-key tables. */
    public List<Table> tables() {
        return Collections.unmodifiableList(tables);
    }

    public Table table(String name) {
        return tables.stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow(() -> new IllegalArgumentException(name));
    }

    /** The names of the replicated tables (their copies must stay equal). */
    public List<String> replicated() {
        return tables.stream().filter(t -> t.routing() == null).map(Table::name).toList();
    }

    private String ddl() {
        var sb = new StringBuilder();
        sb.append(create("th", "k INT")).append(" PARTITION BY hash(id) ON (").append(somePartitions()).append(");\n");
        add("th", "id");
        int b1 = 5 + random.nextInt(25), b2 = b1 + 1 + random.nextInt(30), b3 = b2 + 1 + random.nextInt(30);
        sb.append(create("tr", "k INT NOT NULL")).append(" PARTITION BY range(k) ON (p0 < ").append(b1).append(", p1 < ").append(b2)
                .append(", p2 < ").append(b3).append(", p3);\n");
        add("tr", "k");
        sb.append(create("tl", "k INT")).append(" PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);\n");
        add("tl", "id");
        sb.append(create("tc", "k INT NOT NULL")).append(" PARTITION BY lookup(k) SAME AS tl;\n");
        add("tc", "k");
        sb.append(create("tp", "k INT")).append(random.nextBoolean() ? " REPLICATED;\n" : " REPLICATED ON (" + somePartitions() + ");\n");
        add("tp", null);
        sb.append(create("te", "k INT")).append(" PARTITION BY hash(id) ON (").append(somePartitions()).append(");\n");
        add("te", "id");
        for (int j = 1; j <= JOIN_TABLES; j++) sb.append(joinTable(j));
        // on every partition: a foreign key to a table some partition lacks fails that partition's CREATE TABLE (errno 150)
        sb.append(create("fp", "k INT")).append(fpPlacement.equals("hash") ? " PARTITION BY hash(id) ON (p0, p1, p2, p3)"
                : placement(fpPlacement, "id", null)).append(";\n");
        add("fp", fpPlacement.equals("replicated") ? null : "id");
        String fk = ", FOREIGN KEY (k) REFERENCES fp (id)" + (random.nextBoolean() ? " ON DELETE CASCADE" : "");
        sb.append(create("fc", fcPlacement.equals("same-as") ? "k INT NOT NULL" : "k INT", fk))
                .append(placement(fcPlacement, fcPlacement.equals("same-as") ? "k" : "id", "fp")).append(";\n");
        add("fc", fcPlacement.equals("replicated") ? null : fcPlacement.equals("same-as") ? "k" : "id");
        sb.append(create("fr", "k INT", frReferences ? ", FOREIGN KEY (k) REFERENCES fp (id)" : "")).append(" REPLICATED;\n");
        add("fr", null);
        return sb.toString();
    }

    private void add(String table, String routing) {
        tables.add(new Table(table, COMMON, routing));
    }

    private String placement(String kind, String column, String owner) {
        return switch (kind) {
            case "hash" -> " PARTITION BY hash(" + column + ") ON (" + somePartitions() + ")";
            case "lookup" -> " PARTITION BY lookup(" + column + ") ON (p0, p1, p2, p3) DEFAULT NEW ON hash(" + column + ")";
            case "same-as" -> " PARTITION BY lookup(" + column + ") SAME AS " + owner;
            default -> " REPLICATED";
        };
    }

    /**
     * How the join tables are placed in this run: all hash on the four partitions or replicated (joins
     * the router answers, by rounds or materialized), mostly replicated, or each by any rule (most
     * joins of many tables are then refused, as not co-located).
     */
    private String joinStyle;

    private String joinTable(int j) {
        if (joinStyle == null) joinStyle = pick("joinable", "joinable", "replicated", "any");
        String a = "a" + j;
        String create = "CREATE TABLE j" + j + " (" + a + " INT PRIMARY KEY, b" + j + " INT, x" + j
                + " VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci)";
        String kind = switch (joinStyle) {
            case "joinable" -> pick("hash4", "hash4", "hash4", "replicated");
            case "replicated" -> pick("hash4", "replicated", "replicated", "replicated");
            default -> pick("hash", "hash4", "range", "lookup", "replicated");
        };
        if (kind.equals("hash4") || kind.equals("replicated")) joinable.add(j);
        registerJoin(j, kind.equals("replicated") ? null : a);
        return create + switch (kind) {
            case "hash4" -> " PARTITION BY hash(" + a + ") ON (p0, p1, p2, p3)";
            case "range" -> {
                int low = random.nextInt(4), high = (low + 1 + random.nextInt(3)) % 4;
                yield " PARTITION BY range(" + a + ") ON (p" + low + " < " + (2 + random.nextInt(7)) + ", p" + high + ")";
            }
            default -> placement(kind, a, null);
        } + ";\n";
    }

    private void registerJoin(int j, String routing) {
        tables.add(new Table("j" + j, List.of(new Column("a" + j, Type.INT), new Column("b" + j, Type.INT), new Column("x" + j, Type.STRING)),
                routing));
    }

    /** The join tables placed by hash on every partition or replicated: joins of them alone are answered. */
    public List<Integer> joinable() {
        return Collections.unmodifiableList(joinable);
    }

    private String joinRows(int j) {
        var sb = new StringBuilder("INSERT INTO j" + j + " VALUES ");
        for (int a = 1; a <= 10; a++) {
            sb.append(a > 1 ? ", " : "").append('(').append(a).append(", ").append(random.nextInt(12) == 0 ? "NULL" : 1 + random.nextInt(10))
                    .append(", ").append(maybeNull(quote(STRINGS.get(random.nextInt(STRINGS.size()))))).append(')');
        }
        return sb.toString();
    }

    private static String create(String table, String k) {
        return create(table, k, "");
    }

    private static String create(String table, String k, String constraints) {
        return "CREATE TABLE " + table + " (id INT PRIMARY KEY, " + k + ", a INT, d DECIMAL(10,2), "
                + "s VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci, dt DATE" + constraints + ")";
    }

    private String somePartitions() {
        var ps = new ArrayList<>(List.of("p0", "p1", "p2", "p3"));
        Collections.shuffle(ps, random);
        return String.join(", ", ps.subList(0, 2 + random.nextInt(3)));
    }

    private String insert(String table, int n, int parents) {
        var sb = new StringBuilder("INSERT INTO ").append(table).append(" (id, k, a, d, s, dt) VALUES ");
        for (int id = 1; id <= n; id++) {
            String k = switch (table) {
                case "tr" -> String.valueOf(random.nextInt(100));
                case "tc" -> String.valueOf(1 + random.nextInt(parents));
                case "fc" -> fcPlacement.equals("same-as") ? String.valueOf(1 + random.nextInt(parents)) : maybeNull(String.valueOf(1 + random.nextInt(parents)));
                case "fr" -> maybeNull(String.valueOf(1 + random.nextInt(parents)));
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

    private String pick(String... options) {
        return options[random.nextInt(options.length)];
    }

    static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
