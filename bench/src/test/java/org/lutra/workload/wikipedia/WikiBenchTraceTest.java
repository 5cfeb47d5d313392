package org.lutra.workload.wikipedia;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WikiBenchTraceTest {
    @Test
    void readsPageViewsAndSkipsTheRest(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path file = dir.resolve("trace.txt");
        Files.writeString(file, """
                929840893 1190146243.326 http://en.wikipedia.org/wiki/Main_Page -
                929840894 1190146243.331 http://en.wikipedia.org/wiki/Special:Search?search=x -
                929840895 1190146243.342 http://en.wikipedia.org/wiki/Albert%20Einstein -
                929840896 1190146243.350 http://en.wikipedia.org/w/index.php?title=Foo&action=submit save
                929840897 1190146243.361 http://upload.wikimedia.org/wikipedia/commons/a/a9/Example.jpg -
                929840898 1190146243.370 http://en.wikipedia.org/wiki/main_Page -
                """);
        var trace = WikiBenchTrace.read(file);
        assertEquals(List.of("Main_Page", "Albert_Einstein", "Main_Page"), trace.requests());
        assertEquals(3, trace.skipped());
        assertEquals(List.of("Main_Page", "Albert_Einstein"), List.of(trace.distinctTitles(10)));
    }

    @Test
    void aMalformedLineIsRefusedWithItsNumber(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path file = dir.resolve("bad.txt");
        Files.writeString(file, "1 1190146243.326 http://en.wikipedia.org/wiki/A -\nnot a trace line\n");
        var e = assertThrows(IOException.class, () -> WikiBenchTrace.read(file));
        assertTrue(e.getMessage().contains("bad.txt:2:"), e.getMessage());
    }

    @Test
    void titlesAreMediaWikis() {
        assertEquals("Albert_Einstein", WikiBenchTrace.title("http://en.wikipedia.org/wiki/albert_Einstein"));
        assertNull(WikiBenchTrace.title("http://en.wikipedia.org/wiki/User:Someone"));
        assertNull(WikiBenchTrace.title("http://en.wikipedia.org/skins/common.css"));
    }

    @Test
    void aWrittenTraceReadsBackAsTheSameRequests(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        var wiki = new Wikipedia(0.02, 3);
        Path file = dir.resolve("generated.txt");
        WikiBenchTrace.write(file, wiki, 500, 4);
        var trace = WikiBenchTrace.read(file);
        assertEquals(500, trace.requests().size());
        assertEquals(0, trace.skipped());
        // the replayed wiki has the trace's pages, and its requests are fetches of them
        var replayed = new Wikipedia(trace, 1000, 3);
        assertEquals(500, replayed.recordedRequests().size());
    }
}
