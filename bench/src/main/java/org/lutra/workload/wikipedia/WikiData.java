package org.lutra.workload.wikipedia;

import org.lutra.workload.TableData;
import org.lutra.workload.Text;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The generated wiki: pages with unique titles, each with 1 or more revisions (1 + a geometric
 * number, mean 3 in all), made over time across all pages — so revision and text ids follow the
 * order of edits, not of pages, as in a real wiki — and one text per revision. Page {@code i}
 * (0-based) has {@code page_id = i + 1}.
 */
final class WikiData {
    private static final String[] WORDS = {"river", "stone", "harbor", "market", "theory", "garden", "castle", "signal", "forest", "engine",
            "island", "museum", "planet", "battle", "valley", "mirror", "poetry", "bridge", "winter", "silver", "motion", "ocean", "empire",
            "spirit", "canyon", "violin", "orbit", "meadow", "lantern", "glacier"};
    private static final long EPOCH_SECONDS = 1_200_000_000L; // 2008-01-10, the time of the public WikiBench traces

    final String[] titles;
    final int[] latestRevision;
    final int[] revisionCount;
    final int revisions;
    private final int[] revisionPage; // index rev_id - 1
    private final long seed;

    WikiData(int pages, long seed) {
        this(generatedTitles(pages, seed), seed);
    }

    /** A wiki whose pages are {@code titles} (a WikiBench trace's). */
    WikiData(String[] titles, long seed) {
        this.titles = titles;
        this.seed = seed;
        var random = new SplittableRandom(seed ^ 0x7e1a);
        int pages = titles.length;
        revisionCount = new int[pages];
        int total = 0;
        for (int p = 0; p < pages; p++) {
            int n = 1;
            while (n < 30 && random.nextDouble() < 2.0 / 3) n++; // geometric: mean 3
            revisionCount[p] = n;
            total += n;
        }
        revisions = total;
        // every edit as a page number, shuffled into time order: rev_id = position + 1
        revisionPage = new int[total];
        int at = 0;
        for (int p = 0; p < pages; p++) for (int r = 0; r < revisionCount[p]; r++) revisionPage[at++] = p;
        for (int i = total - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = revisionPage[i];
            revisionPage[i] = revisionPage[j];
            revisionPage[j] = t;
        }
        latestRevision = new int[pages];
        for (int i = 0; i < total; i++) latestRevision[revisionPage[i]] = i + 1;
    }

    int pages() {
        return titles.length;
    }

    private static String[] generatedTitles(int pages, long seed) {
        var random = new SplittableRandom(seed ^ 0x717e);
        var seen = new HashSet<String>();
        String[] out = new String[pages];
        for (int p = 0; p < pages; p++) {
            String title;
            do {
                title = capital(WORDS[random.nextInt(WORDS.length)]) + "_" + WORDS[random.nextInt(WORDS.length)]
                        + (random.nextInt(3) == 0 ? "_" + WORDS[random.nextInt(WORDS.length)] : "") + "_(" + (1 + random.nextInt(pages)) + ")";
            } while (!seen.add(title));
            out[p] = title;
        }
        return out;
    }

    private static String capital(String w) {
        return Character.toUpperCase(w.charAt(0)) + w.substring(1);
    }

    /** The text of revision {@code revId}: 200 to 1,500 letters, the same for a seed. */
    private String text(int revId) {
        var random = new SplittableRandom(seed * 31 + revId);
        return Text.letters(random, 200 + random.nextInt(1301));
    }

    /** page, revision and text rows, MediaWiki's columns (those the fetch-page transaction reads, and a few more). */
    List<TableData> tables() {
        int pages = pages();
        var textLength = new int[revisions + 1];
        var texts = new ArrayList<Object[]>(revisions);
        for (int rev = 1; rev <= revisions; rev++) {
            String body = text(rev);
            textLength[rev] = body.length();
            texts.add(new Object[] {rev, body, "utf-8"});
        }
        var pageRows = new ArrayList<Object[]>(pages);
        for (int p = 0; p < pages; p++) {
            int latest = latestRevision[p];
            pageRows.add(new Object[] {p + 1, 0, titles[p], latest, textLength[latest], 0});
        }
        var revisionRows = new ArrayList<Object[]>(revisions);
        for (int rev = 1; rev <= revisions; rev++) {
            int page = revisionPage[rev - 1];
            revisionRows.add(new Object[] {rev, page + 1, rev, "edit " + rev, 1 + (rev * 7919) % 5000, timestamp(rev), textLength[rev]});
        }
        return List.of(
                new TableData("page", List.of("page_id", "page_namespace", "page_title", "page_latest", "page_len", "page_is_redirect"), pageRows),
                new TableData("revision", List.of("rev_id", "rev_page", "rev_text_id", "rev_comment", "rev_user", "rev_timestamp", "rev_len"), revisionRows),
                new TableData("text", List.of("old_id", "old_text", "old_flags"), texts));
    }

    /** MediaWiki's 14-digit timestamps, one edit a minute from the epoch. */
    private static String timestamp(int rev) {
        var t = java.time.LocalDateTime.ofEpochSecond(EPOCH_SECONDS + 60L * rev, 0, java.time.ZoneOffset.UTC);
        return t.format(java.time.format.DateTimeFormatter.ofPattern("yyyyMMddHHmmss"));
    }

    /** The pages' titles as a set, for a check. */
    Set<String> titleSet() {
        return new HashSet<>(Arrays.asList(titles));
    }
}
