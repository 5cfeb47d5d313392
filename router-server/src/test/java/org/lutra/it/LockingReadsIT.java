package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.protocol.Refusal;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every locking form ({@code FOR UPDATE}, {@code LOCK IN SHARE MODE}, {@code FOR SHARE}, a plain read of a SERIALIZABLE
 * transaction) under every placement (hash, range, REPLICATED, lookup, lookup with replicated keys, a secondary lookup, a
 * lookup group whose keys move all the time), in auto-commit and in transactions, must wait for a row another
 * transaction holds, as one MariaDB's does. The bank of the report: transaction A locks accounts 1 and 2 {@code FOR
 * UPDATE}, moves money between them and keeps them; B starts a locking read of them. B must be seen waiting for A's rows in
 * the shards' InnoDB lock waits ({@link InnoDbLockWaits}; a read of the lookup group whose keys move all the time, where a
 * move may wait for them too: still unfinished after {@value #HOLD_MILLIS} ms), then A commits and B's answer must be what
 * the same sequence gives on one plain MariaDB holding the same rows, run beside it (whose B must be waiting too: the test's own expectation).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LockingReadsIT {
    static final int HOLD_MILLIS = 300;
    static final int LOCK_WAIT = 10;
    /** How long a statement that takes no lock may take, under load; one that waits ends only at {@link #LOCK_WAIT}. */
    static final int NO_WAIT_SECONDS = LOCK_WAIT / 2;
    /** How long to look for a statement's lock wait before taking its being unfinished as waiting. */
    static final int SEEN_WAITING_SECONDS = 3;
    static final int ACCOUNTS = 8;
    static final long SEED = Long.getLong("lutra.lockingreads.seed", System.nanoTime());

    /** Where the accounts (and their ledger, placed alike) live; each placement has tables of its own. */
    enum Placement {
        HASH("hash(id) ON (p0, p1, p2, p3)", "hash(account) ON (p0, p1, p2, p3)"),
        RANGE("range(id) ON (p0 < 2, p1 < 4, p2 < 6, p3)", "range(account) ON (p0 < 2, p1 < 4, p2 < 6, p3)"),
        REPLICATED(null, null),
        LOOKUP("lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id)", "lookup(account) SAME AS %s"),
        REPLICATED_KEYS(LOOKUP.accounts, LOOKUP.ledger),
        SECONDARY(LOOKUP.accounts, LOOKUP.ledger),
        MOVING(LOOKUP.accounts, LOOKUP.ledger);

        final String accounts;
        final String ledger;

        Placement(String accounts, String ledger) {
            this.accounts = accounts;
            this.ledger = ledger;
        }

        String table() {
            return "acc_" + name().toLowerCase();
        }

        String ledgerTable() {
            return "ledger_" + name().toLowerCase();
        }

        String ddl() {
            String a = "CREATE TABLE " + table() + " (id INT PRIMARY KEY, owner INT NOT NULL, balance INT NOT NULL, KEY (owner)) ";
            String l = "CREATE TABLE " + ledgerTable() + " (account INT NOT NULL, n INT NOT NULL, amount INT NOT NULL, PRIMARY KEY (account, n)) ";
            if (accounts == null) return a + "REPLICATED ON (p0, p1, p2, p3);\n" + l + "REPLICATED ON (p0, p1, p2, p3);\n";
            return a + "PARTITION BY " + accounts + ";\n" + l + "PARTITION BY " + ledger.formatted(table()) + ";\n";
        }
    }

    /** How session B reads: the locking clause it appends (MariaDB gets LOCK IN SHARE MODE for FOR SHARE) and its transaction. */
    record Variant(String clause, Mode mode) {
        @Override
        public String toString() {
            return (clause.isEmpty() ? "plain read" : clause.trim()) + " " + mode;
        }
    }

    enum Mode {
        AUTO_COMMIT(Connection.TRANSACTION_REPEATABLE_READ), REPEATABLE_READ(Connection.TRANSACTION_REPEATABLE_READ),
        READ_COMMITTED(Connection.TRANSACTION_READ_COMMITTED), SERIALIZABLE(Connection.TRANSACTION_SERIALIZABLE);

        final int level;

        Mode(int level) {
            this.level = level;
        }
    }

    static final List<Variant> EVERY_VARIANT;
    static final List<Variant> SOME_VARIANTS = List.of(new Variant(" FOR UPDATE", Mode.AUTO_COMMIT), new Variant(" LOCK IN SHARE MODE", Mode.REPEATABLE_READ),
            new Variant(" FOR SHARE", Mode.READ_COMMITTED), new Variant("", Mode.SERIALIZABLE));

    static {
        var all = new ArrayList<Variant>();
        for (String clause : List.of(" FOR UPDATE", " LOCK IN SHARE MODE", " FOR SHARE")) for (Mode m : Mode.values()) all.add(new Variant(clause, m));
        all.add(new Variant("", Mode.SERIALIZABLE)); // InnoDB reads it with shared locks
        EVERY_VARIANT = List.copyOf(all);
    }

    /**
     * B's statements ({@code {t}} the accounts, {@code {l}} their ledger); each reads account 1 or 2 where its locking
     * clause applies (a UNION's clause locks its last SELECT's rows only, on MariaDB).
     */
    record Shape(String sql, boolean everyVariant) {}

    static final List<Shape> SHAPES = List.of(
            new Shape("SELECT SUM(balance) FROM {t}", true),
            new Shape("SELECT id, balance FROM {t} WHERE id = 1", true),
            new Shape("SELECT id, owner, balance FROM {t} ORDER BY id", false),
            new Shape("SELECT id, balance FROM {t} WHERE id IN (2, 5) ORDER BY id", false),
            new Shape("SELECT id, balance FROM {t} WHERE id BETWEEN 1 AND 3 ORDER BY id", false),
            new Shape("SELECT id, balance FROM {t} WHERE owner = 1 ORDER BY id", false),
            new Shape("SELECT owner, SUM(balance), COUNT(*) FROM {t} GROUP BY owner ORDER BY owner", false),
            new Shape("SELECT id, balance FROM {t} ORDER BY balance DESC, id LIMIT 3", false),
            new Shape("SELECT COUNT(*) FROM {t} WHERE balance > 0", false),
            new Shape("SELECT a.id, a.balance, SUM(l.amount) FROM {t} a JOIN {l} l ON l.account = a.id GROUP BY a.id, a.balance ORDER BY a.id", false),
            new Shape("SELECT SUM(balance) FROM {t} WHERE id IN (SELECT account FROM {l} WHERE amount > 0)", false),
            new Shape("SELECT id, balance FROM {t} WHERE id = 3 UNION ALL SELECT id, balance FROM {t} WHERE id = 1", false));

    Differential differential;
    InnoDbLockWaits lockWaits;
    /** Cases whose B was unfinished but never seen in InnoDB's lock waits (printed: each cost {@value #SEEN_WAITING_SECONDS} s). */
    final AtomicInteger unseenWaits = new AtomicInteger();
    final AtomicBoolean moving = new AtomicBoolean(true);
    final AtomicInteger moves = new AtomicInteger();

    @BeforeAll
    void start(Shards shards) throws Exception {
        var schema = new StringBuilder();
        for (Placement p : Placement.values()) schema.append(p.ddl());
        schema.append("CREATE TABLE ").append(COPIES).append(" (run INT NOT NULL, id INT NOT NULL, balance BIGINT, PRIMARY KEY (run, id))"
                + " PARTITION BY hash(run) ON (p0, p1, p2, p3);\n");
        schema.append("CREATE TABLE ").append(CHILD).append(" (id INT PRIMARY KEY, account INT, FOREIGN KEY (account) REFERENCES ")
                .append(Placement.REPLICATED.table()).append(" (id)) PARTITION BY hash(id) ON (p0, p1, p2, p3);\n");
        schema.append("CREATE TABLE ").append(RACE).append(" (id INT PRIMARY KEY, balance INT NOT NULL) PARTITION BY ").append(Placement.LOOKUP.accounts).append(";\n");
        differential = new Differential(shards, "lockreads", schema.toString(), new RouterConfig.Transactions("lockreads", LOCK_WAIT, 0, 0));
        for (Placement p : Placement.values()) {
            for (int id = 1; id <= ACCOUNTS; id++) {
                differential.both("INSERT INTO " + p.table() + " VALUES (" + id + ", " + (id + 1) / 2 + ", 1000)");
                differential.both("INSERT INTO " + p.ledgerTable() + " VALUES (" + id + ", 1, 10), (" + id + ", 2, -3)");
            }
        }
        for (int id = 1; id <= 2 * RACE_KEYS; id++) differential.both("INSERT INTO " + RACE + " VALUES (" + id + ", 1000)");
        try (var st = differential.lutra.createStatement()) {
            // a replicated key among A's (its copies all written by A) and one beside them
            st.execute("ALTER TABLE " + Placement.REPLICATED_KEYS.table() + " SET PARTITION = (p1, p3) WHERE id = 1");
            st.execute("ALTER TABLE " + Placement.REPLICATED_KEYS.table() + " SET PARTITION = (p2, p0) WHERE id = 6");
            st.execute("CREATE SECONDARY LOOKUP acc_secondary_owner ON " + Placement.SECONDARY.table() + " (owner)");
        }
        try (var st = differential.reference.createStatement()) {
            st.execute("SET SESSION innodb_lock_wait_timeout = " + LOCK_WAIT);
        }
        var databases = new ArrayList<String>();
        for (int s = 0; s < differential.router.servers; s++) databases.add(differential.router.database + "_p" + s);
        lockWaits = new InnoDbLockWaits(shards, databases);
    }

    @AfterAll
    void stop() throws Exception {
        moving.set(false);
        System.out.printf("LockingReadsIT: %d cases whose waits InnoDB's views did not show%n", unseenWaits.get());
        if (lockWaits != null) lockWaits.close();
        if (differential != null) differential.close();
    }

    /** Every shape under every placement: the full matrix of variants for the first shapes, four variants for the others. */
    @Test
    void aLockingReadWaitsForTheRowsAnotherTransactionHolds() throws Exception {
        var threads = Executors.newVirtualThreadPerTaskExecutor();
        var failures = Collections.synchronizedList(new ArrayList<String>());
        var cases = new AtomicInteger();
        var victims = new AtomicInteger();
        Future<?> mover = threads.submit(() -> moveNonstop(Placement.MOVING));
        try {
            var placements = new ArrayList<Future<?>>();
            for (Placement p : Placement.values()) {
                placements.add(threads.submit(() -> {
                    for (Shape shape : SHAPES) {
                        for (Variant v : shape.everyVariant() ? EVERY_VARIANT : SOME_VARIANTS) {
                            String sql = shape.sql().replace("{t}", p.table()).replace("{l}", p.ledgerTable());
                            String problem = runCase(threads, p.table(), true, sql, v, null);
                            for (int retry = 0; problem == DEADLOCK && p == Placement.MOVING && retry < 5; retry++) {
                                victims.incrementAndGet();
                                problem = runCase(threads, p.table(), true, sql, v, null);
                            }
                            cases.incrementAndGet();
                            if (problem != null) failures.add(p + ", " + v + ": " + sql + v.clause() + ": " + problem);
                        }
                    }
                    return null;
                }));
            }
            for (var f : placements) f.get(10, TimeUnit.MINUTES);
        } finally {
            moving.set(false);
        }
        mover.get(1, TimeUnit.MINUTES);
        threads.shutdown();
        System.out.printf("LockingReadsIT: seed %d, %d locking reads (%d placements), each blocked while another transaction held its rows,"
                + " %d moves meanwhile (%d reads deadlock victims of a move, retried); %d failed%n", SEED, cases.get(), Placement.values().length,
                moves.get(), victims.get(), failures.size());
        assertEquals(List.of(), failures);
        assertTrue(moves.get() > 0, "keys moved while the reads ran");
    }

    /** A hash-placed child of the REPLICATED accounts: a foreign key whose parent has a copy on every partition the child is on. */
    static final String CHILD = "child_of_replicated";

    /**
     * A's {@code FOR UPDATE} of REPLICATED parent rows locks their first partition's copy, where every locking read of them
     * locks; an INSERT or UPDATE of a child row that references one, on any partition, must wait for it, as InnoDB's foreign
     * key check (a shared lock on the parent row) waits on one MariaDB — not check the copy on its own partition, which A did
     * not lock.
     */
    @Test
    void aChildRowWaitsForItsReplicatedParentLockedByAnotherTransaction() throws Exception {
        var threads = Executors.newVirtualThreadPerTaskExecutor();
        var failures = new ArrayList<String>();
        String r = Placement.REPLICATED.table();
        int cases = 0;
        for (Mode mode : List.of(Mode.AUTO_COMMIT, Mode.READ_COMMITTED, Mode.REPEATABLE_READ)) {
            int base = 100 * (1 + mode.ordinal());
            var writes = new ArrayList<String>();
            for (int id = base + 1; id <= base + 8; id++) writes.add("INSERT INTO " + CHILD + " VALUES (" + id + ", " + (1 + id % 2) + ")"); // every partition
            for (int id = base + 1; id <= base + 4; id++) writes.add("UPDATE " + CHILD + " SET account = " + (2 - id % 2) + " WHERE id = " + id);
            writes.add("INSERT INTO " + CHILD + " (id, account) SELECT id + " + (base + 50) + ", id FROM " + Placement.HASH.table() + " WHERE id IN (1, 2)");
            for (String write : writes) {
                String problem = runCase(threads, r, false, write, new Variant("", mode), null);
                cases++;
                if (problem != null) failures.add(mode + ": " + write + ": " + problem);
            }
        }
        threads.shutdown();
        System.out.printf("LockingReadsIT: %d writes of child rows whose REPLICATED parent another transaction holds; %d failed%n", cases, failures.size());
        assertEquals(List.of(), failures);
    }

    /** Where the INSERT ... SELECT cases copy rows to: a run number per case. */
    static final String COPIES = "copied_rows";

    /**
     * INSERT ... SELECT reads its SELECT's rows with shared locks at REPEATABLE READ and SERIALIZABLE (auto-commit too), as
     * InnoDB does, so it waits for rows another transaction holds and copies their values as committed; at READ COMMITTED it
     * reads them consistently (no lock, the values before A's change), as InnoDB does. The copies must equal one MariaDB's.
     */
    @Test
    void anInsertSelectLocksTheRowsItReadsAsInnoDbDoes() throws Exception {
        var threads = Executors.newVirtualThreadPerTaskExecutor();
        var failures = new ArrayList<String>();
        int cases = 0;
        int run = 0;
        for (Placement p : List.of(Placement.HASH, Placement.LOOKUP, Placement.REPLICATED, Placement.REPLICATED_KEYS)) {
            var selects = List.of(
                    "SELECT {run}, id, balance FROM " + p.table() + " WHERE id <= 3",
                    "SELECT {run}, id, balance FROM " + p.table() + " WHERE id = 2",
                    "SELECT {run}, 0, SUM(balance) FROM " + p.table());
            for (String select : selects) {
                for (Mode mode : Mode.values()) {
                    run++;
                    String sql = "INSERT INTO " + COPIES + " (run, id, balance) " + select.replace("{run}", String.valueOf(run));
                    String problem = runCase(threads, p.table(), true, sql, new Variant("", mode), null, mode != Mode.READ_COMMITTED);
                    if (problem == null) problem = differential.sameRows("the copied rows", "SELECT * FROM " + COPIES + " WHERE run = " + run + " ORDER BY id");
                    cases++;
                    if (problem != null) failures.add(p + ", " + mode + ": " + sql + ": " + problem);
                }
            }
        }
        threads.shutdown();
        System.out.printf("LockingReadsIT: %d INSERT ... SELECTs of rows another transaction holds; %d failed%n", cases, failures.size());
        assertEquals(List.of(), failures);
    }

    /** A lookup-placed table whose keys 1..{@value #RACE_KEYS} each move once, away from home, while a statement reads it. */
    static final String RACE = "acc_race";
    static final int RACE_KEYS = 10;

    /**
     * A statement inside a READ COMMITTED transaction has read the home rows of keys that live at home (no home row: nothing
     * to lock, and READ COMMITTED takes no gap locks); a move of one of them then starts: it writes the key's home row and
     * moves its rows. The statement must still find the key's rows once (the move waits for it), whether it reads plainly,
     * locks, or writes them.
     */
    @Test
    void aStatementAtReadCommittedFindsAKeyWhoseMoveStartsAfterItReadTheHomeRows() throws Exception {
        var failures = new ArrayList<String>();
        var statements = List.of(
                "SELECT id, balance FROM " + RACE + " WHERE id IN ({k}, {k2}) ORDER BY id",
                "SELECT id, balance FROM " + RACE + " WHERE id IN ({k}, {k2}) ORDER BY id FOR SHARE",
                "SELECT id, balance FROM " + RACE + " WHERE id IN ({k}, {k2}) ORDER BY id FOR UPDATE",
                "SELECT SUM(balance), COUNT(*) FROM " + RACE + " WHERE id IN ({k}, {k2}) LOCK IN SHARE MODE",
                "UPDATE " + RACE + " SET balance = balance + 1 WHERE id IN ({k}, {k2})");
        var expected = List.of("[{k}, 1000]|[{k2}, 1000]", "[{k}, 1000]|[{k2}, 1000]", "[{k}, 1000]|[{k2}, 1000]", "[2000, 2]", "2 rows");
        int k = 0;
        for (Mode mode : List.of(Mode.READ_COMMITTED, Mode.AUTO_COMMIT)) {
            for (int i = 0; i < statements.size() && k < RACE_KEYS; i++) {
                k++;
                String sql = statements.get(i).replace("{k2}", String.valueOf(k + RACE_KEYS)).replace("{k}", String.valueOf(k));
                String want = expected.get(i).replace("{k2}", String.valueOf(k + RACE_KEYS)).replace("{k}", String.valueOf(k));
                String got = readWhileAKeyStartsMoving(k, sql, mode);
                if (!want.equals(got)) failures.add(mode + ": " + sql + ": " + got + ", expected " + want);
            }
        }
        System.out.printf("LockingReadsIT: %d statements whose key's move started after they read its home row; %d failed%n", k, failures.size());
        assertEquals(List.of(), failures);
    }

    /** How long a move that is not seen waiting for a lock is given to commit while the statement holds its home rows. */
    static final int MOVE_MILLIS = 1500;

    /** Whether a transaction on the router's partitions waits for a row lock now (in a test where only one statement and one move run). */
    private boolean someoneWaits() throws Exception {
        String partitions = "`" + differential.router.database + "_p";
        return lockWaits.now().stream().anyMatch(w -> w.table().startsWith(partitions));
    }

    /** {@code sql} run in {@code mode}; once it holds its home rows, key {@code key} (at home) starts moving away. Its rows or update count. */
    private String readWhileAKeyStartsMoving(int key, String sql, Mode mode) throws Exception {
        String home;
        try (var st = differential.lutra.createStatement(); var rs = st.executeQuery("SHOW LOOKUP " + RACE + " FOR " + key)) {
            assertTrue(rs.next());
            home = rs.getString("Partition");
        }
        String target = "p" + (Integer.parseInt(home.substring(1)) + 1) % 4;
        var moved = new java.util.concurrent.CompletableFuture<Integer>();
        var first = new AtomicBoolean();
        String answer;
        try (Connection b = differential.router.connect();
             var hook = org.lutra.placement.FailPoints.install(point -> {
                 if (!point.equals(org.lutra.placement.FailPoints.HOME_ROWS_LOCKED) || !first.compareAndSet(false, true)) return;
                 Thread.ofPlatform().start(() -> {
                     try (Connection c = differential.router.connect(); var st = c.createStatement()) {
                         moved.complete(st.executeUpdate("ALTER TABLE " + RACE + " SET PARTITION = " + target + " WHERE id = " + key));
                     } catch (Exception e) {
                         moved.completeExceptionally(e);
                     }
                 });
                 try { // a move the statement's locks do not hold up commits meanwhile; one seen waiting for a lock waits for the statement
                     long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MOVE_MILLIS);
                     while (!moved.isDone() && System.nanoTime() < until && !someoneWaits()) {
                         // someoneWaits() reads the lock waits at the next 120 ms instant
                     }
                 } catch (Exception e) {
                     throw new IllegalStateException(e);
                 }
             })) {
            b.setTransactionIsolation(mode.level);
            b.setAutoCommit(mode == Mode.AUTO_COMMIT);
            try (var st = b.createStatement()) {
                if (sql.startsWith("UPDATE")) {
                    answer = st.executeUpdate(sql) + " rows";
                } else {
                    var rows = new ArrayList<String>();
                    try (var rs = st.executeQuery(sql)) {
                        while (rs.next()) rows.add("[" + rs.getString(1) + ", " + rs.getString(2) + "]");
                    }
                    answer = String.join("|", rows);
                }
            }
            if (!b.getAutoCommit()) b.rollback();
        }
        assertTrue(first.get(), "the statement read home rows: " + sql);
        try {
            moved.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof SQLException q) || q.getErrorCode() != 1205) throw e; // a move that gave up waiting is fine
        }
        return answer;
    }

    /**
     * A lock held without a write: A's {@code FOR UPDATE} alone, on one copy of a REPLICATED table or a replicated key
     * (where every locking read of those rows must meet it), or on a SAME AS table's rows, while B reads them alone or
     * joined with the other placements.
     */
    @Test
    void aLockHeldWithoutAWriteHoldsToo() throws Exception {
        var threads = Executors.newVirtualThreadPerTaskExecutor();
        var failures = new ArrayList<String>();
        int cases = 0;
        var reads = new ArrayList<Read>();
        for (Placement p : Placement.values()) {
            if (p == Placement.MOVING) continue;
            String t = p.table(), l = p.ledgerTable();
            if (p == Placement.REPLICATED || p == Placement.REPLICATED_KEYS) reads.add(new Read(t, "SELECT SUM(balance) FROM " + t, null));
            reads.add(new Read(l, "SELECT SUM(amount) FROM " + l, null)); // a SAME AS table's rows
            reads.add(new Read(l, "SELECT a.id, SUM(l.amount) FROM " + t + " a JOIN " + l + " l ON l.account = a.id GROUP BY a.id ORDER BY a.id", null));
        }
        // a REPLICATED table's rows locked on the copy where a join runs would not meet A's lock on its first partition: refused
        String r = Placement.REPLICATED.table(), copy = "REPLICATED table " + r;
        for (Placement p : List.of(Placement.HASH, Placement.REPLICATED_KEYS)) {
            reads.add(new Read(r, "SELECT x.id, r.balance FROM " + p.table() + " x JOIN " + r + " r ON r.id = x.id WHERE x.id = 2", copy));
            reads.add(new Read(r, "SELECT x.id, r.balance FROM " + p.table() + " x JOIN " + r + " r ON r.id = x.id ORDER BY x.id", copy));
        }
        // tables of different placements in one statement: a join in rounds, subqueries run first, a derived table, a UNION
        String h = Placement.HASH.table(), o = Placement.REPLICATED_KEYS.table();
        String join = "SELECT h.id, h.balance, o.balance FROM " + h + " h JOIN " + o + " o ON o.id = h.id WHERE h.owner = 1 ORDER BY h.id";
        reads.add(new Read(h, join, null));
        reads.add(new Read(o, join, null));
        reads.add(new Read(h, "SELECT SUM(balance) FROM " + h + " WHERE id IN (SELECT id FROM " + o + " WHERE owner = 1)", null));
        reads.add(new Read(o, "SELECT SUM(balance) FROM " + o + " WHERE id IN (SELECT id FROM " + h + " WHERE owner = 1)", null));
        reads.add(new Read(o, "SELECT d.id, o.balance FROM (SELECT id FROM " + h + " WHERE owner = 1) d JOIN " + o + " o ON o.id = d.id ORDER BY d.id",
                "joined with a derived table", true)); // a SERIALIZABLE read of the materialized table locks more rows, and waits
        reads.add(new Read(o, "SELECT id, balance FROM " + h + " WHERE id = 3 UNION ALL SELECT id, balance FROM " + o + " WHERE id = 1", null));
        // one at a time: B's locks on one table and another case's A on it would wait for each other across the two databases
        for (Read read : reads) {
            for (Variant v : SOME_VARIANTS) {
                String problem = runCase(threads, read.locked(), false, read.sql(), v, read.clausesOnly() && v.clause().isEmpty() ? null : read.refusal());
                cases++;
                if (problem != null) failures.add(v + ", A locks " + read.locked() + ": " + read.sql() + v.clause() + ": " + problem);
            }
        }
        threads.shutdown();
        System.out.printf("LockingReadsIT: %d locking reads against a lock held without a write; %d failed%n", cases, failures.size());
        assertEquals(List.of(), failures);
    }

    /** InnoDB reads an UPDATE's subqueries with shared locks at REPEATABLE READ and SERIALIZABLE (at READ COMMITTED they are consistent reads). */
    static final List<Variant> UPDATE_VARIANTS = List.of(new Variant("", Mode.AUTO_COMMIT), new Variant("", Mode.REPEATABLE_READ),
            new Variant("", Mode.SERIALIZABLE));

    /** A DELETE's with shared locks at every level. */
    static final List<Variant> DELETE_VARIANTS = List.of(new Variant("", Mode.AUTO_COMMIT), new Variant("", Mode.READ_COMMITTED),
            new Variant("", Mode.SERIALIZABLE));

    /**
     * A write whose subquery reads the REPLICATED table inside the target's partitions (each partition its own copy) while A
     * holds accounts 1 and 2 {@code FOR UPDATE} on the table's first copy, where locking reads lock: the write must wait, as
     * one MariaDB's does, although its own rows are on partitions other than that first one (range: 5 on p2, 6 and 7 on p3).
     * And a DELETE whose subquery runs first (over a table placed otherwise) waits at READ COMMITTED too, as InnoDB locks a
     * DELETE's subquery rows at every level.
     */
    @Test
    void aWriteReadingAReplicatedTableWaitsForItsLockedRows() throws Exception {
        var threads = Executors.newVirtualThreadPerTaskExecutor();
        var failures = new ArrayList<String>();
        int cases = 0;
        String r = Placement.REPLICATED.table(), t = Placement.RANGE.table(), l = Placement.RANGE.ledgerTable();
        var writes = List.of(
                "UPDATE " + t + " SET balance = balance + 1 WHERE id = 5 AND balance > (SELECT MIN(balance) - 5000 FROM " + r + " WHERE id = 1)",
                "UPDATE " + t + " SET owner = owner + 1 WHERE id = 7 AND owner IN (SELECT owner + 3 FROM " + r + " WHERE id = 2)",
                "DELETE FROM " + l + " WHERE account = 7 AND n = 2 AND EXISTS (SELECT 1 FROM " + r + " WHERE id = 2 AND balance > 0)",
                // nested: the table locked whole (the rows stay, so that each variant's write reads as the first's)
                "UPDATE " + l + " SET amount = amount + 1 WHERE account = 6 AND n IN (SELECT owner FROM " + r + " WHERE id IN (SELECT id FROM " + r
                        + " WHERE id BETWEEN 1 AND 2))",
                // correlated: it reads the rows of the outer row's values
                "UPDATE " + t + " x SET balance = (SELECT y.balance FROM " + r + " y WHERE y.id = x.id - 4) + 3 WHERE x.id = 6");
        var locked = new java.util.LinkedHashMap<String, String>();
        for (String write : writes) locked.put(write, r);
        // a DELETE's subquery over a table placed otherwise runs first: a locking read at READ COMMITTED too
        String h = Placement.HASH.table();
        locked.put("DELETE FROM " + l + " WHERE account = 8 AND n IN (SELECT owner FROM " + h + " WHERE id = 1)", h);
        locked.put("UPDATE " + l + " SET amount = amount + 1 WHERE account = 8 AND n IN (SELECT owner + 1 FROM " + h + " WHERE id = 2)", h);
        for (var write : locked.entrySet()) {
            for (Variant v : write.getKey().startsWith("DELETE") ? DELETE_VARIANTS : UPDATE_VARIANTS) {
                String problem = runCase(threads, write.getValue(), false, write.getKey(), v, null);
                cases++;
                if (problem != null) failures.add(v + ", A locks " + write.getValue() + ": " + write.getKey() + ": " + problem);
            }
        }
        threads.shutdown();
        System.out.printf("LockingReadsIT: %d writes whose subqueries read rows another transaction holds (a REPLICATED table's on its first copy); %d failed%n", cases, failures.size());
        assertEquals(List.of(), failures);
    }

    /**
     * {@link #runCase}'s answer when B's read through the router was chosen as a deadlock's victim: possible where a move
     * batch locks the same rows in another order on one partition (docs/architecture.md, "Locking scans"), as after any
     * deadlock the transaction is retried.
     */
    static final String DEADLOCK = "deadlock victim";

    /** B's statement, the table whose accounts 1 and 2 A holds, and the words of the refusal the router must answer instead, if any. */
    record Read(String locked, String sql, String refusal, boolean clausesOnly) {
        Read(String locked, String sql, String refusal) {
            this(locked, sql, refusal, false);
        }
    }

    /**
     * One case, through the router and on the plain MariaDB at once: A takes accounts 1 and 2 of {@code locked} and, if
     * {@code change}, changes them (the total too, so a sum read before A commits differs), B starts {@code sql}; both Bs must
     * be seen waiting ({@link #seenWaiting}); A commits; B's answers must agree — or, where {@code refusal} names the
     * words of one, the router refused the read (42000/1235) rather than answer it without the lock. Null when all holds,
     * else what did not.
     */
    private String runCase(ExecutorService threads, String locked, boolean change, String sql, Variant v, String refusal) throws Exception {
        return runCase(threads, locked, change, sql, v, refusal, true);
    }

    /** {@link #runCase}; {@code waits} false: B reads without a lock on one MariaDB, and must not wait through the router either. */
    private String runCase(ExecutorService threads, String locked, boolean change, String sql, Variant v, String refusal, boolean waits) throws Exception {
        try (Connection aL = differential.router.connect(); Connection aM = differential.newReference();
             Connection bL = differential.router.connect(); Connection bM = differential.newReference()) {
            for (Connection a : List.of(aL, aM)) take(a, locked, change);
            for (Connection b : List.of(bL, bM)) {
                b.setTransactionIsolation(v.mode().level);
                b.setAutoCommit(v.mode() == Mode.AUTO_COMMIT);
            }
            try (var st = bM.createStatement()) {
                st.execute("SET SESSION innodb_lock_wait_timeout = " + LOCK_WAIT);
            }
            long bMThread = InnoDbLockWaits.threadOf(bM);
            var started = new CountDownLatch(2);
            Future<List<String>> lutra = threads.submit(() -> read(bL, sql + v.clause(), started));
            Future<List<String>> mariadb = threads.submit(() -> read(bM, sql + v.clause().replace("FOR SHARE", "LOCK IN SHARE MODE"), started));
            started.await(30, TimeUnit.SECONDS);
            boolean lutraWaited, mariadbWaited;
            if (!waits) { // a statement that takes no lock ends while A holds its locks (one that waited would end at the lock wait timeout, or later)
                lutraWaited = !endsWithin(lutra, NO_WAIT_SECONDS);
                mariadbWaited = !endsWithin(mariadb, NO_WAIT_SECONDS);
            } else if (locked.equals(Placement.MOVING.table())) { // a move's wait for A's rows would look like B's
                Thread.sleep(HOLD_MILLIS);
                lutraWaited = !lutra.isDone();
                mariadbWaited = !mariadb.isDone();
            } else {
                boolean[] seen = seenWaiting(locked, lutra, mariadb, bMThread);
                lutraWaited = seen[0];
                mariadbWaited = seen[1];
            }
            aL.commit();
            aM.commit();
            List<String> l = lutra.get(LOCK_WAIT * 3L, TimeUnit.SECONDS);
            List<String> m = mariadb.get(LOCK_WAIT * 3L, TimeUnit.SECONDS);
            for (Connection b : List.of(bL, bM)) {
                if (b.getAutoCommit()) continue;
                var answer = b == bL ? l : m;
                if (!answer.isEmpty() && answer.getFirst().startsWith("error ")) b.rollback(); else b.commit();
            }
            if (!l.isEmpty() && l.getFirst().startsWith("error 1213:")) return DEADLOCK;
            if (!waits) {
                if (mariadbWaited) return "the plain MariaDB's statement waited (the case expects it not to): " + m;
                return lutraWaited ? "waited for the rows, where one MariaDB reads them without a lock: " + l : l.equals(m) ? null : "lutra " + l + " / mariadb " + m;
            }
            if (!mariadbWaited) return "the plain MariaDB's read did not wait either (a case that tests nothing): " + m;
            if (refusal != null) return l.size() == 1 && l.getFirst().startsWith("refused ") && l.getFirst().contains(refusal) ? null : "not refused: " + l;
            if (!l.equals(m)) return (lutraWaited ? "" : "returned while the rows were locked, ") + "lutra " + l + " / mariadb " + m;
            if (!lutraWaited) return "returned while the rows were locked (with the answer after the commit, by chance): " + l;
            return null;
        }
    }

    /**
     * Whether B through the router and B on the plain MariaDB wait for A's locks on {@code locked}: each is seen waiting in its
     * shard's InnoDB lock waits (the router's B on the router's partition databases, the plain one by its connection id), or has
     * ended (it did not wait). One still unfinished after {@value #SEEN_WAITING_SECONDS} s without being seen (a wait that is
     * not InnoDB's) counts as waiting, as it would have after {@value #HOLD_MILLIS} ms.
     */
    private boolean[] seenWaiting(String locked, Future<?> lutra, Future<?> mariadb, long mariadbThread) throws Exception {
        String partitions = "`" + differential.router.database + "_p", reference = "`" + differential.router.database + "_ref`.`" + locked + "`";
        boolean lutraSeen = false, mariadbSeen = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SEEN_WAITING_SECONDS);
        while (System.nanoTime() < deadline) {
            for (var w : lockWaits.now()) {
                if (w.table().startsWith(partitions) && w.table().endsWith("`.`" + locked + "`")) lutraSeen = true;
                if (w.server() == 0 && w.thread() == mariadbThread && w.table().equals(reference)) mariadbSeen = true;
            }
            if ((lutraSeen || lutra.isDone()) && (mariadbSeen || mariadb.isDone())) break;
        }
        if (!lutraSeen && !lutra.isDone() || !mariadbSeen && !mariadb.isDone()) unseenWaits.incrementAndGet();
        return new boolean[] {lutraSeen || !lutra.isDone(), mariadbSeen || !mariadb.isDone()};
    }

    /** Whether {@code f} ends within {@code seconds}. */
    private static boolean endsWithin(Future<?> f, int seconds) throws InterruptedException {
        try {
            f.get(seconds, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException stillRunning) {
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            // ended (read() turns SQL errors into answers)
        }
        return true;
    }

    /**
     * A's transaction: accounts 1 and 2 locked (and changed, if {@code change}), kept open. A deadlock with a move of the same keys (one
     * partition picked A) is retried, as an application retries one.
     */
    private static void take(Connection a, String table, boolean change) throws SQLException {
        a.setAutoCommit(false);
        for (int attempt = 1; ; attempt++) {
            try (var st = a.createStatement()) {
                st.executeQuery("SELECT * FROM " + table + " WHERE " + (table.startsWith("ledger_") ? "account" : "id") + " IN (1, 2) FOR UPDATE").close();
                if (!change) return;
                st.executeUpdate("UPDATE " + table + " SET balance = balance - 10 WHERE id = 1");
                st.executeUpdate("UPDATE " + table + " SET balance = balance + 15 WHERE id = 2");
                return;
            } catch (SQLException e) {
                a.rollback();
                if (attempt == 5 || e.getErrorCode() != 1213 && e.getErrorCode() != 1205) throw e;
            }
        }
    }

    /** The rows of {@code sql}, or "error" and its code; {@code started} counted down just before it is sent. */
    private static List<String> read(Connection c, String sql, CountDownLatch started) {
        started.countDown();
        var errors = new ArrayList<SQLException>();
        var rows = PlacementDifferentialIT.outcome(c, sql, errors::add);
        if (!errors.isEmpty()) {
            SQLException e = errors.getFirst();
            return List.of((Refusal.is(e) ? "refused " : "error ") + e.getErrorCode() + ": " + e.getMessage());
        }
        return rows;
    }

    /** Moves of the group's keys, A's among them, one after another until the reads are done; a move that gave up (1205, 1213) is tried again. */
    private Void moveNonstop(Placement p) throws SQLException {
        var random = new Random(SEED);
        try (Connection c = differential.router.connect(); var st = c.createStatement()) {
            while (moving.get()) {
                var keys = new java.util.StringJoiner(", ");
                for (int n = 1 + random.nextInt(3); n > 0; n--) keys.add(String.valueOf(1 + random.nextInt(ACCOUNTS)));
                try {
                    st.executeUpdate("ALTER TABLE " + p.table() + " SET PARTITION = p" + random.nextInt(4) + " WHERE id IN (" + keys + ")");
                    moves.incrementAndGet();
                } catch (SQLException e) {
                    if (e.getErrorCode() != 1205 && e.getErrorCode() != 1213) throw e;
                }
            }
        }
        return null;
    }
}
