package org.lutra.trace;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TraceFormatTest {
    @TempDir
    Path dir;

    @Test
    void theDocumentedExampleReads() throws IOException {
        Path file = write("""
                lutra-trace\t1
                # recorded by router 'router'
                @same-as\tfollows\tusers
                @same-as\ttweets\tusers

                tweets_of_followed\tp:42\tp:100\tr:users:42\tr:follows:42\tr:tweets:7\tr:tweets:19
                insert_tweet\tp:7\tp:hello world\tw:tweets:7
                -\tr:users:42\tw:users:43
                """);
        Trace trace = TraceReader.readAll(file);
        assertEquals(Map.of("follows", "users", "tweets", "users"), trace.sameAs());
        assertEquals(3, trace.transactions().size());
        var first = trace.transactions().getFirst();
        assertEquals("tweets_of_followed", first.type());
        assertEquals(List.of("42", "100"), first.params());
        assertEquals(List.of(Access.read("users", "42"), Access.read("follows", "42"), Access.read("tweets", "7"), Access.read("tweets", "19")),
                first.accesses());
        assertEquals(List.of("7", "hello world"), trace.transactions().get(1).params());
        var untyped = trace.transactions().get(2);
        assertFalse(untyped.typed());
        assertEquals(List.of(Access.read("users", "42"), Access.write("users", "43")), untyped.accesses());
    }

    /** Random lines with every character the escapes cover (and ':' in table names and keys) come back equal. */
    @Test
    void randomLinesRoundTrip() throws IOException {
        long seed = Long.getLong("lutra.trace.seed", System.nanoTime());
        var random = new Random(seed);
        var lines = new ArrayList<TraceLine>();
        for (int i = 0; i < 2000; i++) {
            var params = new ArrayList<String>();
            for (int p = random.nextInt(4); p > 0; p--) params.add(random.nextInt(8) == 0 ? null : text(random, 0));
            var accesses = new ArrayList<Access>();
            for (int a = random.nextInt(6); a > 0; a--) accesses.add(new Access(random.nextBoolean(), text(random, 1), text(random, 0)));
            lines.add(new TraceLine(random.nextInt(5) == 0 ? TraceLine.UNTYPED : "t" + random.nextInt(10), params, accesses));
        }
        Path file = dir.resolve("random.trace");
        try (var out = TraceWriter.create(file)) {
            out.comment("seed " + seed + "\nsecond line of the comment");
            out.sameAs("Fol:lows", "users");
            for (var line : lines) out.write(line);
            assertEquals(lines.size(), out.transactions());
        }
        Trace back = TraceReader.readAll(file);
        assertEquals(lines, back.transactions(), "seed " + seed + " (-Dlutra.trace.seed= repeats it)");
        assertEquals(Map.of("fol:lows", "users"), back.sameAs());
        // one line of text per transaction, whatever the values hold
        long lineCount = Files.readAllLines(file).stream().filter(l -> !l.startsWith("#") && !l.startsWith("@")).count();
        assertEquals(lines.size() + 1, lineCount);
    }

    private static String text(Random random, int minLength) {
        String alphabet = "ab:\\\t\n\r 7é漢#,\"p:r:w:";
        var sb = new StringBuilder();
        for (int n = minLength + random.nextInt(8); n > 0; n--) sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        return sb.toString();
    }

    @Test
    void valuesAreEscapedAndKeysStayGreppable() throws IOException {
        var out = new StringWriter();
        try (var writer = new TraceWriter(out)) {
            writer.write(new TraceLine("x", Arrays.asList(null, "\\N", "a\tb"), List.of(Access.write("a:b", "k:1\\"))));
        }
        assertEquals("lutra-trace\t1\nx\tp:\\N\tp:\\\\N\tp:a\\tb\tw:a\\:b:k:1\\\\\n", out.toString());
        Path file = write(out.toString());
        var line = TraceReader.readAll(file).transactions().getFirst();
        assertNull(line.params().get(0));
        assertEquals("\\N", line.params().get(1));
        assertEquals(Access.write("a:b", "k:1\\"), line.accesses().getFirst());
    }

    @Test
    void aMalformedLineIsRejectedWithItsNumberAndNothingIsReturned() throws IOException {
        String good = "lutra-trace\t1\n# c\n@same-as\tfollows\tusers\nt\tp:1\tr:users:1\n\n";
        Object[][] cases = {
                {"t\tx:1\n", 6, "unknown field 'x:1'"},
                {"t\tr:users:1\tp:2\n", 6, "after an access"},
                {"t\tr:users\n", 6, "no ':' between table and key"},
                {"t\tr::1\n", 6, "no table name"},
                {"t y\tr:users:1\n", 6, "not a transaction type"},
                {"t\tr:users:a\\qb\n", 6, "unknown escape"},
                {"t\tp:abc\\\n", 6, "lone backslash"},
                {"@same-as\tposts\tusers\n", 6, "after a transaction"},
                {"@include\tother\n", 6, "unknown directive"},
                {"t\tr:users:1\n\n\nt\tw:users\n", 9, "no ':'"},
        };
        for (Object[] c : cases) {
            Path file = write(good + c[0]);
            var e = assertThrows(TraceFormatException.class, () -> TraceReader.readAll(file), (String) c[0]);
            assertEquals(((Integer) c[1]).longValue(), e.line(), e.getMessage());
            assertTrue(e.getMessage().startsWith(file + ":" + c[1] + ": "), e.getMessage());
            assertTrue(e.getMessage().contains((String) c[2]), e.getMessage());
        }
    }

    @Test
    void theHeaderIsChecked() throws IOException {
        assertTrue(assertThrows(TraceFormatException.class, () -> TraceReader.readAll(write(""))).getMessage().contains("empty file"));
        assertTrue(assertThrows(TraceFormatException.class, () -> TraceReader.readAll(write("t\tr:users:1\n"))).getMessage()
                .contains(":1: not a trace"));
        assertTrue(assertThrows(TraceFormatException.class, () -> TraceReader.readAll(write("lutra-trace\t2\n"))).getMessage()
                .contains("version '2' is not known"));
        var conflicting = write("lutra-trace\t1\n@same-as\tfollows\tusers\n@same-as\tFOLLOWS\tpages\n");
        assertTrue(assertThrows(TraceFormatException.class, () -> TraceReader.readAll(conflicting)).getMessage().contains(":3: table follows is SAME AS users"));
    }

    @Test
    void bytesThatAreNotUtf8AreALineError() throws IOException {
        Path file = dir.resolve("binary.trace");
        byte[] head = "lutra-trace\t1\nt\tr:users:1\nt\tr:users:".getBytes(StandardCharsets.UTF_8);
        byte[] junk = {(byte) 0xff, (byte) 0xfe, '\n'};
        byte[] all = Arrays.copyOf(head, head.length + junk.length);
        System.arraycopy(junk, 0, all, head.length, junk.length);
        Files.write(file, all);
        var e = assertThrows(TraceFormatException.class, () -> TraceReader.readAll(file));
        assertTrue(e.getMessage().contains("not UTF-8"), e.getMessage());
    }

    @Test
    void theWriterNeverOverwritesAFile() throws IOException {
        Path file = write("keep me");
        assertThrows(java.nio.file.FileAlreadyExistsException.class, () -> TraceWriter.create(file));
        assertEquals("keep me", Files.readString(file));
    }

    @Test
    void sameAsComesFirstInTheWriterToo() throws IOException {
        try (var writer = new TraceWriter(new StringWriter())) {
            writer.write(TraceLine.untyped(List.of(Access.read("users", "1"))));
            assertThrows(IllegalStateException.class, () -> writer.sameAs("follows", "users"));
        }
        assertThrows(IllegalArgumentException.class, () -> new TraceLine("has space", List.of(), List.of()));
    }

    private Path write(String text) throws IOException {
        Path file = Files.createTempFile(dir, "t", ".trace");
        Files.writeString(file, text);
        return file;
    }
}
