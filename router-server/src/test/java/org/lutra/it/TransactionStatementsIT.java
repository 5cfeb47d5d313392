package org.lutra.it;

import org.lutra.placement.MoveFence;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What a transaction on lookup-placed rows costs the shards, counted in the shards' own general logs: the
 * paper's workloads' transactions (Wikipedia's fetch-page, TPC-E's reads) on rows a partitioner placed away
 * from their keys' hash homes, and the statements each sends, by partition.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionStatementsIT {
    static final String SCHEMA = """
            CREATE TABLE page (page_id INT PRIMARY KEY, page_namespace INT NOT NULL, page_title VARCHAR(255) NOT NULL, page_latest INT NOT NULL,
              UNIQUE KEY name_title (page_namespace, page_title)) PARTITION BY lookup(page_id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(page_id);
            CREATE TABLE revision (rev_id INT PRIMARY KEY, rev_page INT NOT NULL, rev_text_id INT NOT NULL, KEY (rev_page))
              PARTITION BY lookup(rev_page) SAME AS page;
            CREATE TABLE text (old_id INT PRIMARY KEY, old_text VARCHAR(200) NOT NULL) PARTITION BY lookup(old_id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(old_id);
            CREATE TABLE customer (c_id INT PRIMARY KEY, c_tax_id VARCHAR(20) NOT NULL, c_name VARCHAR(40) NOT NULL, UNIQUE KEY (c_tax_id))
              PARTITION BY lookup(c_id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(c_id);
            """;
    static final int PAGES = 40;
    static final int CUSTOMERS = 12;

    TestRouter router;
    GeneralLog log;

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new TestRouter(shards, "txstmts", SCHEMA);
        log = new GeneralLog(shards);
        try (Connection lutra = router.connect(); var st = lutra.createStatement()) {
            st.execute("CREATE SECONDARY LOOKUP page_by_name ON page (page_namespace, page_title) UNIQUE");
            st.execute("CREATE SECONDARY LOOKUP cust_tax ON customer (c_tax_id) UNIQUE");
            for (int id = 1; id <= CUSTOMERS; id++) {
                st.executeUpdate("INSERT INTO customer VALUES (" + id + ", 'TAX-" + id + "', 'customer " + id + "')");
                st.executeUpdate("ALTER TABLE customer SET PARTITION = p" + (id + 1) % 4 + " WHERE c_id = " + id); // off its hash home
            }
            for (int id = 1; id <= PAGES; id++) {
                st.executeUpdate("INSERT INTO page VALUES (" + id + ", 0, 'Title_" + id + "', " + (1000 + id) + ")");
                st.executeUpdate("INSERT INTO revision VALUES (" + (1000 + id) + ", " + id + ", " + (1000 + id) + ")");
                st.executeUpdate("INSERT INTO text VALUES (" + (1000 + id) + ", 'text of page " + id + "')");
                // where a partitioner would put them: together, and (for most keys) away from their hash homes
                st.executeUpdate("ALTER TABLE page SET PARTITION = p" + (id % 4) + " WHERE page_id = " + id);
                st.executeUpdate("ALTER TABLE text SET PARTITION = p" + (id % 4) + " WHERE old_id = " + (1000 + id));
            }
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (router != null) router.close();
    }

    /** MediaWiki's fetch-page transaction: the page by title, the page joined with its latest revision, the text. */
    static void fetchPage(Connection lutra, int id) throws SQLException {
        long pageId;
        long latest;
        try (var ps = lutra.prepareStatement("SELECT page_id, page_latest FROM page WHERE page_namespace = ? AND page_title = ?")) {
            ps.setInt(1, 0);
            ps.setString(2, "Title_" + id);
            try (var rs = ps.executeQuery()) {
                assertTrue(rs.next());
                pageId = rs.getLong(1);
                latest = rs.getLong(2);
                assertFalse(rs.next());
            }
        }
        long textId;
        try (var ps = lutra.prepareStatement("SELECT rev_id, rev_text_id, page_title FROM page JOIN revision ON rev_page = page_id WHERE page_id = ? AND rev_id = ?")) {
            ps.setLong(1, pageId);
            ps.setLong(2, latest);
            try (var rs = ps.executeQuery()) {
                assertTrue(rs.next());
                textId = rs.getLong(2);
                assertFalse(rs.next());
            }
        }
        try (var ps = lutra.prepareStatement("SELECT old_text FROM text WHERE old_id = ?")) {
            ps.setLong(1, textId);
            try (var rs = ps.executeQuery()) {
                assertTrue(rs.next());
                assertEquals("text of page " + id, rs.getString(1));
            }
        }
        lutra.commit();
    }

    /**
     * The fetch-page transaction runs on the one partition holding the page, its revision and its text, with what
     * one MariaDB would be sent by Connector/J with auto-commit off: the three reads and COMMIT (the first read starts the
     * transaction, with no BEGIN), 4 statements. The page is read by its name, (namespace, title), MediaWiki's unique key,
     * through a UNIQUE secondary lookup over both columns, where the router guesses its row is (it read the name's entry
     * before: UniqueValueGuess): no fence and no entries at the name's home (3 statements more before, with a lookup on the
     * title alone, which is not unique). No home row is locked: each read by key is validated by its answer. No move-batch
     * count is read, in the snapshot or outside it: the second and third reads use a snapshot the transaction began in an
     * earlier statement, but that snapshot is all it has seen (one partition, consistent reads only), so what they answer
     * is what one database's snapshot answers whatever moved since (docs/architecture.md, "The validation protocol").
     */
    @Test
    void fetchPageSendsItsReadsToThePagesPartitionOnly() throws Exception {
        try (Connection lutra = router.connect()) {
            lutra.setAutoCommit(false);
            for (int id = 1; id <= PAGES; id++) fetchPage(lutra, id); // warm: plans, connections, prepared statements, guesses
            for (int id : new int[] {5, 6, 7}) {
                var sent = log.during(() -> fetchPage(lutra, id));
                sent.forEach(s -> System.out.println("TransactionStatementsIT: fetch-page " + id + " " + s));
                int shard = id % 4; // partition i on shard i
                assertEquals(List.of(), sent.stream().filter(s -> s.text().contains("lutra_move_fence") || s.text().contains("lutra_sec_")).toList(),
                        "page " + id + ": no fence, no entries: " + sent);
                var first = sent.stream().filter(s -> s.server() == shard && kind(s.text()).equals("page")).findFirst().orElseThrow();
                var onPage = sent.stream().filter(s -> s.server() == shard && s.thread() == first.thread()).map(s -> kind(s.text())).toList();
                assertEquals(List.of("page", "page JOIN revision", "text", "COMMIT"), onPage, "page " + id + ": no BEGIN: " + sent);
                var others = sent.stream().filter(s -> !(s.server() == shard && s.thread() == first.thread())).toList();
                assertEquals(List.of(), others, "page " + id + ": nothing else, on no partition");
                assertEquals(4, sent.size(), "page " + id + ": " + sent);
                System.out.printf("TransactionStatementsIT: fetch-page of page %d: %d statements (one MariaDB: 4)%n", id, sent.size());
            }
        }
    }

    /**
     * Once the transaction has written, its snapshot of the page's partition is no longer all it has seen: each later read
     * there compares the group's move-batch count in the snapshot (read once) with the latest (read outside the
     * transaction, per read), as the title's read does under its fence.
     */
    @Test
    void aFetchPageAfterAWriteComparesTheMoveBatchCounts() throws Exception {
        try (Connection lutra = router.connect()) {
            lutra.setAutoCommit(false);
            for (int id = 1; id <= PAGES; id++) fetchPage(lutra, id); // warm
            int id = 9;
            var sent = log.during(() -> {
                try (var ps = lutra.prepareStatement("UPDATE page SET page_latest = page_latest WHERE page_id = ?")) {
                    ps.setInt(1, id);
                    assertEquals(1, ps.executeUpdate());
                }
                fetchPage(lutra, id);
            });
            sent.forEach(s -> System.out.println("TransactionStatementsIT: write, then fetch-page " + id + " " + s));
            int shard = id % 4;
            var first = sent.stream().filter(s -> s.server() == shard && s.text().matches("(?is)UPDATE\\s+`?page`?\\s.*")).findFirst().orElseThrow();
            assertTrue(sent.stream().noneMatch(s -> s.text().equals("BEGIN")), "no BEGIN: " + sent);
            var inTransaction = sent.stream().filter(s -> s.server() == shard && s.thread() == first.thread()).toList();
            assertEquals(first, inTransaction.getFirst(), "the write starts the transaction: " + sent);
            assertEquals("COMMIT", inTransaction.getLast().text(), "page " + id + ": " + sent);
            assertEquals(1, inTransaction.stream().filter(k -> kind(k.text()).equals("batches in the snapshot")).count(), "page " + id + ": " + sent);
            var latest = sent.stream().filter(s -> s.server() == shard && s.thread() != first.thread()
                    && s.text().startsWith(MoveFence.BATCHES.substring(0, MoveFence.BATCHES.indexOf('?')))).toList(); // the log shows the value
            assertEquals(3, latest.size(), "page " + id + ": the latest count per read after the write: " + sent);
        }
    }

    /** TPC-E's customer by tax id, a read through a UNIQUE secondary lookup, in a transaction of its own. */
    static void customerByTax(Connection lutra, int id) throws SQLException {
        try (var ps = lutra.prepareStatement("SELECT c_id, c_name FROM customer WHERE c_tax_id = ?")) {
            ps.setString(1, "TAX-" + id);
            try (var rs = ps.executeQuery()) {
                assertTrue(rs.next());
                assertEquals(id, rs.getInt(1));
                assertFalse(rs.next());
            }
        }
        lutra.commit();
    }

    /** The statements sent, without {@code BEGIN} (whether a branch sends one is the transactions' business, not the lookup's). */
    static List<GeneralLog.Statement> withoutBegin(List<GeneralLog.Statement> sent) {
        return sent.stream().filter(s -> !s.text().equals("BEGIN")).toList();
    }

    /**
     * A read by a UNIQUE value whose row is where the router guesses (it read the value's entry before: UniqueValueGuess)
     * is the read and the COMMIT on the customer's partition, as one MariaDB is sent: no fence, no entries (3 statements
     * before, with them). A router with no guess for the value (a new one, whose first read by the lookup starts reading
     * its entries as guesses in the background, and weighs the values under the column's collation, once per router:
     * not counted) reads the fence and the entries at the value's home first, as
     * before; a stale guess (the row moved by another router) costs the try where it was, then the same.
     */
    @Test
    void aReadByAUniqueValueWhereTheRouterGuessesIsTheReadAlone() throws Exception {
        try (Connection lutra = router.connect()) {
            lutra.setAutoCommit(false);
            for (int id = 1; id <= CUSTOMERS; id++) customerByTax(lutra, id); // warm; a guess missed at the hash home learns the entry
            for (int id : new int[] {3, 4}) {
                int shard = (id + 1) % 4;
                var hit = withoutBegin(log.during(() -> customerByTax(lutra, id)));
                hit.forEach(s -> System.out.println("TransactionStatementsIT: customer by tax id " + id + ", guessed " + s));
                assertEquals(List.of("customer", "COMMIT"), hit.stream().map(s -> kind(s.text())).toList(), "customer " + id + ": " + hit);
                assertTrue(hit.stream().allMatch(s -> s.server() == shard), "on the customer's partition only: " + hit);

                TestRouter fresh = new TestRouter(router, "txstmtsB" + id, List.of()); // closing it would drop the shared databases
                List<GeneralLog.Statement> noGuess;
                try (Connection other = fresh.connect()) {
                    other.setAutoCommit(false);
                    noGuess = withoutBegin(log.during(() -> customerByTax(other, id))).stream()
                            .filter(s -> !s.text().startsWith("SELECT v, p FROM") && !s.text().startsWith("SELECT WEIGHT_STRING")).toList(); // the guesses read, and weighed, in the background
                } finally {
                    fresh.stopRouter();
                }
                noGuess.forEach(s -> System.out.println("TransactionStatementsIT: customer by tax id " + id + ", no guess " + s));
                assertEquals(1, noGuess.stream().filter(s -> s.text().contains("lutra_move_fence")).count(), "" + noGuess);
                assertEquals(1, noGuess.stream().filter(s -> s.text().contains("lutra_sec_cust_tax")).count(), "" + noGuess);
                var onCustomer = noGuess.stream().filter(s -> s.server() == shard && !s.text().contains("lutra_")).map(s -> kind(s.text())).toList();
                assertTrue(onCustomer.size() >= 2 && onCustomer.subList(onCustomer.size() - 2, onCustomer.size()).equals(List.of("customer", "COMMIT")),
                        "then the read on the customer's partition: " + noGuess);
                System.out.printf("TransactionStatementsIT: customer by tax id %d: %d statements with the guess, %d without (BEGIN not counted)%n",
                        id, hit.size(), noGuess.size());
            }
            int id = 5;
            int from = (id + 1) % 4;
            int to = (from + 2) % 4;
            TestRouter mover = new TestRouter(router, "txstmtsM", List.of());
            try (Connection other = mover.connect(); var st = other.createStatement()) {
                st.executeUpdate("ALTER TABLE customer SET PARTITION = p" + to + " WHERE c_id = " + id);
            } finally {
                mover.stopRouter();
            }
            var stale = withoutBegin(log.during(() -> customerByTax(lutra, id)));
            stale.forEach(s -> System.out.println("TransactionStatementsIT: customer by tax id " + id + ", stale guess " + s));
            assertTrue(stale.stream().anyMatch(s -> s.server() == from && kind(s.text()).equals("customer")), "the try where it was: " + stale);
            assertTrue(stale.stream().anyMatch(s -> s.text().contains("lutra_sec_cust_tax")), "then the entries: " + stale);
            assertTrue(stale.stream().anyMatch(s -> s.server() == to && kind(s.text()).equals("customer")), "and the read where it is: " + stale);
            var again = withoutBegin(log.during(() -> customerByTax(lutra, id)));
            assertEquals(List.of("customer", "COMMIT"), again.stream().map(s -> kind(s.text())).toList(), "learned: " + again);
        }
    }

    /** TPC-E's Trade Result writes a row by its UNIQUE value: here the customer's name by its tax id, in a transaction of its own. */
    static int renameByTax(Connection lutra, int id, String name) throws SQLException {
        int count;
        try (var ps = lutra.prepareStatement("UPDATE customer SET c_name = ? WHERE c_tax_id = ?")) {
            ps.setString(1, name);
            ps.setString(2, "TAX-" + id);
            count = ps.executeUpdate();
        }
        lutra.commit();
        return count;
    }

    /**
     * An UPDATE by a UNIQUE value whose row is where the router guesses (UniqueValueGuess.write) is the write and the
     * COMMIT on the customer's partition, as one MariaDB is sent: no locking fence, no entries (3 statements more
     * without the guess). The count is the row matched, changed or not (the backends count found rows); a name set to
     * what it was matches the row too, and is not taken for a miss.
     */
    @Test
    void aWriteByAUniqueValueWhereTheRouterGuessesIsTheWriteAlone() throws Exception {
        try (Connection lutra = router.connect()) {
            lutra.setAutoCommit(false);
            for (int id : new int[] {7, 8}) {
                int shard = (id + 1) % 4;
                customerByTax(lutra, id); // learns where the row is, if the router had no guess
                for (String name : new String[] {"renamed " + id, "renamed " + id, "customer " + id}) {
                    var counts = new int[1];
                    var sent = withoutBegin(log.during(() -> counts[0] = renameByTax(lutra, id, name))).stream()
                            .filter(s -> !s.text().startsWith("SELECT partitions INTO placed")).toList(); // the placement trigger's, inside the UPDATE
                    sent.forEach(s -> System.out.println("TransactionStatementsIT: rename by tax id " + id + ", guessed " + s));
                    assertEquals(1, counts[0], "the row matched: " + name);
                    assertEquals(List.of("UPDATE customer SET c_name = ? WHERE c_tax_id = ?", "COMMIT"),
                            sent.stream().map(s -> s.text().startsWith("UPDATE customer") ? "UPDATE customer SET c_name = ? WHERE c_tax_id = ?" : s.text()).toList(),
                            "the write alone: " + sent);
                    assertTrue(sent.stream().allMatch(s -> s.server() == shard), "on the customer's partition only: " + sent);
                    try (Connection p = router.partition(shard); var rs = p.createStatement().executeQuery("SELECT c_name FROM customer WHERE c_id = " + id)) {
                        assertTrue(rs.next());
                        assertEquals(name, rs.getString(1));
                    }
                }
            }
        }
    }

    /**
     * TPC-E's Trade Order inserts a row with a new value of a UNIQUE secondary lookup (the trade's id): the insert and the
     * COMMIT on the row's partition, and at the value's home the entry's insert alone, committed by itself outside the
     * transaction (auto-commit: no COMMIT of its own, SecondaryEntries.aside), ahead of the row's one-phase commit.
     */
    @Test
    void anInsertOfANewUniqueValueCommitsItsEntryByItsInsertAlone() throws Exception {
        try (Connection lutra = router.connect()) {
            lutra.setAutoCommit(false);
            for (int id = 100; id < 104; id++) {
                int c = id;
                var sent = withoutBegin(log.during(() -> {
                    try (var ps = lutra.prepareStatement("INSERT INTO customer (c_id, c_tax_id, c_name) VALUES (?, ?, ?)")) {
                        ps.setInt(1, c);
                        ps.setString(2, "TAX-" + c);
                        ps.setString(3, "customer " + c);
                        assertEquals(1, ps.executeUpdate());
                    }
                    lutra.commit();
                })).stream().filter(s -> !s.text().startsWith("SELECT partitions INTO placed") // the placement trigger's, inside the INSERT
                        && !s.text().startsWith("SELECT WEIGHT_STRING")).toList(); // the value weighed under its collation, for its home
                sent.forEach(s -> System.out.println("TransactionStatementsIT: insert of customer " + c + " " + s));
                var entry = sent.stream().filter(s -> s.text().contains("lutra_sec_cust_tax")).toList();
                assertEquals(1, entry.size(), "one statement on the entries: " + sent);
                assertTrue(entry.getFirst().text().contains("FOR INSERT IGNORE INTO `lutra_sec_cust_tax`"), "the entry's insert (waiting 1 s at most for a lock): " + sent);
                var onEntrysConnection = sent.stream().filter(s -> s.server() == entry.getFirst().server() && s.thread() == entry.getFirst().thread()).toList();
                assertEquals(entry, onEntrysConnection, "no COMMIT of the entry's own: " + sent);
                var row = sent.stream().filter(s -> !entry.contains(s)).map(s -> s.text().startsWith("INSERT INTO customer") ? "INSERT INTO customer" : s.text()).toList();
                assertEquals(List.of("INSERT INTO customer", "COMMIT"), row, "the row's insert and its one-phase commit: " + sent);
            }
        }
    }

    /** What a statement of the fetch-page transaction is, by its text. */
    private static String kind(String sql) {
        if (sql.startsWith("SELECT 1 FROM `lutra_place_page` WHERE partitions LIKE")) return "copies?";
        if (sql.equals(MoveFence.EVERY_BATCHES)) return "batches in the snapshot";
        if (sql.contains("JOIN revision")) return "page JOIN revision";
        if (sql.contains("FROM page")) return "page";
        if (sql.contains("FROM text")) return "text";
        if (sql.contains("FROM customer")) return "customer";
        return sql;
    }
}
