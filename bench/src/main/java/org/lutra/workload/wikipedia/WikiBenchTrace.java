package org.lutra.workload.wikipedia;

import java.io.BufferedWriter;
import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Pattern;

/**
 * Wikipedia request traces in WikiBench's format (van Baaren, "WikiBench: a distributed, Wikipedia
 * based web application benchmark", 2009; the public traces of Urdaneta, Pierre and van Steen,
 * "Wikipedia workload analysis for decentralized hosting", 2009): one request a line,
 * {@code counter timestamp url save-flag}, e.g.
 * {@code 929840893 1190146243.326 http://en.wikipedia.org/wiki/Main_Page -}.
 *
 * <p>Read: the page views — a {@code /wiki/Title} URL with save flag {@code -} — of articles
 * (no namespace prefix such as {@code Special:} or {@code User:}); their titles URL-decoded, with
 * spaces as underscores as MediaWiki stores them. Everything else (saves, searches, images,
 * other namespaces) is counted and skipped. Titles that differ only in letter case are one page
 * (a VARCHAR column's default collation compares them equal), kept in the spelling seen first.
 */
public final class WikiBenchTrace {
    private static final Pattern VIEW = Pattern.compile("https?://[^/]+/wiki/([^?#]+)");
    /** Titles kept: letters, digits and a few punctuation marks, as the generated wiki's. */
    private static final Pattern PLAIN_TITLE = Pattern.compile("[A-Za-z0-9_()!,.'\\-]{1,200}");

    private final List<String> requests;
    private final long skipped;

    private WikiBenchTrace(List<String> requests, long skipped) {
        this.requests = requests;
        this.skipped = skipped;
    }

    public static WikiBenchTrace read(Path file) throws IOException {
        var requests = new ArrayList<String>();
        var spelling = new HashMap<String, String>();
        long skipped = 0;
        int lineNumber = 0;
        try (var in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line; (line = in.readLine()) != null; ) {
                lineNumber++;
                if (line.isBlank()) continue;
                String[] f = line.trim().split("\\s+");
                if (f.length != 4) throw new IOException(file + ":" + lineNumber + ": not a WikiBench line (counter timestamp url save-flag): " + line);
                try {
                    Long.parseLong(f[0]);
                    Double.parseDouble(f[1]);
                } catch (NumberFormatException e) {
                    throw new IOException(file + ":" + lineNumber + ": counter and timestamp must be numbers: " + line);
                }
                String title = title(f[2]);
                if (title == null || !f[3].equals("-")) {
                    skipped++;
                    continue;
                }
                requests.add(spelling.computeIfAbsent(title.toLowerCase(Locale.ROOT), k -> title));
            }
        }
        return new WikiBenchTrace(requests, skipped);
    }

    /** An article's title from a page view's URL, or null for anything else. */
    static String title(String url) {
        var m = VIEW.matcher(url);
        if (!m.matches()) return null;
        String title;
        try {
            title = URLDecoder.decode(m.group(1).replace("+", "%2B"), StandardCharsets.UTF_8).replace(' ', '_');
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (title.contains(":") || !PLAIN_TITLE.matcher(title).matches()) return null;
        return Character.toUpperCase(title.charAt(0)) + title.substring(1); // MediaWiki's first letter
    }

    /** The page views read, in order. */
    public List<String> requests() {
        return requests;
    }

    /** Lines that were not page views of plain article titles. */
    public long skipped() {
        return skipped;
    }

    /** The distinct titles in order of first request, at most {@code max}. */
    public String[] distinctTitles(int max) {
        var seen = new LinkedHashMap<String, Boolean>();
        for (String t : requests) {
            if (seen.size() >= max) break;
            seen.putIfAbsent(t, true);
        }
        return seen.keySet().toArray(new String[0]);
    }

    /** The requests for those titles only, in order. */
    public List<String> titles(int max) {
        var keep = new java.util.HashSet<>(List.of(distinctTitles(max)));
        return requests.stream().filter(keep::contains).toList();
    }

    /**
     * Writes {@code count} page views of {@code wiki}'s pages, drawn by its Zipfian popularity, one
     * every 10 ms from a 2007 timestamp: a trace for those without a real one.
     */
    public static void write(Path file, Wikipedia wiki, int count, long seed) throws IOException {
        var random = new SplittableRandom(seed);
        var mix = wiki.mix(0, 1, wiki.newRun());
        double time = 1_190_146_243.0;
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int i = 0; i < count; i++) {
                var fetch = (Wikipedia.Fetch) mix.next(random);
                out.write(String.format(Locale.ROOT, "%d %.3f http://en.wikipedia.org/wiki/%s -%n", i + 1, time,
                        URLEncoder.encode(fetch.title(), StandardCharsets.UTF_8)));
                time += 0.010;
            }
        }
    }

    /** How often each title was requested. */
    Map<String, Integer> counts() {
        var out = new HashMap<String, Integer>();
        for (String t : requests) out.merge(t, 1, Integer::sum);
        return out;
    }
}
