package org.lutra.workload.wikipedia;

import org.lutra.trace.Access;
import org.lutra.trace.TraceLine;
import org.lutra.workload.Mix;
import org.lutra.workload.PartitionTrace;
import org.lutra.workload.RunState;
import org.lutra.workload.Scheme;
import org.lutra.workload.Session;
import org.lutra.workload.TableData;
import org.lutra.workload.Txn;
import org.lutra.workload.Workload;
import org.lutra.workload.Zipf;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The paper's Wikipedia workload (§VI-A, Fig. 5 and 8): MediaWiki's {@code page}, {@code revision}
 * and {@code text}, and its most frequent transaction, fetching a page's current text: the page by
 * its title, the page joined with its latest revision (MediaWiki's {@code page_id = ? AND rev_id = ?}
 * with {@code rev_page = page_id}), the text by id, read in one transaction.
 * Page popularity is Zipfian (exponent {@value #ZIPF_EXPONENT}, ranks shuffled over the pages), or
 * the requests of a WikiBench trace ({@link WikiBenchTrace}).
 *
 * <p>Schemes: {@code hash1}, every table hashed on its primary key (page_id, rev_id, old_id: the
 * title read goes everywhere, a page's latest revision is elsewhere, the join runs in rounds);
 * {@code hash2}, a page's revisions hashed with it (rev_page); {@code range}, the same columns as
 * hash2 in equal ranges;
 * {@code lookup}, page and revision (SAME AS page) by page id and text by its id, all placed by
 * the partitioner, with a UNIQUE secondary lookup on the page's name, (namespace, title).
 */
public final class Wikipedia implements Workload {
    static final double ZIPF_EXPONENT = 0.8;
    static final String FETCH = "fetch_page";
    private static final List<Scheme> SCHEMES = List.of(
            new Scheme("hash1", "hash, alternative 1: page by page_id, revision by rev_id, text by old_id", false),
            new Scheme("hash2", "hash, alternative 2: page by page_id, revision by rev_page (with its page), text by old_id", false),
            new Scheme("range", "range: page by page_id, revision by rev_page, text by old_id, equal ranges", false),
            new Scheme("lookup", "lookup: page by page_id (name by a secondary lookup), revision SAME AS page, text by old_id, placed by the partitioner", true));

    static final String SELECT_PAGE = "SELECT page_id, page_latest, page_len FROM page WHERE page_namespace = ? AND page_title = ?";
    static final String SELECT_REVISION = "SELECT rev_id, rev_page, rev_text_id, rev_timestamp, rev_comment, rev_len, page_namespace, page_title,"
            + " page_latest FROM page JOIN revision ON rev_page = page_id WHERE page_id = ? AND rev_id = ?";
    static final String SELECT_TEXT = "SELECT old_text, old_flags FROM text WHERE old_id = ?";

    private final WikiData data;
    private final double scale;
    private final long seed;
    private final int[] byRank; // popularity rank → page index
    private final Map<String, Integer> pageByTitle = new HashMap<>();
    private final List<String> requests; // a WikiBench trace's titles in order, or null

    public Wikipedia(double scale, long seed) {
        this.scale = scale;
        this.seed = seed;
        this.data = new WikiData(Math.max(100, (int) Math.round(10_000 * scale)), seed);
        this.byRank = shuffledRanks(data.pages(), seed);
        this.requests = null;
        for (int p = 0; p < data.pages(); p++) pageByTitle.put(data.titles[p], p);
    }

    /** A wiki of the pages a WikiBench trace reads (at most {@code maxPages}), whose clients replay its requests in order. */
    public Wikipedia(WikiBenchTrace trace, int maxPages, long seed) {
        this.scale = 0;
        this.seed = seed;
        this.requests = trace.titles(maxPages);
        if (requests.isEmpty()) throw new IllegalArgumentException("the WikiBench trace has no page views of plain article titles");
        this.data = new WikiData(trace.distinctTitles(maxPages), seed);
        this.byRank = shuffledRanks(data.pages(), seed);
        for (int p = 0; p < data.pages(); p++) pageByTitle.put(data.titles[p], p);
    }

    private static int[] shuffledRanks(int n, long seed) {
        int[] ranks = new int[n];
        for (int i = 0; i < n; i++) ranks[i] = i;
        var random = new SplittableRandom(seed ^ 0x2a9f);
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = ranks[i];
            ranks[i] = ranks[j];
            ranks[j] = t;
        }
        return ranks;
    }

    @Override
    public String name() {
        return "wikipedia";
    }

    @Override
    public String describe() {
        return String.format(Locale.ROOT, "%,d pages, %,d revisions and texts (200-1,500 letters); fetch-page transactions (page by title, "
                + "page JOIN revision on the latest revision, text by id), %s", data.pages(), data.revisions,
                requests == null ? "pages drawn by Zipf's law (exponent " + ZIPF_EXPONENT + ")" : "the " + requests.size() + " requests of a WikiBench trace");
    }

    @Override
    public List<Scheme> schemes() {
        return SCHEMES;
    }

    private static final String PAGE = """
            CREATE TABLE page (
              page_id INT UNSIGNED NOT NULL PRIMARY KEY,
              page_namespace INT NOT NULL,
              page_title VARCHAR(255) NOT NULL,
              page_latest INT UNSIGNED NOT NULL,
              page_len INT UNSIGNED NOT NULL,
              page_is_redirect TINYINT UNSIGNED NOT NULL DEFAULT 0,
              UNIQUE KEY name_title (page_namespace, page_title)
            )""";
    private static final String REVISION = """
            CREATE TABLE revision (
              rev_id INT UNSIGNED NOT NULL PRIMARY KEY,
              rev_page INT UNSIGNED NOT NULL,
              rev_text_id INT UNSIGNED NOT NULL,
              rev_comment VARCHAR(255) NOT NULL,
              rev_user INT UNSIGNED NOT NULL,
              rev_timestamp CHAR(14) NOT NULL,
              rev_len INT UNSIGNED,
              KEY rev_page_id (rev_page, rev_id)
            )""";
    private static final String TEXT = """
            CREATE TABLE text (
              old_id INT UNSIGNED NOT NULL PRIMARY KEY,
              old_text MEDIUMTEXT NOT NULL,
              old_flags VARCHAR(30) NOT NULL
            )""";

    @Override
    public String schema(Scheme scheme, int partitions) {
        String on = on(partitions);
        return switch (scheme.name()) {
            case "hash1" -> PAGE + " PARTITION BY hash(page_id) " + on + ";\n" + REVISION + " PARTITION BY hash(rev_id) " + on + ";\n"
                    + TEXT + " PARTITION BY hash(old_id) " + on + ";\n";
            case "hash2" -> PAGE + " PARTITION BY hash(page_id) " + on + ";\n" + REVISION + " PARTITION BY hash(rev_page) " + on + ";\n"
                    + TEXT + " PARTITION BY hash(old_id) " + on + ";\n";
            case "range" -> PAGE + " PARTITION BY range(page_id) " + ranges(partitions, data.pages()) + ";\n"
                    + REVISION + " PARTITION BY range(rev_page) " + ranges(partitions, data.pages()) + ";\n"
                    + TEXT + " PARTITION BY range(old_id) " + ranges(partitions, data.revisions) + ";\n";
            case "lookup" -> PAGE + " PARTITION BY lookup(page_id) " + on + " DEFAULT NEW ON hash(page_id);\n"
                    + REVISION + " PARTITION BY lookup(rev_page) SAME AS page;\n"
                    + TEXT + " PARTITION BY lookup(old_id) " + on + " DEFAULT NEW ON hash(old_id);\n";
            default -> throw new IllegalArgumentException(scheme.name());
        };
    }

    static String on(int partitions) {
        var names = new ArrayList<String>();
        for (int p = 0; p < partitions; p++) names.add("p" + p);
        return "ON (" + String.join(", ", names) + ")";
    }

    /** Equal ranges of the ids 1..max over the partitions: {@code ON (p0 < b1, ..., pn)}. */
    static String ranges(int partitions, int max) {
        var parts = new ArrayList<String>();
        for (int p = 0; p < partitions - 1; p++) parts.add("p" + p + " < " + (1 + (long) max * (p + 1) / partitions));
        parts.add("p" + (partitions - 1));
        return "ON (" + String.join(", ", parts) + ")";
    }

    /**
     * The lookup scheme reads a page by its name through a UNIQUE secondary lookup over MediaWiki's own unique key,
     * {@code name_title (page_namespace, page_title)}, which is the index the lookup's checks read rows by.
     */
    @Override
    public List<String> afterLoad(Scheme scheme) {
        if (!scheme.name().equals("lookup")) return List.of();
        return List.of("CREATE SECONDARY LOOKUP page_by_name ON page (page_namespace, page_title) UNIQUE");
    }

    @Override
    public List<String> plainSchema() {
        return List.of(PAGE, REVISION, TEXT);
    }

    @Override
    public List<TableData> data() {
        return data.tables();
    }

    /**
     * The partitioner's trace: each page's fetch once (an administrator's trace long enough to have
     * seen every page read), then as many fetches of the mix again: each page goes with its
     * revisions (SAME AS page) and its latest text, the parts balanced by their accesses.
     */
    @Override
    public PartitionTrace partitionTrace(Scheme scheme) {
        if (!scheme.lookup()) return null;
        var trace = new ArrayList<TraceLine>();
        for (int p = 0; p < data.pages(); p++) trace.add(fetch(p).trace());
        var mix = mix(0, 1, newRun());
        var random = new SplittableRandom(seed ^ 0x7ace);
        for (int i = 0; i < data.pages(); i++) trace.add(mix.next(random).trace());
        return new PartitionTrace("wikipedia: every page's fetch once, then " + data.pages() + " fetches of the mix; seed " + seed, trace,
                Map.of("revision", "page"), List.of("page", "text"));
    }

    /** A WikiBench trace's requests as fetch-page transactions, to run in order instead of the mix; null without a trace. */
    @Override
    public List<TraceLine> recordedRequests() {
        if (requests == null) return null;
        return requests.stream().map(t -> fetch(pageByTitle.get(t)).trace()).toList();
    }

    @Override
    public Mix mix(int client, int clients, RunState state) {
        return new Mix() {
            private Zipf zipf;

            @Override
            public Txn next(SplittableRandom random) {
                if (zipf == null) zipf = new Zipf(random, data.pages(), ZIPF_EXPONENT);
                return fetch(byRank[zipf.next()]);
            }
        };
    }

    private Fetch fetch(int page) {
        return new Fetch(data.titles[page], page + 1, data.latestRevision[page]);
    }

    @Override
    public Txn replay(TraceLine line) {
        if (!line.type().equals(FETCH)) throw new IllegalArgumentException("not a wikipedia transaction: " + line.type());
        Integer page = pageByTitle.get(line.params().getFirst());
        if (page == null) throw new IllegalArgumentException("no page titled " + line.params().getFirst() + " in this wiki (another scale or seed?)");
        return fetch(page);
    }

    /**
     * Fetching a page's current text by its title, as MediaWiki does: three reads in one
     * transaction, each checked (a page, its latest revision and its text must be found).
     *
     * @param pageId and {@code latest} (its latest revision and text id) are what the reads find, for the trace
     */
    record Fetch(String title, int pageId, int latest) implements Txn {
        @Override
        public TraceLine trace() {
            String page = Integer.toString(pageId);
            String rev = Integer.toString(latest);
            return new TraceLine(FETCH, List.of(title), List.of(Access.read("page", page), Access.read("revision", page), Access.read("text", rev)));
        }

        @Override
        public void run(Session session) throws SQLException {
            var page = session.prepare(SELECT_PAGE);
            page.setInt(1, 0);
            page.setString(2, title);
            long id;
            long latestRevision;
            try (var rs = page.executeQuery()) {
                if (!rs.next()) throw new SQLException("wikipedia: no page titled " + title, "XX000");
                id = rs.getLong(1);
                latestRevision = rs.getLong(2);
            }
            var revision = session.prepare(SELECT_REVISION);
            revision.setLong(1, id);
            revision.setLong(2, latestRevision);
            long textId;
            try (var rs = revision.executeQuery()) {
                if (!rs.next()) throw new SQLException("wikipedia: no latest revision " + latestRevision + " of page " + id, "XX000");
                textId = rs.getLong(3);
                if (rs.getLong(1) != latestRevision || rs.next()) throw new SQLException("wikipedia: wrong revision of page " + id, "XX000");
            }
            var text = session.prepare(SELECT_TEXT);
            text.setLong(1, textId);
            try (var rs = text.executeQuery()) {
                if (!rs.next() || rs.getString(1).isEmpty()) throw new SQLException("wikipedia: no text " + textId, "XX000");
            }
        }
    }

    /** Every page, revision and text is there once; each page's latest revision and its text exist. */
    @Override
    public List<String> check(RunState state, List<Connection> databases) throws SQLException {
        long pages = 0;
        long revisions = 0;
        long texts = 0;
        long distinctTitles = 0;
        for (Connection c : databases) {
            try (var rs = c.createStatement().executeQuery("SELECT (SELECT COUNT(*) FROM page), (SELECT COUNT(*) FROM revision),"
                    + " (SELECT COUNT(*) FROM text), (SELECT COUNT(DISTINCT page_title) FROM page)")) {
                rs.next();
                pages += rs.getLong(1);
                revisions += rs.getLong(2);
                texts += rs.getLong(3);
                distinctTitles += rs.getLong(4);
            }
        }
        var problems = new ArrayList<String>();
        if (pages != data.pages() || distinctTitles != data.pages()) problems.add("page holds " + pages + " rows (" + distinctTitles + " titles), expected " + data.pages());
        if (revisions != data.revisions) problems.add("revision holds " + revisions + " rows, expected " + data.revisions);
        if (texts != data.revisions) problems.add("text holds " + texts + " rows, expected " + data.revisions);
        return problems;
    }

    double scale() {
        return scale;
    }
}
