package org.lutra.exec;

import org.lutra.backend.ShardQuery;
import org.junit.jupiter.api.Test;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.SchemaParser;
import org.lutra.catalog.TableDef;
import org.lutra.merge.SortKey;

import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.lutra.Refusals.assertRefusal;

/** Operators against {@link FakeShards}: rows in as text, rows out as text. */
class OperatorTest {
    private static final TableDef T = SchemaParser.parse("CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(8)) PARTITION BY hash(id) ON (p0, p1, p2);",
            List.of("p0", "p1", "p2")).table("t");

    private static Route broadcast() {
        return new Route(new Target(T, null), "SELECT ...", null);
    }

    private static Context ctx(FakeShards shards) {
        return new Context(List.of(), shards, new Stats(3));
    }

    @Test
    void mergeSortInterleavesSortedPartitionsNullsFirst() throws SQLException {
        var shards = new FakeShards("id:INT", "s:VARCHAR", "w:VARBINARY")
                .on(0, "1|b|0042", "4|D|0044").on(1, "\\N|x|\\N", "2|a|0041").on(2, "3|C|0043");
        var byId = new MergeSort(broadcast(), List.of(SortKey.asc(0)));
        assertEquals(List.of("\\N|x|\\N", "1|b|0042", "2|a|0041", "3|C|0043", "4|D|0044"), FakeShards.text(byId.open(ctx(shards))));
        // text by weight: 'a' < 'b' < 'C' < 'D' in a case-insensitive collation; descending
        var byText = new MergeSort(broadcast(), List.of(new SortKey(1, true, 2)));
        assertEquals(List.of("4|D|0044", "3|C|0043", "1|b|0042", "2|a|0041", "\\N|x|\\N"),
                FakeShards.text(byText.open(ctx(new FakeShards("id:INT", "s:VARCHAR", "w:VARBINARY")
                        .on(0, "4|D|0044", "1|b|0042").on(1, "2|a|0041", "\\N|x|\\N").on(2, "3|C|0043")))));
    }

    @Test
    void textWithoutWeightAndEnumsAreRefused() {
        var shards = new FakeShards("id:INT", "s:VARCHAR").on(0, "1|a").on(1, "2|b");
        var e = assertThrows(SQLException.class, () -> new MergeSort(broadcast(), List.of(SortKey.asc(1))).open(ctx(shards)));
        assertRefusal(e);
        var enums = new FakeShards("id:INT", "e:ENUM", "w:VARBINARY").on(0, "1|a|61").on(1, "2|b|62");
        assertRefusal(assertThrows(SQLException.class,
                () -> new MergeSort(broadcast(), List.of(new SortKey(1, false, 2))).open(ctx(enums))));
    }

    @Test
    void limitSkipsOffsetStopsEarlyAndClosesTheShards() throws SQLException {
        var shards = new FakeShards("id:INT").on(0, "1", "4", "7").on(1, "2", "5").on(2, "3", "6");
        var plan = new Limit(new MergeSort(broadcast(), List.of(SortKey.asc(0))), 2, 3);
        assertEquals(List.of("3", "4", "5"), FakeShards.text(plan.open(ctx(shards))));
        assertTrue(shards.closed.containsAll(List.of(0, 1, 2)), "every partition's stream is closed: " + shards.closed);
    }

    @Test
    void aggregateCombinesPartialsWithMySqlsScales() throws SQLException {
        // SUM(x) and COUNT(x) partials of AVG(DECIMAL(10,2)); COUNT(*) partials
        var shards = new FakeShards("avg:DECIMAL:2", "n:BIGINT", "c:BIGINT").on(0, "10.00|3|3").on(1, "\\N|0|2").on(2, "5.50|2|2");
        var plan = new Aggregate(broadcast(), List.of(),
                List.of(new Aggregate.Aggregation(Aggregate.Kind.AVG, 0, 1, -1), new Aggregate.Aggregation(Aggregate.Kind.COUNT, 2, -1, -1)), null);
        assertEquals(List.of("3.100000|3|7"), FakeShards.text(plan.open(ctx(shards)))); // 15.50 / 5, scale 2 + 4
        var ints = new FakeShards("avg:DECIMAL:0", "n:BIGINT").on(0, "7|2").on(1, "3|1");
        var avg = new Aggregate(broadcast(), List.of(), List.of(new Aggregate.Aggregation(Aggregate.Kind.AVG, 0, 1, -1)), null);
        assertEquals(List.of("3.3333|2"), FakeShards.text(avg.open(ctx(ints)))); // 10 / 3 at scale 0 + 4; the hidden COUNT column is left as it came
    }

