package org.lutra.workload.micro;

import org.lutra.trace.Access;
import org.lutra.trace.TraceLine;
import org.lutra.workload.Mix;
import org.lutra.workload.RunState;
import org.lutra.workload.Scheme;
import org.lutra.workload.Session;
import org.lutra.workload.TableData;
import org.lutra.workload.Text;
import org.lutra.workload.Txn;
import org.lutra.workload.Workload;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The paper's microbenchmark (Fig. 6 and 7): {@code micro (id INT PRIMARY KEY, data VARCHAR(200))}
 * of 20,000 rows per scale unit, placed by ranges of id, one per partition; an auto-commit
 * {@code SELECT id, data FROM micro WHERE id IN (80 ids)}. A query is distributed with
 * probability {@code share}; a distributed one takes its 80 ids evenly from {@code participants}
 * partitions drawn at random, a local one from one partition.
 */
public final class Micro implements Workload {
    public static final int IDS_PER_QUERY = 80;
    static final String TYPE = "micro_select";
    private static final Scheme RANGE = new Scheme("range", "ranges of id, one per partition; each query picks the partitions it reads", false);
    private static final String SELECT = "SELECT id, data FROM micro WHERE id IN ("
            + String.join(", ", Collections.nCopies(IDS_PER_QUERY, "?")) + ")";

    private final int rows;
    private final long seed;
    private final int partitions;
    private final double share;
    private final int participants;

    /**
     * @param partitions   the partitions the ids are drawn from (the backends of the run)
     * @param share        the share of distributed queries, 0..1
     * @param participants the partitions a distributed query reads (2 .. partitions)
     */
    public Micro(double scale, long seed, int partitions, double share, int participants) {
        this.rows = Math.max(IDS_PER_QUERY * partitions, (int) Math.round(20_000 * scale));
        this.seed = seed;
        this.partitions = partitions;
        if (share < 0 || share > 1) throw new IllegalArgumentException("the share of distributed queries is 0..1");
        if (share > 0 && (participants < 2 || participants > partitions)) {
            throw new IllegalArgumentException("a distributed query reads 2.." + partitions + " partitions, not " + participants);
        }
        this.share = share;
        this.participants = participants;
    }

    /** The same rows and placement with another mix. */
    public Micro withMix(double share, int participants) {
        return new Micro(rows / 20_000.0, seed, partitions, share, participants);
    }

    public int rows() {
        return rows;
    }

    @Override
    public String name() {
        return "micro";
    }

    @Override
    public String describe() {
        return String.format(Locale.ROOT, "%,d rows (id INT PRIMARY KEY, data VARCHAR(200)) by range of id over %d partitions; "
                + "auto-commit SELECT ... WHERE id IN (%d ids), %.0f %% of them over %d partitions", rows, partitions, IDS_PER_QUERY,
                100 * share, participants);
    }

    @Override
    public List<Scheme> schemes() {
        return List.of(RANGE);
    }

    /** The first id of partition {@code p}; partition p holds [first(p), first(p + 1)). */
    private int first(int p) {
        return (int) ((long) rows * p / partitions);
    }

    @Override
    public String schema(Scheme scheme, int partitions) {
        if (partitions != this.partitions) throw new IllegalArgumentException("this micro workload is made for " + this.partitions + " partitions");
        var ranges = new ArrayList<String>();
        for (int p = 0; p < partitions - 1; p++) ranges.add("p" + p + " < " + first(p + 1));
        ranges.add("p" + (partitions - 1));
        return "CREATE TABLE micro (id INT PRIMARY KEY, data VARCHAR(200))\n  PARTITION BY range(id) ON (" + String.join(", ", ranges) + ");\n";
    }

    @Override
    public List<String> plainSchema() {
        return List.of("CREATE TABLE micro (id INT PRIMARY KEY, data VARCHAR(200))");
    }

    @Override
    public List<TableData> data() {
        var random = new SplittableRandom(seed);
        var values = new ArrayList<Object[]>(rows);
        for (int id = 0; id < rows; id++) values.add(new Object[] {id, Text.letters(random, 100 + random.nextInt(101))});
        return List.of(new TableData("micro", List.of("id", "data"), values));
    }

    @Override
    public Mix mix(int client, int clients, RunState state) {
        return random -> {
            int[] ids = new int[IDS_PER_QUERY];
            if (random.nextDouble() < share) {
                int[] chosen = distinct(random, participants, partitions);
                int at = 0;
                for (int k = 0; k < participants; k++) {
                    int count = IDS_PER_QUERY / participants + (k < IDS_PER_QUERY % participants ? 1 : 0);
                    at = fill(random, ids, at, count, chosen[k]);
                }
            } else {
                fill(random, ids, 0, IDS_PER_QUERY, random.nextInt(partitions));
            }
            return new Select(ids);
        };
    }

    /** {@code count} distinct ids of partition {@code p} into {@code ids} from {@code at}; returns the next free index. */
    private int fill(SplittableRandom random, int[] ids, int at, int count, int p) {
        int from = first(p);
        int size = first(p + 1) - from;
        for (int k : distinct(random, count, size)) ids[at++] = from + k;
        return at;
    }

    /** {@code count} distinct values of 0 .. n-1 (Floyd's algorithm). */
    private static int[] distinct(SplittableRandom random, int count, int n) {
        var chosen = new java.util.LinkedHashSet<Integer>();
        for (int j = n - count; j < n; j++) {
            int t = random.nextInt(j + 1);
            if (!chosen.add(t)) chosen.add(j);
        }
        return chosen.stream().mapToInt(Integer::intValue).toArray();
    }

    @Override
    public Txn replay(TraceLine line) {
        if (!line.type().equals(TYPE)) throw new IllegalArgumentException("not a micro transaction: " + line.type());
        return new Select(line.params().stream().mapToInt(Integer::parseInt).toArray());
    }

    /** One auto-commit IN-list select; it must find every one of its ids. */
    record Select(int[] ids) implements Txn {
        @Override
        public TraceLine trace() {
            var params = new ArrayList<String>();
            var accesses = new ArrayList<Access>();
            for (int id : ids) {
                params.add(Integer.toString(id));
                accesses.add(Access.read("micro", Integer.toString(id)));
            }
            return new TraceLine(TYPE, params, accesses);
        }

        @Override
        public boolean transactional() {
            return false;
        }

        @Override
        public void run(Session session) throws SQLException {
            var ps = session.prepare(SELECT);
            for (int i = 0; i < ids.length; i++) ps.setInt(i + 1, ids[i]);
            int found = 0;
            try (var rs = ps.executeQuery()) {
                while (rs.next()) {
                    found++;
                    rs.getString(2);
                }
            }
            if (found != ids.length) throw new SQLException("micro: " + ids.length + " ids asked, " + found + " rows returned", "XX000");
        }
    }

    @Override
    public List<String> check(RunState state, List<Connection> databases) throws SQLException {
        long count = 0;
        long distinctIds = 0;
        for (Connection c : databases) {
            try (var rs = c.createStatement().executeQuery("SELECT COUNT(*), COUNT(DISTINCT id) FROM micro")) {
                rs.next();
                count += rs.getLong(1);
                distinctIds += rs.getLong(2);
            }
        }
        var problems = new ArrayList<String>();
        if (count != rows || distinctIds != rows) problems.add("micro holds " + count + " rows (" + distinctIds + " distinct ids per database), expected " + rows);
        return problems;
    }
}
