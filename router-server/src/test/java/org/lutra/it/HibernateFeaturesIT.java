package org.lutra.it;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import jakarta.persistence.CollectionTable;
import jakarta.persistence.Column;
import jakarta.persistence.ElementCollection;
import jakarta.persistence.Embeddable;
import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.JoinTable;
import jakarta.persistence.LockModeType;
import jakarta.persistence.ManyToMany;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;
import jakarta.persistence.Tuple;
import jakarta.persistence.Version;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import javax.sql.DataSource;
import java.io.Serializable;
import java.math.BigDecimal;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The Hibernate/JPA features applications use beyond {@link HibernateIT}'s CRUD: JDBC batching of
 * versioned entities (a stale entry must fail the flush), pessimistic locks with and without a lock
 * timeout, Criteria queries, native and bulk statements, collection tables, composite ids and the
 * common column types. Every piece of work runs twice, through the router and on one plain MariaDB
 * database holding the same tables (Connector/J, the dialect given): what Hibernate returns or
 * throws, and the tables' rows afterwards, must be the same.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HibernateFeaturesIT {
    static final String SCHEMA = """
            CREATE TABLE account (id BIGINT NOT NULL PRIMARY KEY, version INT NOT NULL, owner VARCHAR(50) NOT NULL,
              balance DECIMAL(12,2) NOT NULL, status VARCHAR(10) NOT NULL, tier TINYINT NOT NULL, active BOOLEAN NOT NULL,
              opened DATETIME(6), touched DATETIME(6), KEY (owner)) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE account_label (account_id BIGINT NOT NULL, label VARCHAR(30) NOT NULL, PRIMARY KEY (account_id, label))
              PARTITION BY hash(account_id) ON (p0, p1, p2, p3);
            CREATE TABLE entry (account_id BIGINT NOT NULL, seq INT NOT NULL, amount DECIMAL(12,2) NOT NULL, day DATE NOT NULL,
              PRIMARY KEY (account_id, seq)) PARTITION BY hash(account_id) ON (p0, p1, p2, p3);
            CREATE TABLE club (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(50) NOT NULL) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE account_club (account_id BIGINT NOT NULL, club_id BIGINT NOT NULL, PRIMARY KEY (account_id, club_id))
              PARTITION BY hash(account_id) ON (p0, p1, p2, p3);
            """;
    static final String[] TABLES = {"account_club", "club", "entry", "account_label", "account"};

    public enum Status { OPEN, FROZEN, CLOSED }

    public enum Tier { BASIC, SILVER, GOLD }

    @Entity(name = "Account")
    @Table(name = "account")
    public static class Account {
        @Id Long id;
        @Version int version;
        @Column(nullable = false, length = 50) String owner;
        @Column(nullable = false, precision = 12, scale = 2) BigDecimal balance;
        @Enumerated(EnumType.STRING) @Column(nullable = false, length = 10) Status status;
        @Enumerated(EnumType.ORDINAL) @Column(nullable = false) Tier tier;
        @Column(nullable = false) boolean active;
        LocalDateTime opened;
        Instant touched;
        @ElementCollection
        @CollectionTable(name = "account_label", joinColumns = @JoinColumn(name = "account_id"))
        @Column(name = "label", length = 30)
        Set<String> labels = new HashSet<>();
        @ManyToMany
        @JoinTable(name = "account_club", joinColumns = @JoinColumn(name = "account_id"), inverseJoinColumns = @JoinColumn(name = "club_id"))
        Set<Club> clubs = new HashSet<>();

        public Account() {}

        Account(long id, String owner, String balance, Status status, Tier tier, boolean active) {
            this.id = id;
            this.owner = owner;
            this.balance = new BigDecimal(balance);
            this.status = status;
            this.tier = tier;
            this.active = active;
        }
    }

    @Entity(name = "Club")
    @Table(name = "club")
    public static class Club {
        @Id Long id;
        @Column(nullable = false, length = 50) String name;

        public Club() {}
        Club(long id, String name) { this.id = id; this.name = name; }
    }

    @Embeddable
    public static class EntryId implements Serializable {
        @Column(name = "account_id") Long accountId;
        Integer seq;

        public EntryId() {}
        EntryId(long accountId, int seq) { this.accountId = accountId; this.seq = seq; }

        @Override public boolean equals(Object o) {
            return o instanceof EntryId e && Objects.equals(accountId, e.accountId) && Objects.equals(seq, e.seq);
        }
        @Override public int hashCode() { return Objects.hash(accountId, seq); }
    }

    @Entity(name = "Entry")
    @Table(name = "entry")
    public static class Entry {
        @EmbeddedId EntryId id;
        @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "account_id", insertable = false, updatable = false) Account account;
        @Column(nullable = false, precision = 12, scale = 2) BigDecimal amount;
        @Column(nullable = false) LocalDate day;

        public Entry() {}
        Entry(long accountId, int seq, String amount, LocalDate day) {
            this.id = new EntryId(accountId, seq);
            this.amount = new BigDecimal(amount);
            this.day = day;
        }
    }

    /** One database Hibernate works on: through the router, or one plain MariaDB. */
    record Side(String name, HikariDataSource pool, SessionFactory orm) implements AutoCloseable {
        void inTransaction(Consumer<EntityManager> work) {
            try (EntityManager em = orm.createEntityManager()) {
                em.getTransaction().begin();
                try {
                    work.accept(em);
                    em.getTransaction().commit();
                } catch (RuntimeException e) {
                    if (em.getTransaction().isActive()) em.getTransaction().rollback();
                    throw e;
                }
            }
        }

        @Override
        public void close() {
            orm.close();
            pool.close();
        }
    }

    Differential diff;
    Side lutra;
    Side mariadb;

    @BeforeAll
    void start(Shards shards) throws Exception {
        diff = new Differential(shards, "hibernatefeat", SCHEMA);
        PoolEvictions.clear();
        var lutraPool = pool("lutra", diff.router.url(), TestRouter.USER, TestRouter.PASSWORD);
        // no dialect through the router: Hibernate picks it from the driver's metadata
        lutra = new Side("lutra", lutraPool, sessionFactory(lutraPool, null));
        String referenceUrl = shards.url(0, diff.router.database + "_ref");
        var mariadbPool = pool("mariadb", referenceUrl, shards.user(), shards.password());
        // Connector/J reports MariaDB's "5.5.5-" version prefix, so the dialect would fall back to MariaDB 10.4 (no SKIP
        // LOCKED, ...): the reference gets the dialect of the version the server itself states, as the router's side does
        org.hibernate.dialect.DatabaseVersion version;
        try (var c = mariadbPool.getConnection(); var st = c.createStatement(); var rs = st.executeQuery("SELECT VERSION()")) {
            rs.next();
            var m = java.util.regex.Pattern.compile("^(\\d+)\\.(\\d+)\\.(\\d+)").matcher(rs.getString(1));
            assertTrue(m.find(), rs.getString(1));
            version = org.hibernate.dialect.DatabaseVersion.make(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
        }
        mariadb = new Side("mariadb", mariadbPool, sessionFactory(mariadbPool, new org.hibernate.dialect.MariaDBDialect(version)));
    }

    @AfterAll
    void stop() throws Exception {
        try {
            assertEquals(List.of(), PoolEvictions.seen(), "no connection HikariCP takes for broken");
        } finally {
            if (lutra != null) lutra.close();
            if (mariadb != null) mariadb.close();
            if (diff != null) diff.close();
        }
    }

    @BeforeEach
    void empty() throws SQLException {
        for (String t : TABLES) {
            try (var l = diff.lutra.createStatement(); var r = diff.reference.createStatement()) {
                l.execute("DELETE FROM " + t);
                r.execute("DELETE FROM " + t);
            }
        }
    }

    private static HikariDataSource pool(String name, String url, String user, String password) {
        var config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(4);
        config.setPoolName("hibernate-" + name);
        config.setExceptionOverrideClassName(PoolEvictions.class.getName());
        return new HikariDataSource(config);
    }

    private static SessionFactory sessionFactory(DataSource pool, org.hibernate.dialect.Dialect dialect) {
        var configuration = new Configuration();
        for (Class<?> entity : List.of(Account.class, Club.class, Entry.class)) configuration.addAnnotatedClass(entity);
        configuration.getProperties().put("hibernate.connection.datasource", pool);
        if (dialect != null) configuration.getProperties().put("hibernate.dialect", dialect);
        configuration.setProperty("hibernate.hbm2ddl.auto", "validate");
        configuration.setProperty("hibernate.jdbc.batch_size", "10");
        configuration.setProperty("hibernate.order_inserts", "true");
        configuration.setProperty("hibernate.order_updates", "true");
        configuration.setProperty("hibernate.generate_statistics", "true");
        configuration.setProperty("hibernate.show_sql", "false");
        return configuration.buildSessionFactory();
    }

    /** Runs {@code work} on both sides; what it returns must be the same. */
    private <T> T onBoth(Function<Side, T> work) {
        T m = work.apply(mariadb);
        T l = work.apply(lutra);
        assertEquals(m, l, "what Hibernate answered through the router / on one MariaDB");
        return l;
    }

    /** The tables' rows, read past Hibernate, are the same on both sides. */
    private void sameTables() throws SQLException {
        assertNull(diff.sameRows("account", "SELECT * FROM account ORDER BY id"));
        assertNull(diff.sameRows("account_label", "SELECT * FROM account_label ORDER BY account_id, label"));
        assertNull(diff.sameRows("entry", "SELECT * FROM entry ORDER BY account_id, seq"));
        assertNull(diff.sameRows("club", "SELECT * FROM club ORDER BY id"));
        assertNull(diff.sameRows("account_club", "SELECT * FROM account_club ORDER BY account_id, club_id"));
    }

    private static Account account(int i) {
        return new Account(i, "owner " + (i % 7), (i * 10) + ".25", Status.values()[i % 3], Tier.values()[i % 3], i % 2 == 0);
    }

    /** What an exception is, for comparing sides: its class and its causes' classes and SQL states. */
    private static String kind(Throwable e) {
        var out = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (!out.isEmpty()) out.append(" <- ");
            out.append(t instanceof SQLException ? "SQLException" : t.getClass().getSimpleName());
            // the drivers' own exception classes differ (Connector/J's MySQL... subclasses): their state and code must not
            if (t instanceof SQLException s) out.append('(').append(s.getSQLState()).append('/').append(s.getErrorCode()).append(')');
        }
        return out.toString();
    }

    private static String thrown(Runnable work) {
        try {
            work.run();
            return "nothing thrown";
        } catch (RuntimeException e) {
            return kind(e);
        }
    }

    @Test
    void bothSidesUseTheSameDialect() {
        var l = ((org.hibernate.engine.spi.SessionFactoryImplementor) lutra.orm()).getJdbcServices().getDialect();
        var m = ((org.hibernate.engine.spi.SessionFactoryImplementor) mariadb.orm()).getJdbcServices().getDialect();
        assertEquals(m.getClass(), l.getClass());
        assertEquals(m.getVersion().toString(), l.getVersion().toString(), "the SQL Hibernate writes depends on the version");
    }

    @Test
    void batchedInsertsUpdatesAndDeletesOfVersionedEntities() throws SQLException {
        onBoth(side -> {
            var stats = side.orm().getStatistics();
            stats.clear();
            side.inTransaction(em -> {
                for (int i = 1; i <= 25; i++) {
                    Account a = account(i);
                    a.labels.add("l" + i % 4);
                    a.labels.add("all");
                    em.persist(a);
                    for (int s = 1; s <= 2; s++) em.persist(new Entry(i, s, i + "." + s, LocalDate.of(2024, 1, s)));
                }
            });
            long insertStatements = stats.getPrepareStatementCount();
            assertTrue(insertStatements <= 12, side.name() + ": 125 inserts in batches of 10, " + insertStatements + " statements");
            stats.clear();
            side.inTransaction(em -> {
                var all = em.createQuery("select a from Account a order by a.id", Account.class).getResultList();
                var entries = em.createQuery("select e from Entry e", Entry.class).getResultList();
                for (Entry e : entries) {
                    if (e.id.accountId % 5 == 0) em.remove(e);
                    else if (e.id.seq == 2) e.amount = e.amount.negate();
                }
                for (Account a : all) {
                    if (a.id % 5 == 0) {
                        em.remove(a);
                    } else {
                        a.balance = a.balance.add(new BigDecimal("1.10"));
                    }
                }
            });
            long changeStatements = stats.getPrepareStatementCount() - 2;
            assertTrue(changeStatements <= 12, side.name() + ": 20 + 20 updates, 5 + 10 + 10 deletes, " + changeStatements + " statements");
            return List.of();
        });
        sameTables();
        assertEquals(List.of(List.of("20", "1", "1")), Differential.rows(diff.lutra, "SELECT COUNT(*), MIN(version), MAX(version) FROM account"),
                "every surviving account updated once");;
        assertEquals(List.of(List.of("40")), Differential.rows(diff.lutra, "SELECT COUNT(*) FROM entry"));
    }

    @Test
    void aStaleEntryInAnUpdateBatchFailsTheFlushAndRollsBackTheRest() throws SQLException {
        var outcomes = onBoth(side -> {
            side.inTransaction(em -> {
                for (int i = 1; i <= 8; i++) em.persist(account(i));
            });
            String outcome;
            try (EntityManager em = side.orm().createEntityManager()) {
                em.getTransaction().begin();
                var all = em.createQuery("select a from Account a order by a.id", Account.class).getResultList();
                // another session changes account 5 meanwhile: its version moves on
                side.inTransaction(other -> other.find(Account.class, 5L).owner = "someone else");
                for (Account a : all) a.balance = BigDecimal.ZERO;
                outcome = thrown(() -> em.getTransaction().commit());
                if (em.getTransaction().isActive()) em.getTransaction().rollback();
            }
            // a stale versioned delete as well
            String deleteOutcome;
            try (EntityManager em = side.orm().createEntityManager()) {
                em.getTransaction().begin();
                Account a = em.find(Account.class, 3L);
                Account b = em.find(Account.class, 4L);
                side.inTransaction(other -> other.find(Account.class, 4L).owner = "moved on");
                em.remove(a);
                em.remove(b);
                deleteOutcome = thrown(() -> em.getTransaction().commit());
                if (em.getTransaction().isActive()) em.getTransaction().rollback();
            }
            return List.of(outcome, deleteOutcome);
        });
        for (String o : outcomes) assertTrue(o.startsWith("OptimisticLockException <- Stale"), o);
        sameTables();
        assertEquals(List.of(List.of("8", "0")), Differential.rows(diff.lutra,
                "SELECT COUNT(*), SUM(balance = 0) FROM account"), "the stale flush changed nothing");
        var outcome = Differential.rows(diff.lutra, "SELECT owner, version FROM account WHERE id IN (4, 5) ORDER BY id");
        assertEquals(List.of(List.of("moved on", "1"), List.of("someone else", "1")), outcome);
    }

    @Test
    void staleUpdateThrowsOptimisticLockException() {
        var outcome = onBoth(side -> {
            side.inTransaction(em -> em.persist(account(1)));
            try (EntityManager em = side.orm().createEntityManager()) {
                em.getTransaction().begin();
                Account a = em.find(Account.class, 1L);
                side.inTransaction(other -> other.find(Account.class, 1L).balance = BigDecimal.ONE);
                a.balance = BigDecimal.TEN;
                String result = thrown(() -> em.getTransaction().commit());
                if (em.getTransaction().isActive()) em.getTransaction().rollback();
                return result;
            }
        });
        assertTrue(outcome.startsWith("OptimisticLockException <- Stale"), outcome);
    }

    static final String LOCK_TIMEOUT = "jakarta.persistence.lock.timeout";

    /** A row one transaction holds FOR UPDATE: NOWAIT (timeout 0) fails at once, a 1 s timeout after it, SKIP LOCKED passes it by. */
    @Test
    void pessimisticWriteWithAndWithoutLockTimeout() {
        var outcomes = onBoth(side -> {
            side.inTransaction(em -> { for (int i = 1; i <= 4; i++) em.persist(account(i)); });
            var out = new ArrayList<String>();
            try (EntityManager holder = side.orm().createEntityManager()) {
                holder.getTransaction().begin();
                out.add(holder.find(Account.class, 1L, LockModeType.PESSIMISTIC_WRITE).owner);
                long start = System.nanoTime();
                out.add("nowait: " + inOtherTransaction(side, em -> em.find(Account.class, 1L, LockModeType.PESSIMISTIC_WRITE, Map.of(LOCK_TIMEOUT, 0)).owner));
                assertTrue(System.nanoTime() - start < 900_000_000L, side.name() + ": NOWAIT did not wait");
                out.add("nowait, free row: " + inOtherTransaction(side, em -> em.find(Account.class, 2L, LockModeType.PESSIMISTIC_WRITE, Map.of(LOCK_TIMEOUT, 0)).owner));
                start = System.nanoTime();
                out.add("wait 1 s: " + inOtherTransaction(side, em -> em.find(Account.class, 1L, LockModeType.PESSIMISTIC_WRITE, Map.of(LOCK_TIMEOUT, 1000)).owner));
                long waited = System.nanoTime() - start;
                assertTrue(waited >= 900_000_000L && waited < 5_000_000_000L, side.name() + ": waited " + waited / 1_000_000 + " ms");
                out.add("skip locked: " + inOtherTransaction(side, em -> em.createQuery(
                                "select a.id from Account a where a.id in (1, 2, 3) order by a.id", Long.class)
                        .setLockMode(LockModeType.PESSIMISTIC_WRITE).setHint(LOCK_TIMEOUT, -2).getResultList().toString()));
                holder.getTransaction().commit();
            }
            // without a timeout a second locker waits for the first one's commit and then sees its change
            try (EntityManager holder = side.orm().createEntityManager();
                 var waiter = java.util.concurrent.Executors.newSingleThreadExecutor()) {
                holder.getTransaction().begin();
                Account held = holder.find(Account.class, 3L, LockModeType.PESSIMISTIC_WRITE);
                held.balance = held.balance.add(BigDecimal.ONE);
                var second = waiter.submit(() -> {
                    side.inTransaction(em -> {
                        Account a = em.find(Account.class, 3L, LockModeType.PESSIMISTIC_WRITE);
                        a.balance = a.balance.add(BigDecimal.TEN);
                    });
                    return System.nanoTime();
                });
                sleep(500);
                assertFalse(second.isDone(), side.name() + ": the second locker waits");
                long committed = System.nanoTime();
                holder.getTransaction().commit();
                assertTrue(second.get(30, java.util.concurrent.TimeUnit.SECONDS) >= committed, "the second locker ran after the commit");
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            try (EntityManager em = side.orm().createEntityManager()) {
                out.add("after both: " + em.find(Account.class, 3L).balance);
            }
            return out;
        });
        assertEquals("nowait: LockTimeoutException", outcomes.get(1).replaceAll(" <-.*", ""), outcomes.toString());
        assertEquals("nowait, free row: owner 2", outcomes.get(2));
        assertEquals("wait 1 s: LockTimeoutException", outcomes.get(3).replaceAll(" <-.*", ""), outcomes.toString());
        assertEquals("skip locked: [2, 3]", outcomes.get(4));
        assertEquals("after both: 41.25", outcomes.get(5));
    }

    private static String inOtherTransaction(Side side, Function<EntityManager, String> work) {
        try (EntityManager em = side.orm().createEntityManager()) {
            em.getTransaction().begin();
            try {
                return work.apply(em);
            } catch (RuntimeException e) {
                return kind(e);
            } finally {
                em.getTransaction().rollback();
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private void accountsWithEntries(Side side) {
        side.inTransaction(em -> {
            for (int i = 1; i <= 30; i++) {
                em.persist(account(i));
                for (int s = 1; s <= i % 4; s++) em.persist(new Entry(i, s, (i * s) + ".5", LocalDate.of(2024, 1 + s, i % 28 + 1)));
            }
        });
    }

    @Test
    void criteriaJoinGroupByHavingAndAPaginationCount() {
        var answers = onBoth(side -> {
            accountsWithEntries(side);
            var out = new ArrayList<String>();
            try (EntityManager em = side.orm().createEntityManager()) {
                var cb = em.getCriteriaBuilder();
                // owners of active accounts with more than two entries: count and sum, by owner
                var q = cb.createTupleQuery();
                var e = q.from(Entry.class);
                var a = e.join("account");
                q.multiselect(a.get("owner"), cb.count(e), cb.sum(e.<BigDecimal>get("amount")))
                        .where(cb.isTrue(a.get("active")))
                        .groupBy(a.get("owner"))
                        .having(cb.gt(cb.count(e), 2L))
                        .orderBy(cb.desc(cb.sum(e.<BigDecimal>get("amount"))), cb.asc(a.get("owner")));
                for (Tuple t : em.createQuery(q).getResultList()) out.add(t.get(0) + " " + t.get(1) + " " + t.get(2));

                // a page of OPEN or FROZEN accounts by balance, and the count a pager shows next to it
                var count = cb.createQuery(Long.class);
                var c = count.from(Account.class);
                count.select(cb.count(c)).where(c.get("status").in(Status.OPEN, Status.FROZEN));
                out.add("count " + em.createQuery(count).getSingleResult());
                var page = cb.createQuery(Account.class);
                var p = page.from(Account.class);
                page.select(p).where(p.get("status").in(Status.OPEN, Status.FROZEN)).orderBy(cb.desc(p.get("balance")), cb.asc(p.get("id")));
                for (int first = 0; first < 30; first += 7) {
                    var ids = em.createQuery(page).setFirstResult(first).setMaxResults(7).getResultList().stream().map(x -> x.id).toList();
                    out.add("page " + first + " " + ids);
                }
                // entries of accounts whose owner matches, through the join, with a composite-key predicate
                var ent = cb.createQuery(Entry.class);
                var en = ent.from(Entry.class);
                ent.select(en).where(cb.like(en.join("account").get("owner"), "owner 3%"), cb.ge(en.get("id").get("seq"), 2))
                        .orderBy(cb.asc(en.get("id").get("accountId")), cb.asc(en.get("id").get("seq")));
                out.add("entries " + em.createQuery(ent).getResultList().stream().map(x -> x.id.accountId + "/" + x.id.seq + "=" + x.amount).toList());
            }
            return out;
        });
        assertEquals("owner 2 4 98.00", answers.get(0), "the one owner with more than two entries (HAVING count(*) > ?)");
        assertEquals("count 20", answers.get(1));
        assertEquals("page 14 [9, 7, 6, 4, 3, 1]", answers.get(4));
    }

    @Test
    void nativeQueriesAndBulkJpqlStatements() throws SQLException {
        var answers = onBoth(side -> {
            accountsWithEntries(side);
            var out = new ArrayList<String>();
            side.inTransaction(em -> {
                out.add("native rows " + rowsText(em.createNativeQuery(
                        "SELECT owner, COUNT(*), SUM(balance) FROM account WHERE tier = ? GROUP BY owner ORDER BY owner").setParameter(1, 2).getResultList()));
                out.add("native entities " + em.createNativeQuery("SELECT * FROM account WHERE id IN (?1, ?2) ORDER BY id", Account.class)
                        .setParameter(1, 4L).setParameter(2, 9L).getResultList().stream().map(x -> ((Account) x).owner).toList());
                out.add("native update " + em.createNativeQuery("UPDATE account SET active = NOT active WHERE owner = ?")
                        .setParameter(1, "owner 3").executeUpdate());
                out.add("bulk update " + em.createQuery("update Account a set a.balance = a.balance * 2 where a.status = :s")
                        .setParameter("s", Status.FROZEN).executeUpdate());
                out.add("versioned bulk update " + em.createQuery("update versioned Account a set a.status = :closed where a.balance < :limit")
                        .setParameter("closed", Status.CLOSED).setParameter("limit", new BigDecimal("80")).executeUpdate());
                out.add("bulk delete " + em.createQuery("delete from Entry e where e.day < :d").setParameter("d", LocalDate.of(2024, 3, 10)).executeUpdate());
            });
            return out;
        });
        for (String count : List.of("native update 4", "bulk update 10", "versioned bulk update 5")) assertTrue(answers.contains(count), answers.toString());
        sameTables();
        assertEquals(List.of(List.of("5", "1")), Differential.rows(diff.lutra, "SELECT COUNT(*), MIN(version) FROM account WHERE status = 'CLOSED' AND version > 0"),
                "update versioned moved the versions on");

        // Hibernate's bulk deletes with a subquery (a condition on another entity, an entity with a collection table,
        // whose rows it deletes first with "where account_id in (select ...)"): the subquery runs first, the DELETE gets
        // its values; the counts and the tables as on one MariaDB
        for (var jpql : List.of("delete from Entry e where e.id.accountId in (select a.id from Account a where a.tier = :t)",
                "delete from Account a where a.tier = :t")) {
            int[] counts = new int[2];
            for (int side = 0; side < 2; side++) {
                try (EntityManager em = (side == 0 ? mariadb : lutra).orm().createEntityManager()) {
                    em.getTransaction().begin();
                    counts[side] = em.createQuery(jpql).setParameter("t", Tier.GOLD).executeUpdate();
                    em.getTransaction().commit();
                }
            }
            assertTrue(counts[0] > 0, jpql);
            assertEquals(counts[0], counts[1], jpql);
        }
        sameTables();
    }

    private static String rowsText(List<?> rows) {
        var out = new ArrayList<String>();
        for (Object row : rows) out.add(row instanceof Object[] r ? java.util.Arrays.toString(r) : String.valueOf(row));
        return out.toString();
    }

    @Test
    void collectionTablesManyToManyAndCompositeIds() throws SQLException {
        var answers = onBoth(side -> {
            var out = new ArrayList<String>();
            side.inTransaction(em -> {
                var clubs = new ArrayList<Club>();
                for (int c = 1; c <= 3; c++) {
                    var club = new Club(100 + c, "club " + c);
                    em.persist(club);
                    clubs.add(club);
                }
                for (int i = 1; i <= 12; i++) {
                    Account a = account(i);
                    for (int c = 0; c < 3; c++) if ((i + c) % 2 == 0) a.clubs.add(clubs.get(c));
                    a.labels.addAll(List.of("x" + i % 3, "y" + i % 2));
                    em.persist(a);
                    em.persist(new Entry(i, 1, i + ".01", LocalDate.of(2024, 5, i)));
                    em.persist(new Entry(i, 2, i + ".02", LocalDate.of(2024, 6, i)));
                }
            });
            side.inTransaction(em -> {
                Account a = em.find(Account.class, 6L);
                a.labels.remove("x0");
                a.labels.add("changed");
                a.clubs.removeIf(c -> c.id == 101);
                a.clubs.add(em.find(Club.class, 102L));
                Entry e = em.find(Entry.class, new EntryId(6, 2));
                e.amount = new BigDecimal("-6.02");
                em.remove(em.find(Entry.class, new EntryId(7, 1)));
                em.persist(new Entry(7, 3, "7.03", LocalDate.of(2024, 7, 7)));
            });
            try (EntityManager em = side.orm().createEntityManager()) {
                Account a = em.find(Account.class, 6L);
                out.add("labels " + new java.util.TreeSet<>(a.labels));
                out.add("clubs " + a.clubs.stream().map(c -> c.name).sorted().toList());
                out.add("members " + rowsText(em.createQuery(
                        "select c.name, count(a) from Account a join a.clubs c group by c.name order by c.name", Object[].class).getResultList()));
                out.add("labelled " + em.createQuery("select a.id from Account a join a.labels l where l = :l order by a.id", Long.class)
                        .setParameter("l", "y1").getResultList());
                out.add("entry 6/2 " + em.find(Entry.class, new EntryId(6, 2)).amount + ", 7/1 " + em.find(Entry.class, new EntryId(7, 1)));
                out.add("entries of 7 " + em.createQuery("select e.id.seq from Entry e where e.id.accountId = :a order by e.id.seq", Integer.class)
                        .setParameter("a", 7L).getResultList());
                out.add("by key list " + em.createQuery("select e.amount from Entry e where e.id in :ids order by e.amount", BigDecimal.class)
                        .setParameter("ids", List.of(new EntryId(3, 1), new EntryId(9, 2), new EntryId(11, 5))).getResultList());
            }
            return out;
        });
        assertEquals("labels [changed, y0]", answers.get(0));
        assertEquals("clubs [club 2, club 3]", answers.get(1));
        assertEquals("entries of 7 [2, 3]", answers.get(5));
        assertEquals("by key list [3.01, 9.02]", answers.get(6));
        sameTables();
    }

    @Test
    void columnTypesRoundTrip() throws SQLException {
        LocalDateTime opened = LocalDateTime.of(2024, 2, 29, 23, 59, 59, 123_456_000);
        Instant touched = Instant.parse("2024-03-31T01:30:00.654321Z");
        var answers = onBoth(side -> {
            var out = new ArrayList<String>();
            side.inTransaction(em -> {
                Account a = new Account(42, "types", "-12345.67", Status.FROZEN, Tier.GOLD, true);
                a.opened = opened;
                a.touched = touched;
                em.persist(a);
                Account b = new Account(43, "other", "0.01", Status.CLOSED, Tier.BASIC, false);
                b.opened = LocalDateTime.of(1999, 12, 31, 0, 0);
                b.touched = Instant.parse("1970-01-02T00:00:00Z");
                em.persist(b);
            });
            try (EntityManager em = side.orm().createEntityManager()) {
                Account a = em.find(Account.class, 42L);
                out.add(a.balance + " " + a.status + " " + a.tier + " " + a.active + " " + a.opened + " " + a.touched);
                Account b = em.find(Account.class, 43L);
                out.add(b.balance + " " + b.status + " " + b.tier + " " + b.active + " " + b.opened + " " + b.touched);
                out.add("matched by every column " + em.createQuery("""
                                select a.id from Account a where a.balance = :bd and a.status = :s and a.tier = :t and a.active = :b
                                and a.opened = :o and a.touched = :i""", Long.class)
                        .setParameter("bd", new BigDecimal("-12345.67")).setParameter("s", Status.FROZEN).setParameter("t", Tier.GOLD)
                        .setParameter("b", true).setParameter("o", opened).setParameter("i", touched).getResultList());
                out.add("ranges " + em.createQuery("""
                                select a.id from Account a where a.opened between :from and :to and a.touched > :after and a.active = false
                                order by a.id""", Long.class)
                        .setParameter("from", LocalDateTime.of(1999, 1, 1, 0, 0)).setParameter("to", opened)
                        .setParameter("after", Instant.EPOCH).getResultList());
            }
            return out;
        });
        assertEquals("-12345.67 FROZEN GOLD true " + opened + " " + touched, answers.get(0));
        assertEquals("0.01 CLOSED BASIC false 1999-12-31T00:00 1970-01-02T00:00:00Z", answers.get(1));
        assertEquals("matched by every column [42]", answers.get(2));
        assertEquals("ranges [43]", answers.get(3));
        sameTables();
    }

    /** The statements the ORM's features needed, with JDBC parameters, on both sides: the same rows, counts and errors. */
    @Test
    void havingParametersAndOneTableMultiTableDeletesOverJdbc() throws SQLException {
        for (int i = 1; i <= 40; i++) {
            diff.both("INSERT INTO entry (account_id, seq, amount, day) VALUES (" + i % 9 + ", " + i + ", " + (i * 3 % 17) + ".5, '2024-01-01')");
        }
        String sql = "SELECT account_id % 3 AS k, COUNT(*), SUM(amount) FROM entry WHERE seq > ? GROUP BY k"
                + " HAVING COUNT(*) > ? AND (SUM(amount) < ? OR ? IS NULL) ORDER BY k LIMIT ?, ?";
        for (Object[] p : new Object[][] {{2, 3, 200, 1, 0, 10}, {5, 1, new BigDecimal("90.5"), 1, 1, 1}, {0, 0, 1, null, 0, 5}, {0, 20, 0, null, 0, 5}}) {
            assertEquals(prepared(diff.reference, sql, p), prepared(diff.lutra, sql, p), java.util.Arrays.toString(p));
        }
        // grouped by the routing column: each group is on one partition, HAVING runs there
        String local = "SELECT account_id, COUNT(*) FROM entry GROUP BY account_id HAVING COUNT(*) >= ? ORDER BY account_id";
        assertEquals(prepared(diff.reference, local, new Object[] {5}), prepared(diff.lutra, local, new Object[] {5}));
        // a text parameter compared with a merged value, a parameter inside an aggregate: MariaDB's answer or a refusal
        for (String hard : List.of("SELECT seq % 2, COUNT(*) FROM entry GROUP BY 1 HAVING COUNT(*) > ?",
                "SELECT seq % 2, COUNT(*) FROM entry GROUP BY 1 HAVING SUM(amount * ?) > 10 ORDER BY 1")) {
            Object[] arg = {hard.contains("COUNT(*) > ?") ? "19" : 2};
            try {
                assertEquals(prepared(diff.reference, hard, arg), prepared(diff.lutra, hard, arg), hard);
            } catch (SQLException e) {
                assertTrue(org.lutra.protocol.Refusal.is(e), e.getMessage());
            }
        }
        // DELETE t FROM t (and through an alias) deletes what DELETE FROM t does; two tables stay refused
        assertNull(diff.write(diff.lutra, "DELETE e FROM entry e WHERE e.seq < 5").problem());
        assertNull(diff.write(diff.lutra, "DELETE entry FROM entry WHERE account_id = 3").problem());
        assertNull(diff.write(diff.lutra, "DELETE e FROM entry AS e WHERE amount > 10").problem());
        assertNull(diff.sameRows("entry", "SELECT * FROM entry ORDER BY account_id, seq"));
        assertTrue(diff.write(diff.lutra, "DELETE e FROM entry e JOIN account a ON a.id = e.account_id").problem().startsWith("refused"));
        assertTrue(diff.write(diff.lutra, "DELETE a FROM entry e, account a WHERE a.id = e.account_id").problem().startsWith("refused"));
    }

    private static List<List<String>> prepared(java.sql.Connection c, String sql, Object[] params) throws SQLException {
        try (var ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) ps.setObject(i + 1, params[i]);
            try (var rs = ps.executeQuery()) {
                var out = new ArrayList<List<String>>();
                while (rs.next()) {
                    var row = new ArrayList<String>();
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) row.add(rs.getString(i));
                    out.add(row);
                }
                return out;
            }
        }
    }
}