    @Test
    void sumsOfDivisionsAddTheShardsDigitsBeyondTheScaleAndRoundOnce() throws SQLException {
        // SUM(-7 / 92) over 23 rows: MariaDB sums -0.076086956 (nine digits) per row to -1.749999988 and shows -1.7500; the
        // shards' partials as shown (-0.4565, -0.5326, -0.3804, -0.3804) add up to -1.7499. With the exact partials
        // (CAST(SUM(x) AS DECIMAL(65,30))) the sum rounds to MariaDB's -1.7500; the AVG of the same partials over 23 rows too.
        var shards = new FakeShards("sum:DECIMAL:4", "exact:DECIMAL:30", "n:BIGINT")
                .on(0, "-0.4565|-0.456521736|6").on(1, "-0.5326|-0.532608692|7").on(2, "-0.3804|-0.380434780|5", "-0.3804|-0.380434780|5");
        var sum = Aggregate.scalar(broadcast(), List.of(new Aggregate.Aggregation(Aggregate.Kind.SUM, 0, -1, -1, null, 1)), null, null, -1);
        assertEquals("-1.7500", FakeShards.text(sum.open(ctx(shards))).getFirst().split("\\|")[0]);
        var shown = Aggregate.scalar(broadcast(), List.of(new Aggregate.Aggregation(Aggregate.Kind.SUM, 0, -1, -1)), null, null, -1);
        assertEquals("-1.7499", FakeShards.text(shown.open(ctx(shards))).getFirst().split("\\|")[0], "as shown, the digits are lost");
        var avg = Aggregate.scalar(broadcast(), List.of(new Aggregate.Aggregation(Aggregate.Kind.AVG, 0, 2, -1, null, 1)), null, null, -1);
        assertEquals("-0.07608696", FakeShards.text(avg.open(ctx(shards))).getFirst().split("\\|")[0]); // -1.749999988 / 23 at scale 4 + 4
        // an exact partial that is not the shown one rounded (a cast clamped out of range) leaves the sum to the shown partials
        var clamped = new FakeShards("sum:DECIMAL:4", "exact:DECIMAL:30", "n:BIGINT").on(0, "-0.4565|-0.456521736|6").on(1, "-0.5326|-99999.0|7");
        assertEquals("-0.9891", FakeShards.text(sum.open(ctx(clamped))).getFirst().split("\\|")[0]);
    }

    @Test
    void groupsMergeAcrossPartitionsAndDistinctArgumentsCountOnce() throws SQLException {
        // shards group by (g, x) and sort by it; COUNT(DISTINCT x) per g, SUM of partial counts
        var shards = new FakeShards("g:INT", "x:INT", "n:BIGINT").on(0, "1|5|2", "1|6|1", "2|5|1").on(1, "1|5|4", "2|\\N|3").on(2, "2|7|1");
        var plan = new Aggregate(new MergeSort(broadcast(), List.of(SortKey.asc(0), SortKey.asc(1))), List.of(SortKey.asc(0)),
                List.of(new Aggregate.Aggregation(Aggregate.Kind.COUNT_DISTINCT, 1, -1, -1), new Aggregate.Aggregation(Aggregate.Kind.COUNT, 2, -1, -1)),
                SortKey.asc(1));
        assertEquals(List.of("1|2|7", "2|2|5"), FakeShards.text(plan.open(ctx(shards))));
    }

    @Test
    void scalarAggregateOfNothingIsOneRowGroupedIsNone() throws SQLException {
        var empty = new FakeShards("x:INT", "n:BIGINT");
        var scalar = new Aggregate(broadcast(), List.of(), List.of(new Aggregate.Aggregation(Aggregate.Kind.COUNT_DISTINCT, 0, -1, -1),
                new Aggregate.Aggregation(Aggregate.Kind.SUM, 1, -1, -1)), SortKey.asc(0));
        assertEquals(List.of("0|\\N"), FakeShards.text(scalar.open(ctx(empty))));
        var grouped = new Aggregate(broadcast(), List.of(SortKey.asc(0)), List.of(new Aggregate.Aggregation(Aggregate.Kind.SUM, 1, -1, -1)), null);
        assertEquals(List.of(), FakeShards.text(grouped.open(ctx(new FakeShards("x:INT", "n:BIGINT")))));
    }

    @Test
    void scalarAggregateOfNothingTakesTheShardsRowForNoRows() throws SQLException {
        // SELECT -71, COUNT(DISTINCT 62), COUNT(*): the shards group by the argument's column and return no row; the
        // statement over no rows answers -71, its argument (counted by no DISTINCT aggregate) and a COUNT partial of 0
        var noRows = fixed(new FakeShards("c:INT", "x:INT", "n:BIGINT").on(0, "-71|62|0"));
        var plan = Aggregate.scalar(broadcast(), List.of(new Aggregate.Aggregation(Aggregate.Kind.COUNT_DISTINCT, 1, -1, -1),
                new Aggregate.Aggregation(Aggregate.Kind.COUNT, 2, -1, -1)), SortKey.asc(1), noRows, -1);
        assertEquals(List.of("-71|0|0"), FakeShards.text(plan.open(ctx(new FakeShards("c:INT", "x:INT", "n:BIGINT")))));
        // with rows, the row for no rows is not asked for
        var rows = new FakeShards("c:INT", "x:INT", "n:BIGINT").on(0, "-71|62|3").on(2, "-71|62|1");
        assertEquals(List.of("-71|1|4"), FakeShards.text(plan.open(ctx(rows))));
    }

