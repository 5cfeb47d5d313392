package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.placement.FailPoints;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Reads by a value of a UNIQUE secondary lookup that router A tries where it guesses the value's row lives
 * (exec/UniqueValueGuess), while router B moves those rows, changes their values, deletes them and gives their values
 * to new rows elsewhere, so that A's guesses go stale. Every answer is checked against the rows on the shards (auto-commit),
 * against the shards' rows when the transaction's snapshots were taken (REPEATABLE READ), or against one MariaDB running
 * the same interleaving; a move committing between the guessed read and its answer is injected at a fail point. Writes by
 * a value (UniqueValueGuess.write) likewise: their counts and the rows they leave on the shards are checked against the
 * shards' rows before them, in auto-commit and in transactions whose snapshots are older than B's changes.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UniqueValueGuessIT {
    static final String CUSTOMERS = "CREATE TABLE customers (id INT PRIMARY KEY, tax_id VARCHAR(32) NOT NULL, score INT NOT NULL DEFAULT 0, UNIQUE KEY (tax_id))";
    static final String SCHEMA = CUSTOMERS + " PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);\n"
            + "CREATE TABLE orders (cust INT NOT NULL, n INT NOT NULL, PRIMARY KEY (cust, n)) PARTITION BY lookup(cust) SAME AS customers;\n"
            + "CREATE TABLE notes (id INT PRIMARY KEY, n INT NOT NULL) PARTITION BY hash(id) ON (p0, p1, p2, p3);\n";
    static final String BY_TAX = "SELECT id, score FROM customers WHERE tax_id = ?";

    Shards shards;
    TestRouter a;
    TestRouter b;
    int nextId = 1;

    @BeforeAll
    void start(Shards shards) throws Exception {
        this.shards = shards;
        a = new TestRouter(shards, "uvguess", SCHEMA);
        b = new TestRouter(a, "uvguessB", List.of());
        try (Connection lutra = a.connect(); var st = lutra.createStatement()) {
            st.execute("CREATE SECONDARY LOOKUP cust_tax ON customers (tax_id) UNIQUE");
            for (int n = 1; n <= 8; n++) st.executeUpdate("INSERT INTO notes VALUES (" + n + ", 0)");
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (b != null) b.server.close();
        if (a != null) a.close();
    }

    /** {@code tax_id = value} (the column's collation, on each shard itself) → id → score, over every partition. */
    TreeMap<Long, Long> onShards(Object value) throws SQLException {
        var out = new TreeMap<Long, Long>();
        for (int p = 0; p < 4; p++) {
            try (Connection shard = a.partition(p); var ps = shard.prepareStatement(BY_TAX)) {
                ps.setObject(1, value);
                try (var rs = ps.executeQuery()) {
                    while (rs.next()) assertNull(out.put(rs.getLong(1), rs.getLong(2)), "a row on two partitions: " + value);
                }
            }
        }
        return out;
    }

    int partitionOf(long id) throws SQLException {
        for (int p = 0; p < 4; p++) {
            try (Connection shard = a.partition(p); var rs = shard.createStatement().executeQuery("SELECT 1 FROM customers WHERE id = " + id)) {
                if (rs.next()) return p;
            }
        }
        throw new AssertionError("no customer " + id);
    }

    static TreeMap<Long, Long> read(Connection lutra, Object value) throws SQLException {
        var out = new TreeMap<Long, Long>();
        try (var ps = lutra.prepareStatement(BY_TAX)) {
            ps.setObject(1, value);
            try (var rs = ps.executeQuery()) {
                while (rs.next()) assertNull(out.put(rs.getLong(1), rs.getLong(2)), "a row twice: " + value);
            }
        }
        return out;
    }

    /** {@code n} customers inserted through router A, tax ids {@code prefix}0 .. {@code prefix}(n - 1): id → tax. */
    TreeMap<Long, String> customers(String prefix, int n) throws SQLException {
        var out = new TreeMap<Long, String>();
        for (int i = 0; i < n; i++) out.put(insert(a, prefix + i), prefix + i);
        return out;
    }

    long insert(TestRouter r, String tax) throws SQLException {
        long id = nextId++;
        try (Connection c = r.connect(); var st = c.createStatement()) {
            st.executeUpdate("INSERT INTO customers (id, tax_id) VALUES (" + id + ", '" + tax + "')");
            st.executeUpdate("INSERT INTO orders VALUES (" + id + ", 1)");
        }
        return id;
    }

    void onB(String sql) throws SQLException {
        try (Connection c = b.connect(); var st = c.createStatement()) {
            st.executeUpdate(sql);
        }
    }

    /**
     * Random moves, value changes, deletes and a value given to a new row elsewhere, through router B; after each, the
     * values it touched and six others at random (every value ever used after the last step), in the spelling written
     * or in another case (equal under the column's collation), read through router A in auto-commit equal the shards'
     * rows. A's guesses (learned from its inserts and reads) go stale on every change of B's: both hits and misses
     * happen, each counted.
     */
    @Test
    void autoCommitReadsThroughAStaleRouterAnswerWhatTheShardsHold() throws Exception {
        long seed = Long.getLong("uvguess.seed", System.nanoTime());
        System.out.println("UniqueValueGuessIT seed " + seed);
        var random = new Random(seed);
        var live = customers("AC-", 16); // id → tax, as written through B
        var values = new ArrayList<>(live.values());
        var stats = a.server.stats();
        long guessed = stats.secondaryGuessed();
        long missed = stats.secondaryGuessMissed();
        try (Connection lutra = a.connect()) {
            for (int step = 0; step < 80; step++) {
                var ids = new ArrayList<>(live.keySet());
                long id = ids.get(random.nextInt(ids.size()));
                var checked = new java.util.LinkedHashSet<String>();
                checked.add(live.get(id));
                String given = changeOnB(random, live, values, "AC-", id);
                if (given != null) checked.add(given);
                if (step == 79) checked.addAll(values);
                while (checked.size() < Math.min(8, values.size())) checked.add(values.get(random.nextInt(values.size())));
                for (String tax : checked) {
                    String spelled = random.nextBoolean() ? tax : tax.toLowerCase(Locale.ROOT);
                    assertEquals(onShards(tax), read(lutra, spelled), "step " + step + ", " + spelled + " (seed " + seed + ")");
                }
            }
        }
        assertTrue(stats.secondaryGuessed() > guessed, "some reads answered where A guessed");
        assertTrue(stats.secondaryGuessMissed() > missed, "some guesses were stale, and the entries answered");
    }

    /**
     * REPEATABLE READ transactions through router A that first scan the table (a snapshot of every partition, all taken
     * under the move fence: one moment), then read by values while router B moves rows and changes their values: each
     * answer is the rows of that moment, or 40001 (a move committed where the transaction reads; retry). Half the
     * transactions write first (a row of another table), so their older snapshots are not used for a guess.
     */
    @Test
    void repeatableReadAnswersFromItsSnapshotOrRetries() throws Exception {
        long seed = Long.getLong("uvguess.seed", System.nanoTime());
        System.out.println("UniqueValueGuessIT seed " + seed);
        var random = new Random(seed);
        var live = new TreeMap<Long, String>();
        int made = 0;
        for (int i = 0; i < 12; i++) live.put(insert(a, "RR-" + made), "RR-" + made++);
        long guessed = a.server.stats().secondaryGuessed();
        int answered = 0;
        int retried = 0;
        for (int round = 0; round < 16; round++) {
            try (Connection lutra = a.connect()) {
                for (String tax : live.values()) read(lutra, tax); // A's guesses, right for now
                lutra.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                lutra.setAutoCommit(false);
                if (round % 2 == 1) lutra.createStatement().executeUpdate("UPDATE notes SET n = n + 1 WHERE id = " + (1 + round % 8));
                try (var rs = lutra.createStatement().executeQuery("SELECT COUNT(*) FROM customers")) {
                    assertTrue(rs.next());
                }
                var then = new TreeMap<String, TreeMap<Long, Long>>();
                for (int i = 0; i < made; i++) then.put("RR-" + i, onShards("RR-" + i));
                var ids = new ArrayList<>(live.keySet());
                for (int k = 0; k < 3; k++) {
                    long id = ids.get(random.nextInt(ids.size()));
                    if (random.nextBoolean()) {
                        onB("ALTER TABLE customers SET PARTITION = p" + random.nextInt(4) + " WHERE id = " + id);
                    } else {
                        String tax = "RR-" + made++;
                        then.put(tax, new TreeMap<>());
                        onB("UPDATE customers SET tax_id = '" + tax + "', score = score + 1 WHERE id = " + id);
                        live.put(id, tax);
                    }
                }
                try {
                    for (var e : then.entrySet()) {
                        assertEquals(e.getValue(), read(lutra, e.getKey()), "round " + round + ", " + e.getKey() + " (seed " + seed + ")");
                        answered++;
                    }
                } catch (SQLException e) {
                    assertEquals("40001", e.getSQLState(), e.getMessage());
                    retried++;
                }
                lutra.rollback();
            }
        }
        System.out.printf("UniqueValueGuessIT: %d answers from the snapshots, %d transactions retried%n", answered, retried);
        assertTrue(answered > 0);
        assertTrue(a.server.stats().secondaryGuessed() > guessed, "some reads in the transactions answered where A guessed");
    }

    /**
     * A transaction reads partition p, where A guesses the row of value v; router B moves v's row to q and changes it; the
     * transaction reads q (its snapshot there has the newer row) and the row by its key (the newer row). Its read by v
     * then tries p, whose snapshot has the older row: the group's move-batch count there differs from the latest, so that
     * answer is dropped, and the newer row is answered (or 40001). Without the counts' comparison, the older row.
     */
    @Test
    void aTransactionThatSawTheNewerRowElsewhereNeverGetsTheOlderOne() throws Exception {
        long r = insert(a, "NEWER");
        int p = partitionOf(r);
        int q = (p + 1) % 4;
        long onP = insert(a, "NEWER-P");
        onB("ALTER TABLE customers SET PARTITION = p" + p + " WHERE id = " + onP);
        long onQ = insert(a, "NEWER-Q");
        onB("ALTER TABLE customers SET PARTITION = p" + q + " WHERE id = " + onQ);
        try (Connection lutra = a.connect()) {
            assertEquals(new TreeMap<>(java.util.Map.of(r, 0L)), read(lutra, "NEWER")); // A guesses p
            read(lutra, "NEWER-P"); // and where the other two are, once it has read their entries
            read(lutra, "NEWER-Q");
            long guessed = a.server.stats().secondaryGuessed();
            assertEquals(1, read(lutra, "NEWER-P").size());
            assertEquals(1, read(lutra, "NEWER-Q").size());
            assertEquals(guessed + 2, a.server.stats().secondaryGuessed(), "A guesses them right");
            lutra.setAutoCommit(false);
            assertEquals(1, read(lutra, "NEWER-P").size()); // the snapshot of p
            onB("ALTER TABLE customers SET PARTITION = p" + q + " WHERE id = " + r);
            onB("UPDATE customers SET score = 2 WHERE id = " + r);
            assertEquals(1, read(lutra, "NEWER-Q").size()); // the snapshot of q, with the newer row
            try (var rs = lutra.createStatement().executeQuery("SELECT score FROM customers WHERE id = " + r)) {
                assertTrue(rs.next());
                assertEquals(2, rs.getLong(1), "the row by its key, where it lives now");
            }
            try {
                assertEquals(new TreeMap<>(java.util.Map.of(r, 2L)), read(lutra, "NEWER"), "by its value after seeing the newer row");
            } catch (SQLException e) {
                assertEquals("40001", e.getSQLState(), e.getMessage());
            }
            lutra.rollback();
        }
    }

    /**
     * A transaction's own row with value v on another partition than an older snapshot that A guesses: the transaction
     * read v's row r1 on p, another session deleted r1, the transaction gave v to a new row r2 elsewhere, and another
     * session of the router read v (r2 is not committed: the entry committed names p, learned), so that the router guesses
     * p. The transaction's older snapshot of p alone would miss its own r2: the guess is not used there (the transaction
     * has written), and the answer is the one the same interleaving gets through router B, whose guess is r2's partition
     * (its own insert's), which the same rule leaves unused. (One MariaDB answers one row here, the first of the two in
     * the unique index's order that its snapshot or the transaction's own writes show, where Lutra answers both: a
     * divergence of the entries' path that a guess does not change.)
     */
    @Test
    void aTransactionsOwnRowOfTheValueElsewhereIsNotMissedByAGuess() throws Exception {
        var answers = new ArrayList<TreeSet<Long>>();
        var expected = new ArrayList<TreeSet<Long>>();
        for (TestRouter router : List.of(a, b)) {
            String tax = "OWN-" + answers.size();
            long r1 = insert(a, tax);
            int p = partitionOf(r1);
            long r2 = nextId++;
            while (org.lutra.catalog.KeyValues.bucket(r2, 4) == p) r2 = nextId++; // its DEFAULT NEW home (hash): not p
            try (Connection t = router.connect(); Connection other = router.connect()) {
                read(t, tax); // the router's guess: p
                t.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                t.setAutoCommit(false);
                assertEquals(1, read(t, tax).size());
                other.createStatement().executeUpdate("DELETE FROM orders WHERE cust = " + r1);
                other.createStatement().executeUpdate("DELETE FROM customers WHERE id = " + r1);
                t.createStatement().executeUpdate("INSERT INTO customers (id, tax_id) VALUES (" + r2 + ", '" + tax + "')");
                assertNotEquals(p, partitionOfUncommitted(r2), "r2 elsewhere");
                if (router == a) read(other, tax); // A guesses p again (the committed entry); B goes on guessing r2's partition
                answers.add(new TreeSet<>(read(t, tax).keySet()));
                expected.add(new TreeSet<>(List.of(r1, r2)));
                t.rollback();
            }
        }
        assertEquals(expected.get(1), answers.get(1), "through B: the snapshot's r1 and the transaction's own r2");
        assertEquals(expected.get(0), answers.get(0), "through A, guessing the older snapshot's partition: the same");
    }

    /** The partition holding the UNIQUE lookup's entry of {@code value} (its home), read on the shards. */
    int homeOf(String value) throws SQLException {
        for (int p = 0; p < 4; p++) {
            try (Connection shard = a.partition(p); var ps = shard.prepareStatement("SELECT p FROM lutra_sec_cust_tax WHERE v = ?")) {
                ps.setString(1, value);
                try (var rs = ps.executeQuery()) {
                    if (rs.next()) return p;
                }
            }
        }
        throw new AssertionError("no entry of " + value);
    }

    /**
     * A stale UNIQUE entry taken over while a REPEATABLE READ transaction's older snapshot still shows its row: T has read
     * partitions p (row r1 with value v) and q and has written (so no guess of an older snapshot is used); router B deletes
     * r1 and gives v to a new row r2 on q, which takes v's entry over (it names q now). T's snapshot of q predates r2 and
     * its snapshot of p still has r1, which T reads by its key: by v, T answers r1, as one MariaDB does from T's snapshot.
     * v's home is neither p nor q and T has not begun there (it would read the older entry in its own snapshot): T reads
     * p and q by values whose rows are where A guesses, on those partitions alone.
     */
    @Test
    void aTakenOverEntryDoesNotHideTheRowOfAnOlderSnapshot() throws Exception {
        String tax;
        long r1;
        int p;
        int home;
        int n = 0;
        do {
            tax = "TAKEN-" + n++;
            r1 = insert(a, tax);
            p = partitionOf(r1);
            home = homeOf(tax);
        } while (home == p);
        int q = 0;
        while (q == p || q == home) q++;
        long onQ = nextId++;
        while (org.lutra.catalog.KeyValues.bucket(onQ, 4) != q) onQ = nextId++; // placed on q by A, which guesses q for its value
        try (Connection c = a.connect(); var st = c.createStatement()) {
            st.executeUpdate("INSERT INTO customers (id, tax_id) VALUES (" + onQ + ", '" + tax + "-Q')");
        }
        assertEquals(q, partitionOf(onQ));
        long note = 1;
        while (org.lutra.catalog.KeyValues.bucket(note, 4) != p) note++;
        long r2 = nextId++;
        while (org.lutra.catalog.KeyValues.bucket(r2, 4) != q) r2 = nextId++; // its DEFAULT NEW home (hash): q
        try (Connection t = a.connect()) {
            t.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            t.setAutoCommit(false);
            assertEquals(new TreeMap<>(java.util.Map.of(r1, 0L)), read(t, tax)); // the snapshot of p
            assertEquals(1, read(t, tax + "-Q").size()); // the snapshot of q
            assertEquals(1, t.createStatement().executeUpdate("UPDATE notes SET n = n + 1 WHERE id = " + note)); // written: no guess
            onB("DELETE FROM orders WHERE cust = " + r1);
            onB("DELETE FROM customers WHERE id = " + r1);
            onB("INSERT INTO customers (id, tax_id) VALUES (" + r2 + ", '" + tax + "')");
            assertEquals(q, partitionOf(r2), "r2 on q");
            assertEquals(q, entryNames(tax), "the entry taken over names q");
            try (var rs = t.createStatement().executeQuery("SELECT tax_id FROM customers WHERE id = " + r1)) {
                assertTrue(rs.next(), "r1 in T's snapshot, by its key");
                assertEquals(tax, rs.getString(1));
            }
            assertEquals(new TreeMap<>(java.util.Map.of(r1, 0L)), read(t, tax), "by its value: the row of T's snapshot");
            t.rollback();
        }
        try (Connection lutra = a.connect()) {
            assertEquals(new TreeMap<>(java.util.Map.of(r2, 0L)), read(lutra, tax), "after T: the new row");
        }
    }

    /** The partition the UNIQUE lookup's entry of {@code value} names, read at its home. */
    int entryNames(String value) throws SQLException {
        try (Connection shard = a.partition(homeOf(value)); var ps = shard.prepareStatement("SELECT p FROM lutra_sec_cust_tax WHERE v = ?")) {
            ps.setString(1, value);
            try (var rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return rs.getInt(1);
            }
        }
    }

    /**
     * A router's first read by the lookup reads its entries as guesses (in the background): a value it never read nor wrote
     * is then answered where it guesses, even after another router moved its row before the warm-up read the entries.
     */
    @Test
    void aNewRouterGuessesValuesItNeverReadFromTheEntries() throws Exception {
        long first = insert(a, "WARM-1");
        long second = insert(a, "WARM-2");
        onB("ALTER TABLE customers SET PARTITION = p" + (partitionOf(second) + 1) % 4 + " WHERE id = " + second);
        TestRouter c = new TestRouter(a, "uvguessC", List.of());
        try (Connection lutra = c.connect()) {
            assertEquals(java.util.Set.of(first), read(lutra, "WARM-1").keySet()); // no guess: the entries; the warm-up starts
            long entries = 0;
            for (int p = 0; p < 4; p++) {
                try (Connection shard = a.partition(p); var rs = shard.createStatement().executeQuery("SELECT COUNT(*) FROM lutra_sec_cust_tax")) {
                    assertTrue(rs.next());
                    entries += rs.getLong(1);
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // waits for the background read, asserts no time
            while (c.server.stats().secondaryGuesses().size("cust_tax") < entries && System.nanoTime() < deadline) Thread.sleep(50);
            assertEquals(entries, c.server.stats().secondaryGuesses().size("cust_tax"), "every entry read as a guess");
            assertEquals(onShards("WARM-2"), read(lutra, "WARM-2"));
            assertEquals(1, c.server.stats().secondaryGuessed(), "WARM-2 answered where the entries read in the background put it");
            assertEquals(0, c.server.stats().secondaryGuessMissed());
        } finally {
            c.stopRouter();
        }
    }

    /** Where an uncommitted row is: READ UNCOMMITTED on each shard. */
    int partitionOfUncommitted(long id) throws SQLException {
        for (int p = 0; p < 4; p++) {
            try (Connection shard = a.partition(p)) {
                shard.setTransactionIsolation(Connection.TRANSACTION_READ_UNCOMMITTED);
                try (var rs = shard.createStatement().executeQuery("SELECT 1 FROM customers WHERE id = " + id)) {
                    if (rs.next()) return p;
                }
            }
        }
        return -1;
    }

    /**
     * The row's move commits after the guessed read found it and before the read answers (the fail point): in auto-commit
     * and in a transaction that has written (its snapshot of p begun by this read), the row answered once, as it was.
     */
    @Test
    void aMoveCommittingBetweenTheGuessedReadAndItsAnswer() throws Exception {
        for (boolean inTransaction : new boolean[] {false, true}) {
            String tax = "MID-" + inTransaction;
            long r = insert(a, tax);
            int p = partitionOf(r);
            int q = (p + 2) % 4;
            var moved = new CompletableFuture<Integer>();
            var reached = new AtomicBoolean();
            try (Connection lutra = a.connect()) {
                if (inTransaction) beginWithAWriteAwayFrom(lutra, p);
                try (var hook = moveOnB(FailPoints.SECONDARY_GUESS_READ, r, q, reached, moved)) {
                    assertEquals(new TreeMap<>(java.util.Map.of(r, 0L)), read(lutra, tax), "read while its row moved");
                }
                assertTrue(reached.get(), "the read was answered where A guessed");
                assertEquals(q, moved.get(60, TimeUnit.SECONDS), "the move committed meanwhile");
                assertEquals(q, partitionOf(r));
                try {
                    assertEquals(new TreeMap<>(java.util.Map.of(r, 0L)), read(lutra, tax), "read again, after the move");
                } catch (SQLException e) {
                    assertTrue(inTransaction, e.getMessage());
                    assertEquals("40001", e.getSQLState(), e.getMessage());
                }
                if (inTransaction) lutra.rollback();
            }
        }
    }

    /**
     * One random change of customer {@code id} through router B, kept in {@code live} (id → value) and {@code values}:
     * moved to a random partition (half the time), given a new value named {@code prefix} + a number (returned), or
     * deleted with its value given to a new row placed at random.
     */
    String changeOnB(Random random, java.util.Map<Long, String> live, List<String> values, String prefix, long id) throws SQLException {
        switch (random.nextInt(4)) {
            case 0, 1 -> onB("ALTER TABLE customers SET PARTITION = p" + random.nextInt(4) + " WHERE id = " + id);
            case 2 -> {
                String next = prefix + values.size();
                values.add(next);
                onB("UPDATE customers SET tax_id = '" + next + "', score = score + 1 WHERE id = " + id);
                live.put(id, next);
                return next;
            }
            default -> { // the value leaves its row and goes to a new one, placed elsewhere
                String moved = live.remove(id);
                onB("DELETE FROM orders WHERE cust = " + id);
                onB("DELETE FROM customers WHERE id = " + id);
                long fresh = insert(b, moved);
                onB("ALTER TABLE customers SET PARTITION = p" + random.nextInt(4) + " WHERE id = " + fresh);
                live.put(fresh, moved);
            }
        }
        return null;
    }

    /** Begins a transaction on {@code lutra} with a write on a partition other than {@code p}: the guess's rules for a transaction that wrote apply. */
    static void beginWithAWriteAwayFrom(Connection lutra, int p) throws SQLException {
        lutra.setAutoCommit(false);
        int note = 1;
        while (org.lutra.catalog.KeyValues.bucket((long) note, 4) == p) note++;
        lutra.createStatement().executeUpdate("UPDATE notes SET n = n + 1 WHERE id = " + note);
    }

    /** At the first time {@code failPoint} is reached, router B moves customer {@code r} to partition {@code q} (completing {@code moved}). */
    AutoCloseable moveOnB(String failPoint, long r, int q, AtomicBoolean reached, CompletableFuture<Integer> moved) {
        return FailPoints.install(point -> {
            if (!point.equals(failPoint) || !reached.compareAndSet(false, true)) return;
            try {
                onB("ALTER TABLE customers SET PARTITION = p" + q + " WHERE id = " + r);
                moved.complete(q);
            } catch (SQLException e) {
                moved.completeExceptionally(e);
            }
        });
    }

    static final String SCORE_BY_TAX = "UPDATE customers SET score = score + 1 WHERE tax_id = ?";
    static final String DELETE_BY_TAX = "DELETE FROM customers WHERE tax_id = ?";

    static int write(Connection lutra, String sql, Object value) throws SQLException {
        try (var ps = lutra.prepareStatement(sql)) {
            ps.setObject(1, value);
            return ps.executeUpdate();
        }
    }

    /** The shards' rows of {@code value} after {@code sql} through router A, from {@code before}: one more score, or none. */
    static TreeMap<Long, Long> after(String sql, TreeMap<Long, Long> before) {
        var out = new TreeMap<Long, Long>();
        if (sql.equals(SCORE_BY_TAX)) before.forEach((id, score) -> out.put(id, score + 1));
        return out;
    }

    /**
     * Writes by values through router A (a score raised, a row deleted) while router B moves rows, changes their values and
     * gives values to new rows elsewhere: in auto-commit, and in REPEATABLE READ transactions that read the value (A's
     * guess, a snapshot of its partition) before B's change and write by it after. Each write counts the rows the shards
     * held with the value before it, and leaves them raised or gone; both a guess's hits and misses happen.
     */
    @Test
    void writesByAStaleGuessChangeWhatTheShardsHold() throws Exception {
        long seed = Long.getLong("uvguess.seed", System.nanoTime());
        System.out.println("UniqueValueGuessIT writes seed " + seed);
        var random = new Random(seed);
        var live = customers("WR-", 12); // id → tax
        var values = new ArrayList<>(live.values());
        var stats = a.server.stats();
        long guessed = stats.secondaryGuessed();
        long missed = stats.secondaryGuessMissed();
        for (int step = 0; step < 60; step++) {
            boolean inTransaction = random.nextBoolean();
            var ids = new ArrayList<>(live.keySet());
            long id = ids.get(random.nextInt(ids.size()));
            String tax = random.nextInt(6) == 0 ? values.get(random.nextInt(values.size())) : live.get(id); // now and then one gone
            String sql = random.nextInt(5) == 0 ? DELETE_BY_TAX : SCORE_BY_TAX;
            try (Connection lutra = a.connect()) {
                read(lutra, tax); // A's guess for it, right for now
                if (inTransaction) {
                    lutra.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                    lutra.setAutoCommit(false);
                    read(lutra, tax); // a snapshot older than B's change
                }
                changeOnB(random, live, values, "WR-", id);
                var before = onShards(tax);
                String spelled = random.nextBoolean() ? tax : tax.toLowerCase(Locale.ROOT);
                String where = "step " + step + ", " + sql + " " + spelled + (inTransaction ? " in a transaction" : "") + " (seed " + seed + ")";
                assertEquals(before.size(), write(lutra, sql, spelled), where);
                if (inTransaction) lutra.commit();
                assertEquals(after(sql, before), onShards(tax), where);
                if (sql.equals(DELETE_BY_TAX)) {
                    for (long gone : before.keySet()) {
                        live.remove(gone);
                        onB("DELETE FROM orders WHERE cust = " + gone);
                    }
                    String fresh = "WR-" + values.size(); // a new row, so that rows remain
                    values.add(fresh);
                    live.put(insert(b, fresh), fresh);
                }
            }
        }
        assertTrue(stats.secondaryGuessed() > guessed, "some writes and reads answered where A guessed");
        assertTrue(stats.secondaryGuessMissed() > missed, "some guesses were stale, and the entries answered");
    }

    /**
     * A transaction read v's row r1 on p (A's guess), another session deleted r1, the transaction gave v to a new row r2
     * elsewhere; its UPDATE by v, guessed on p, matches nothing there (the latest rows) and is written where the entries
     * (the transaction's own) name: r2, once, as one MariaDB updates the transaction's own row.
     */
    @Test
    void aTransactionsWriteByAValueFindsItsOwnRowElsewhere() throws Exception {
        String tax = "OWNW";
        long r1 = insert(a, tax);
        int p = partitionOf(r1);
        long r2 = nextId++;
        while (org.lutra.catalog.KeyValues.bucket(r2, 4) == p) r2 = nextId++; // its DEFAULT NEW home (hash): not p
        try (Connection t = a.connect(); Connection other = a.connect()) {
            read(t, tax); // A's guess: p
            t.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            t.setAutoCommit(false);
            assertEquals(1, read(t, tax).size());
            other.createStatement().executeUpdate("DELETE FROM orders WHERE cust = " + r1);
            other.createStatement().executeUpdate("DELETE FROM customers WHERE id = " + r1);
            t.createStatement().executeUpdate("INSERT INTO customers (id, tax_id, score) VALUES (" + r2 + ", '" + tax + "', 5)");
            read(other, tax); // A guesses p again (the committed entry)
            assertEquals(1, write(t, SCORE_BY_TAX, tax), "the transaction's own row");
            t.commit();
        }
        assertEquals(new TreeMap<>(java.util.Map.of(r2, 6L)), onShards(tax));
        assertNotEquals(p, partitionOf(r2));
    }

    /**
     * Router B moves the row from p, where A guesses it, to q after A chose p and before it sends the write there (the fail
     * point): the write matches nothing on p and is written on q, where the entries say, once; in auto-commit and in a
     * transaction that has written elsewhere.
     */
    @Test
    void aMoveCommittingBetweenTheGuessAndTheWrite() throws Exception {
        for (boolean inTransaction : new boolean[] {false, true}) {
            for (String sql : List.of(SCORE_BY_TAX, DELETE_BY_TAX)) {
                String tax = "MIDW-" + inTransaction + "-" + sql.charAt(0);
                long r = insert(a, tax);
                onB("DELETE FROM orders WHERE cust = " + r);
                int p = partitionOf(r);
                int q = (p + 2) % 4;
                var moved = new CompletableFuture<Integer>();
                var reached = new AtomicBoolean();
                try (Connection lutra = a.connect()) {
                    if (inTransaction) beginWithAWriteAwayFrom(lutra, p);
                    try (var hook = moveOnB(FailPoints.SECONDARY_GUESS_WRITE, r, q, reached, moved)) {
                        assertEquals(1, write(lutra, sql, tax), "written while its row moved: " + sql);
                    }
                    if (inTransaction) lutra.commit();
                }
                assertTrue(reached.get(), "the write was tried where A guessed");
                assertEquals(q, moved.get(60, TimeUnit.SECONDS), "the move committed meanwhile");
                var expected = new TreeMap<Long, Long>();
                if (sql.equals(SCORE_BY_TAX)) {
                    expected.put(r, 1L);
                    assertEquals(q, partitionOf(r));
                }
                assertEquals(expected, onShards(tax), sql + (inTransaction ? " in a transaction" : ""));
            }
        }
    }
}
