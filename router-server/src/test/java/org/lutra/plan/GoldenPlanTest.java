package org.lutra.plan;

import org.junit.jupiter.api.Test;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.SchemaParser;
import org.lutra.exec.Context;
import org.lutra.exec.Explain;
import org.lutra.exec.Stats;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Golden plans: each file under {@code src/test/resources/golden} holds statements, each followed
 * by its EXPLAIN ROUTE drawing (the operator tree and the SQL each partition gets) or its refusal,
 * cases separated by a blank line. Reviewers read plans, not code. After a deliberate change,
 * regenerate with {@code ./mvnw -pl router-server -am test -Dtest=GoldenPlanTest -Dgolden.update=true
 * -Dsurefire.failIfNoSpecifiedTests=false} and read the diff.
 */
class GoldenPlanTest {
    static final String SCHEMA = """
            CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64), city VARCHAR(20), karma DECIMAL(10,2))
              PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
            CREATE TABLE followers (source INT, destination INT, PRIMARY KEY (source, destination)) PARTITION BY lookup(source) SAME AS users;
            CREATE TABLE tweets (id BIGINT PRIMARY KEY, author INT, body VARCHAR(280), likes INT) PARTITION BY hash(id) ON (p0, p1, p2, p3);
            CREATE TABLE nums (id INT PRIMARY KEY, v INT) PARTITION BY range(id) ON (p0 < 10, p1 < 20, p2 < 30, p3);
            CREATE TABLE country (code CHAR(2) PRIMARY KEY, name VARCHAR(64)) REPLICATED;
            """;
    private static final Path DIR = Path.of("src/test/resources/golden");

    @Test
    void routing() throws IOException {
        check("routing.txt");
    }

    @Test
    void orderBy() throws IOException {
        check("orderby.txt");
    }

    @Test
    void aggregates() throws IOException {
        check("aggregates.txt");
    }

    @Test
    void joinsUnionsSubqueries() throws IOException {
        check("combined.txt");
    }

    @Test
    void tablesCopiedToOnePartition() throws IOException {
        check("fallback.txt");
    }

    @Test
    void writes() throws IOException {
        check("writes.txt");
    }

    @Test
    void refusals() throws IOException {
        check("refusals.txt");
    }

    private void check(String file) throws IOException {
        Path path = DIR.resolve(file);
        var cases = Files.readString(path, StandardCharsets.UTF_8).split("\n\n");
        var out = new StringBuilder();
        var failures = new ArrayList<String>();
        for (String c : cases) {
            if (c.isBlank()) continue;
            String sql = c.lines().findFirst().orElseThrow();
            String expected = c.strip();
            String actual = sql + "\n" + render(sql);
            out.append(actual).append("\n\n");
            if (!actual.strip().equals(expected)) failures.add("expected:\n" + expected + "\nactual:\n" + actual);
        }
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(path, out.toString().strip() + "\n", StandardCharsets.UTF_8);
            return;
        }
        assertTrue(failures.isEmpty(), file + ":\n" + String.join("\n\n", failures));
    }

    /** The plan drawn as EXPLAIN ROUTE draws it, with a fixed lookup cache: users 1..8 on p(id % 4), 9 on p3. */
    private static String render(String sql) {
        Catalog catalog = SchemaParser.parse(SCHEMA, List.of("p0", "p1", "p2", "p3"));
        var users = (Partitioning.LookedUp) catalog.table("users").partitioning();
        for (long id = 1; id <= 8; id++) users.table().put(id, (int) (id % 4));
        users.table().put(9L, 3);
        var planner = new Planner(catalog, "demo", 10);
        try {
            var bound = planner.bind(sql, List.of());
            if (!(bound.plan() instanceof org.lutra.exec.Plan plan)) return "(" + bound.plan().getClass().getSimpleName() + ")";
            var lines = new StringBuilder();
            for (var l : Explain.route(plan, Context.explain(bound.params(), new Stats(4)), catalog)) {
                lines.append(l.operator()).append(l.sql().isEmpty() ? "" : "   " + l.sql()).append('\n');
            }
            return lines.toString().stripTrailing();
        } catch (Exception e) {
            return "refused " + (e instanceof java.sql.SQLException s ? s.getSQLState() + ": " : "") + e.getMessage();
        }
    }
}