    @Test
    void scalarAggregateTakesItsItemsFromAPartitionWithRows() throws SQLException {
        // SELECT COALESCE(c, 5), SUM(n) ... with a partial COUNT(*): p0 and p2 match no row (their item is over NULLs)
        var shards = new FakeShards("c:INT", "s:INT", "n:BIGINT").on(0, "5|\\N|0").on(1, "-5|-5|1").on(2, "5|\\N|0");
        var plan = Aggregate.scalar(broadcast(), List.of(new Aggregate.Aggregation(Aggregate.Kind.SUM, 1, -1, -1),
                new Aggregate.Aggregation(Aggregate.Kind.COUNT, 2, -1, -1)), null, null, 2);
        assertEquals(List.of("-5|-5|1"), FakeShards.text(plan.open(ctx(shards))));
        var none = new FakeShards("c:INT", "s:INT", "n:BIGINT").on(0, "5|\\N|0").on(1, "5|\\N|0");
        assertEquals(List.of("5|\\N|0"), FakeShards.text(plan.open(ctx(none)))); // no partition matched: MySQL's own row over NULLs
    }

    @Test
    void distinctKeepsTheFirstOfEachRunOfEqualRows() throws SQLException {
        // merged by the weight of s: 'a' and 'A' weigh the same (a case-insensitive collation), NULLs are equal to each other
        var shards = new FakeShards("s:VARCHAR", "w:VARBINARY", "n:INT").on(0, "\\N|\\N|1", "a|0041|1", "b|0042|1")
                .on(1, "\\N|\\N|1", "A|0041|1").on(2, "B|0042|1", "c|0043|2");
        var keys = List.of(new SortKey(0, false, 1), SortKey.asc(2));
        var plan = new Distinct(new MergeSort(broadcast(), keys), keys);
        assertEquals(List.of("\\N|\\N|1", "a|0041|1", "b|0042|1", "c|0043|2"), FakeShards.text(plan.open(ctx(shards))));
        var unweighted = new Distinct(broadcast(), List.of(SortKey.asc(0)));
        assertRefusal(assertThrows(SQLException.class, () -> unweighted.open(ctx(shards)))); // text compared without its collation
    }

    /** An operator answering the rows {@code shards} holds for partition 0, whatever the context. */
    private static Operator fixed(FakeShards shards) {
        return new Operator() {
            @Override
            public org.lutra.merge.RowSource open(Context ctx) {
                return shards.query(List.of(new ShardQuery(0, "SELECT ...", List.of()))).getFirst();
            }

            @Override
            public String describe() {
                return "Fixed";
            }

            @Override
            public List<Operator> inputs() {
                return List.of();
            }
        };
    }

    @Test
    void minMaxCompareTextByWeightAndNumbersByValue() throws SQLException {
        var shards = new FakeShards("m:VARCHAR", "w:VARBINARY", "k:DECIMAL").on(0, "b|0042|10.5").on(1, "A|0041|9.75").on(2, "\\N|\\N|100");
        var plan = new Aggregate(broadcast(), List.of(), List.of(new Aggregate.Aggregation(Aggregate.Kind.MIN, 0, -1, 1),
                new Aggregate.Aggregation(Aggregate.Kind.MAX, 2, -1, 1)), null);
        assertEquals(List.of("A|0041|100"), FakeShards.text(plan.open(ctx(shards))));
    }

    @Test
    void routeCutsAnInListPerPartitionAndAsksOnlyThose() throws SQLException {
        var catalog = SchemaParser.parse("CREATE TABLE t (id INT PRIMARY KEY) PARTITION BY hash(id) ON (p0, p1, p2);", List.of("p0", "p1", "p2"));
        var planner = new org.lutra.plan.Planner(catalog, "db", 10);
        var bound = planner.bind("SELECT id FROM t WHERE id IN (3, 4, 6)", List.of());
        var shards = new FakeShards("id:INT").on(0, "3", "6").on(1, "4");
        var rows = FakeShards.text(((org.lutra.exec.Plan.Query) bound.plan()).root().open(new Context(bound.params(), shards, new Stats(3))));
        assertEquals(List.of("3", "6", "4"), rows);
        assertEquals(2, shards.asked.size());
        assertEquals("SELECT id FROM t WHERE id IN (?, ?)", shards.asked.getFirst().sql());
        assertInstanceOf(Partitioning.Hashed.class, catalog.table("t").partitioning());
    }
}
