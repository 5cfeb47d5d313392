package org.lutra.paper;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The comparison of answers through the router with one MariaDB's: what counts as the same answer. */
class AnswersTest {
    private static Answers of(String sql, List<String> columns, List<List<String>> rows) {
        var a = new Answers();
        a.list.add(new Answers.Answer(sql, List.of("1"), columns, rows, -1));
        return a;
    }

    private static final List<String> COLUMNS = List.of("id", "t");

    @Test
    void rowsWithoutOrderByAreAMultiset() {
        String sql = "SELECT id, t FROM x WHERE k = ?";
        var reference = of(sql, COLUMNS, List.of(List.of("1", "a"), List.of("2", "b")));
        assertEquals(List.of(), Answers.differences(of(sql, COLUMNS, List.of(List.of("2", "b"), List.of("1", "a"))), reference));
        assertEquals(1, Answers.differences(of(sql, COLUMNS, List.of(List.of("1", "a"))), reference).size());
        assertEquals(1, Answers.differences(of(sql, COLUMNS, List.of(List.of("1", "a"), List.of("1", "a"))), reference).size());
    }

    @Test
    void orderedRowsFollowTheOrderAndALimitMayCutTiesEitherWay() {
        String sql = "SELECT id, t FROM x WHERE k = ? ORDER BY t DESC LIMIT 2";
        var reference = of(sql, COLUMNS, List.of(List.of("1", "c"), List.of("2", "b")));
        assertEquals(List.of(), Answers.differences(of(sql, COLUMNS, List.of(List.of("1", "c"), List.of("3", "b"))), reference), "a tie at the cut");
        assertEquals(1, Answers.differences(of(sql, COLUMNS, List.of(List.of("2", "b"), List.of("1", "c"))), reference).size(), "out of order");
        assertEquals(1, Answers.differences(of(sql, COLUMNS, List.of(List.of("4", "c"), List.of("2", "b"))), reference).size(), "another row before the cut");
        String all = "SELECT id, t FROM x WHERE k = ? ORDER BY t DESC";
        assertEquals(1, Answers.differences(of(all, COLUMNS, List.of(List.of("1", "c"), List.of("3", "b"))), of(all, COLUMNS, reference.list.getFirst().rows())).size(),
                "without a LIMIT every row counts");
    }

    @Test
    void countsStatementsAndNumbersOfAnswersMustMatch() {
        var a = new Answers();
        a.list.add(new Answers.Answer("UPDATE x SET t = ?", List.of(), List.of(), List.of(), 1));
        var b = new Answers();
        b.list.add(new Answers.Answer("UPDATE x SET t = ?", List.of(), List.of(), List.of(), 0));
        assertEquals(1, Answers.differences(a, b).size());
        assertTrue(Answers.differences(new Answers(), b).getFirst().contains("0 answers through the router, 1"));
    }

    @Test
    void aDatetimeIsComparedByItsValueWhateverTheDriverWroteIt() {
        assertEquals("2011-03-13T07:08:00", Answers.canonical("2011-03-13 07:08:00.0"));
        assertEquals("2011-03-13T07:08:00", Answers.canonical("2011-03-13T07:08"));
        assertEquals("2011-03-13T07:15:01.12", Answers.canonical("2011-03-13 07:15:01.120"));
        assertEquals("2011-03-13T07:15:01", Answers.canonical("2011-03-13T07:15:01"));
        assertEquals("abc 2011-03-13", Answers.canonical("abc 2011-03-13"));
        assertNull(Answers.canonical(null));
    }
}
