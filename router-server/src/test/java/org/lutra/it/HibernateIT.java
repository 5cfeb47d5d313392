package org.lutra.it;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityManager;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import jakarta.persistence.TableGenerator;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.hibernate.dialect.MariaDBDialect;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.tool.schema.spi.SchemaManagementException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Hibernate ORM 6 (JPA) over the Lutra driver, unchanged: the dialect it picks from
 * DatabaseMetaData, schema validation ({@code hbm2ddl.auto=validate}) against the tables the router
 * reports, IDENTITY ids (the router's allocator through getGeneratedKeys), a TABLE generator (its
 * {@code SELECT ... FOR UPDATE} and compare-and-set UPDATE on a table of its own), CRUD, a JPQL join
 * of co-located tables with pagination, and rollbacks. Every outcome is also checked on the
 * partitions' databases directly, past the router.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HibernateIT {
    static final String SCHEMA = """
            CREATE TABLE author (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(100) NOT NULL)
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE book (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, author_id BIGINT NOT NULL, title VARCHAR(200) NOT NULL,
              pages INT NOT NULL, KEY (author_id)) PARTITION BY lookup(author_id) SAME AS author;
            CREATE TABLE tag (id BIGINT NOT NULL PRIMARY KEY, label VARCHAR(50) NOT NULL) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE id_gen (gen_name VARCHAR(255) COLLATE utf8mb4_bin NOT NULL PRIMARY KEY, gen_value BIGINT)
              PARTITION BY hash(gen_name) ON (p0, p1, p2, p3);
            CREATE TABLE ticket (id BIGINT NOT NULL PRIMARY KEY, subject VARCHAR(100) NOT NULL) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            """;
    static final int PARTITIONS = 4;

    @Entity(name = "Author")
    @Table(name = "author")
    public static class Author {
        @Id @GeneratedValue(strategy = GenerationType.IDENTITY) Long id;
        @Column(nullable = false, length = 100) String name;
        @OneToMany(mappedBy = "author") List<Book> books = new ArrayList<>();

        public Author() {}
        Author(String name) { this.name = name; }
    }

    @Entity(name = "Book")
    @Table(name = "book")
    public static class Book {
        @Id @GeneratedValue(strategy = GenerationType.IDENTITY) Long id;
        @ManyToOne(optional = false, fetch = FetchType.LAZY) @JoinColumn(name = "author_id", nullable = false) Author author;
        @Column(nullable = false, length = 200) String title;
        @Column(nullable = false) int pages;

        public Book() {}
        Book(Author author, String title, int pages) { this.author = author; this.title = title; this.pages = pages; author.books.add(this); }
    }

    @Entity(name = "Tag")
    @Table(name = "tag")
    public static class Tag {
        @Id
        @GeneratedValue(strategy = GenerationType.TABLE, generator = "tag_ids")
        @TableGenerator(name = "tag_ids", table = "id_gen", pkColumnName = "gen_name", valueColumnName = "gen_value",
                pkColumnValue = "tag", allocationSize = 5)
        Long id;
        @Column(nullable = false, length = 50) String label;

        public Tag() {}
        Tag(String label) { this.label = label; }
    }

    /** Ids from a MariaDB sequence on one partition (docs/ids-and-sequences.md), 20 at a time (the pooled optimizer). */
    @Entity(name = "Ticket")
    @Table(name = "ticket")
    public static class Ticket {
        @Id
        @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "ticket_ids")
        @SequenceGenerator(name = "ticket_ids", sequenceName = "ticket_seq", allocationSize = 20)
        Long id;
        @Column(nullable = false, length = 100) String subject;

        public Ticket() {}
        Ticket(String subject) { this.subject = subject; }
    }

    /** A sequence the database does not have: validation must refuse it. */
    @Entity(name = "Lost")
    @Table(name = "ticket")
    public static class Lost {
        @Id
        @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "lost_ids")
        @SequenceGenerator(name = "lost_ids", sequenceName = "no_such_seq", allocationSize = 20)
        Long id;
        String subject;
    }

    /** Maps onto {@code author} with a column the table does not have: validation must refuse it. */
    @Entity(name = "AuthorWithEmail")
    @Table(name = "author")
    public static class AuthorWithEmail {
        @Id Long id;
        String name;
        String email;
    }

    TestRouter router;
    HikariDataSource pool;
    SessionFactory orm;

    @BeforeAll
    void start(Shards shards) throws Exception {
        router = new TestRouter(shards, "hibernateit", SCHEMA);
        PoolEvictions.clear();
        pool = pool();
        try (var c = router.connect(); var st = c.createStatement()) {
            st.execute("CREATE SEQUENCE ticket_seq START WITH 1 INCREMENT BY 20"); // through the router, as a migration would
        }
        orm = sessionFactory(Author.class, Book.class, Tag.class, Ticket.class);
    }

    @AfterAll
    void stop() throws Exception {
        try {
            // Hibernate's use of the driver through HikariCP met nothing HikariCP takes for a broken connection
            // (the driver's SQLFeatureNotSupportedException, 0A000, or a lost connection, 08xxx)
            assertEquals(List.of(), PoolEvictions.seen());
        } finally {
            if (orm != null) orm.close();
            if (pool != null) pool.close();
            if (router != null) router.close();
        }
    }

    @BeforeEach
    void empty() throws SQLException {
        try (Connection c = router.connect(); var st = c.createStatement()) {
            st.execute("DELETE FROM book");
            st.execute("DELETE FROM author");
            st.execute("DELETE FROM tag");
        }
    }

    private HikariDataSource pool() {
        var config = new HikariConfig();
        config.setJdbcUrl(router.url());
        config.setUsername(TestRouter.USER);
        config.setPassword(TestRouter.PASSWORD);
        config.setMaximumPoolSize(4);
        config.setPoolName("hibernate-lutra");
        config.setExceptionOverrideClassName(PoolEvictions.class.getName());
        return new HikariDataSource(config);
    }

    private SessionFactory sessionFactory(Class<?>... entities) {
        var configuration = new Configuration();
        for (Class<?> entity : entities) configuration.addAnnotatedClass(entity);
        configuration.getProperties().put("hibernate.connection.datasource", pool);
        // no dialect given: Hibernate picks it from DatabaseMetaData, as for a plain MariaDB URL
        configuration.setProperty("hibernate.hbm2ddl.auto", "validate");
        configuration.setProperty("hibernate.show_sql", "false");
        return configuration.buildSessionFactory();
    }

    private void inTransaction(Consumer<EntityManager> work) {
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

    /** The partition each value of {@code keyColumn} is on, read past the router (a value on two partitions fails). */
    private Map<Long, Integer> partitionOf(String table, String keyColumn) throws SQLException {
        var at = new HashMap<Long, Integer>();
        for (int p = 0; p < PARTITIONS; p++) {
            try (Connection c = router.partition(p); var st = c.createStatement();
                 var rs = st.executeQuery("SELECT " + keyColumn + " FROM " + table)) {
                while (rs.next()) {
                    Integer before = at.put(rs.getLong(1), p);
                    assertTrue(before == null || before == p, table + " key " + rs.getLong(1) + " on two partitions");
                }
            }
        }
        return at;
    }

    private String onPartition(int p, String sql) throws SQLException {
        try (Connection c = router.partition(p); var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    private int partitionOfAuthor(long id) throws SQLException {
        Integer p = partitionOf("author", "id").get(id);
        assertNotNull(p, "author " + id + " on no partition");
        return p;
    }

    @Test
    void picksMariaDbDialectFromMetadataAndValidatesTheSchema() {
        var dialect = ((SessionFactoryImplementor) orm).getJdbcServices().getDialect();
        assertInstanceOf(MariaDBDialect.class, dialect, "the dialect Hibernate chose from the driver's metadata");
        assertEquals(11, dialect.getVersion().getMajor(), "the backends' version: " + dialect.getVersion());
        // validation reads the router's metadata for real: a column the table lacks fails it
        var e = assertThrows(SchemaManagementException.class, () -> sessionFactory(AuthorWithEmail.class).close());
        assertTrue(e.getMessage().contains("email"), e.getMessage());
    }

    @Test
    void crudWithIdentityIdsLandsWhereThePlacementSays() throws SQLException {
        var ids = new ArrayList<Long>();
        inTransaction(em -> {
            for (int i = 0; i < 8; i++) {
                var author = new Author("crud author " + i);
                em.persist(author);
                for (int b = 0; b < 3; b++) em.persist(new Book(author, "crud book " + i + "." + b, 100 + b));
                ids.add(author.id);
            }
        });
        assertEquals(8, new HashSet<>(ids).size(), "IDENTITY ids are distinct: " + ids);
        Map<Long, Integer> authorAt = partitionOf("author", "id");
        assertEquals(new HashSet<>(ids), authorAt.keySet(), "the ids Hibernate got are the rows' ids on the shards");
        assertTrue(new HashSet<>(authorAt.values()).size() > 1, "authors spread over partitions: " + authorAt);
        for (int p = 0; p < PARTITIONS; p++) {
            try (Connection c = router.partition(p); var st = c.createStatement(); var rs = st.executeQuery("SELECT author_id FROM book")) {
                while (rs.next()) assertEquals(p, authorAt.get(rs.getLong(1)), "a book lives with its author (SAME AS)");
            }
        }

        long first = ids.get(0);
        inTransaction(em -> {
            Author author = em.find(Author.class, first);
            assertEquals("crud author 0", author.name);
            assertEquals(3, author.books.size());
            author.name = "renamed";                           // dirty checking: an UPDATE at commit
            Book gone = author.books.stream().filter(b -> b.pages == 100).findFirst().orElseThrow();
            author.books.remove(gone);
            em.remove(gone);
        });
        int p = partitionOfAuthor(first);
        assertEquals("renamed", onPartition(p, "SELECT name FROM author WHERE id = " + first));
        assertEquals("2", onPartition(p, "SELECT COUNT(*) FROM book WHERE author_id = " + first));
        assertEquals("0", onPartition(p, "SELECT COUNT(*) FROM book WHERE author_id = " + first + " AND pages = 100"));

        inTransaction(em -> {
            Author author = em.find(Author.class, first);
            author.books.forEach(em::remove);
            em.remove(author);
        });
        assertFalse(partitionOf("author", "id").containsKey(first), "deleted on the shards");
        assertFalse(partitionOf("book", "author_id").containsKey(first));
        try (EntityManager em = orm.createEntityManager()) {
            assertNull(em.find(Author.class, first));
            assertEquals(7L, em.createQuery("select count(a) from Author a", Long.class).getSingleResult());
            assertEquals(21L, em.createQuery("select count(b) from Book b", Long.class).getSingleResult());
        }
    }

    @Test
    void sequenceGeneratorHandsOutDisjointIdsAcrossSessionFactories() throws SQLException {
        var ids = new ArrayList<Long>();
        inTransaction(em -> {
            for (int i = 0; i < 25; i++) {
                var ticket = new Ticket("ticket " + i);
                em.persist(ticket);
                ids.add(ticket.id);
            }
        });
        var otherIds = new ArrayList<Long>();
        try (SessionFactory other = sessionFactory(Ticket.class); EntityManager em = other.createEntityManager()) {
            em.getTransaction().begin();
            for (int i = 0; i < 7; i++) {
                var ticket = new Ticket("other " + i);
                em.persist(ticket);
                otherIds.add(ticket.id);
            }
            em.getTransaction().commit();
        }
        var all = new HashSet<>(ids);
        all.addAll(otherIds);
        assertEquals(32, all.size(), "ids unique across both instances: " + ids + " " + otherIds);
        Map<Long, Integer> at = partitionOf("ticket", "id");
        assertEquals(all, at.keySet(), "every generated id is a row on exactly one partition");
        at.forEach((id, p) -> assertEquals(Math.floorMod(id, PARTITIONS), p, "ticket " + id + " placed by hash(id)"));
        // the sequence lives on the first partition alone; its next value is past every block handed out
        assertEquals("20", onPartition(0, "SELECT increment FROM ticket_seq"));
        try (var c = router.connect(); var st = c.createStatement(); var rs = st.executeQuery("SELECT NEXTVAL(ticket_seq)")) {
            rs.next();
            long max = all.stream().mapToLong(Long::longValue).max().orElseThrow();
            assertTrue(rs.getLong(1) > max, "next block " + rs.getLong(1) + " after the ids handed out (max " + max + ")");
        }
        for (int p = 1; p < PARTITIONS; p++) {
            assertEquals("0", onPartition(p, "SELECT COUNT(*) FROM information_schema.TABLES WHERE table_schema = DATABASE() AND table_name = 'ticket_seq'"));
        }
        // validation reads information_schema.TABLES for sequences: one that is not there is missing
        var e = assertThrows(SchemaManagementException.class, () -> sessionFactory(Lost.class).close());
        assertTrue(e.getMessage().contains("no_such_seq"), e.getMessage());
    }

    @Test
    void tableGeneratorHandsOutDisjointIdsAcrossSessionFactories() throws SQLException {
        var ids = new ArrayList<Long>();
        inTransaction(em -> {
            for (int i = 0; i < 12; i++) {
                var tag = new Tag("tag " + i);
                em.persist(tag);
                ids.add(tag.id);
            }
        });
        // a second application instance with its own pooled-optimizer state draws from the same row
        var otherIds = new ArrayList<Long>();
        try (SessionFactory other = sessionFactory(Author.class, Book.class, Tag.class); EntityManager em = other.createEntityManager()) {
            em.getTransaction().begin();
            for (int i = 0; i < 7; i++) {
                var tag = new Tag("other " + i);
                em.persist(tag);
                otherIds.add(tag.id);
            }
            em.getTransaction().commit();
        }
        var all = new HashSet<>(ids);
        all.addAll(otherIds);
        assertEquals(19, all.size(), "ids unique across both instances: " + ids + " " + otherIds);
        Map<Long, Integer> tagAt = partitionOf("tag", "id");
        assertEquals(all, tagAt.keySet(), "every generated id is a row on exactly one partition");
        tagAt.forEach((id, p) -> assertEquals(Math.floorMod(id, PARTITIONS), p, "tag " + id + " placed by hash(id)"));
        // the generator's row is on the one partition its name hashes to, past every id handed out
        int holders = 0;
        for (int p = 0; p < PARTITIONS; p++) {
            String next = onPartition(p, "SELECT gen_value FROM id_gen WHERE gen_name = 'tag'");
            if (next == null) continue;
            holders++;
            long max = all.stream().mapToLong(Long::longValue).max().orElseThrow();
            assertTrue(Long.parseLong(next) > max - 5, "next value " + next + " covers the blocks handed out (max id " + max + ")");
        }
        assertEquals(1, holders, "one generator row");
    }

    @Test
    void jpqlJoinOfCoLocatedTablesWithPagination() throws SQLException {
        inTransaction(em -> {
            for (int i = 0; i < 10; i++) {
                var author = new Author(i % 3 == 0 ? "poet " + i : "novelist " + i);
                em.persist(author);
                for (int b = 0; b < 4; b++) em.persist(new Book(author, "title " + (char) ('a' + (i * 7 + b * 3) % 26) + i + b, 50 * (b + 1)));
            }
        });
        // the expected answer, computed from the shards' own rows
        record Row(String title, long id, String author) {}
        var expected = new ArrayList<Row>();
        for (int p = 0; p < PARTITIONS; p++) {
            try (Connection c = router.partition(p); var st = c.createStatement();
                 var rs = st.executeQuery("SELECT b.title, b.id, a.name FROM book b JOIN author a ON a.id = b.author_id WHERE a.name LIKE 'novelist%' AND b.pages >= 100")) {
                while (rs.next()) expected.add(new Row(rs.getString(1), rs.getLong(2), rs.getString(3)));
            }
        }
        expected.sort(Comparator.comparing(Row::title).thenComparing(Row::id));
        assertEquals(6 * 3, expected.size());

        try (EntityManager em = orm.createEntityManager()) {
            var all = new ArrayList<Row>();
            for (int first = 0; ; first += 5) {
                List<Object[]> page = em.createQuery("""
                                select b.title, b.id, a.name from Book b join b.author a
                                where a.name like :prefix and b.pages >= :pages order by b.title, b.id""", Object[].class)
                        .setParameter("prefix", "novelist%").setParameter("pages", 100)
                        .setFirstResult(first).setMaxResults(5).getResultList();
                assertTrue(page.size() <= 5);
                page.forEach(r -> all.add(new Row((String) r[0], (Long) r[1], (String) r[2])));
                if (page.size() < 5) break;
            }
            assertEquals(expected, all, "pages of the join, in order, as the shards' rows say");

            // entities through a fetch join, one author's partition
            Row any = expected.get(7);
            Author author = em.createQuery("select a from Author a join fetch a.books where a.name = :name", Author.class)
                    .setParameter("name", any.author()).getSingleResult();
            assertEquals(4, author.books.size());
            assertTrue(author.books.stream().anyMatch(b -> b.id == any.id() && b.title.equals(any.title())));
        }
    }

    @Test
    void rollbackLeavesNothingOnTheShards() throws SQLException {
        var kept = new long[1];
        inTransaction(em -> {
            var author = new Author("kept");
            em.persist(author);
            em.persist(new Book(author, "kept book", 10));
            kept[0] = author.id;
        });
        var rolledBack = new HashSet<Long>();
        try (EntityManager em = orm.createEntityManager()) {
            em.getTransaction().begin();
            for (int i = 0; i < 6; i++) {
                var author = new Author("doomed " + i);
                em.persist(author);                                   // IDENTITY: the INSERT runs now
                em.persist(new Book(author, "doomed book " + i, 1));
                rolledBack.add(author.id);
            }
            em.find(Author.class, kept[0]).name = "changed";
            em.flush();
            assertEquals(7L, em.createQuery("select count(a) from Author a", Long.class).getSingleResult(),
                    "the transaction sees its own rows");
            em.getTransaction().rollback();
        }
        Map<Long, Integer> authorAt = partitionOf("author", "id");
        assertEquals(Set.of(kept[0]), authorAt.keySet(), "no rolled-back author on any partition (" + rolledBack + ")");
        assertEquals(Set.of(kept[0]), partitionOf("book", "author_id").keySet());
        assertEquals("kept", onPartition(authorAt.get(kept[0]), "SELECT name FROM author WHERE id = " + kept[0]));
    }
}
