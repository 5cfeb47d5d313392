package org.lutra.docs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in the repository's Markdown (README.md, the other top-level *.md files,
 * docs/*.md and each module's README.md) points to a file that exists, and a link's {@code #anchor}
 * to a heading of that file, named as GitHub names it. Links into code blocks and code spans are
 * not links; absolute URLs are not checked (no network in tests).
 */
class DocLinksTest {
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");

    @Test
    void relativeLinksPointToExistingFilesAndHeadings() throws IOException {
        Path root = repositoryRoot();
        List<Path> files = markdownFiles(root);
        assertTrue(files.contains(root.resolve("README.md")), "README.md not found under " + root);
        List<String> broken = new ArrayList<>();
        Map<Path, Set<String>> anchors = new HashMap<>();
        int links = 0;
        for (Path file : files) {
            for (String target : links(Files.readString(file))) {
                if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) continue; // http:, https:, mailto:
                links++;
                int hash = target.indexOf('#');
                String path = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path resolved = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
                String where = root.relativize(file) + ": " + target;
                if (!Files.exists(resolved)) {
                    broken.add(where + " (no such file)");
                } else if (anchor != null && Files.isRegularFile(resolved) && resolved.toString().endsWith(".md")
                        && !anchors.computeIfAbsent(resolved, DocLinksTest::anchorsOf).contains(anchor)) {
                    broken.add(where + " (no such heading in " + root.relativize(resolved) + ")");
                }
            }
        }
        assertTrue(links > 0, "no relative links found: is the repository root right? " + root);
        assertTrue(broken.isEmpty(), "broken links:\n" + String.join("\n", broken));
    }

    @Test
    void slugsAreGitHubs() {
        assertTrue(slug("The hot path (`./lutra bench point`)").equals("the-hot-path-lutra-bench-point"));
        assertTrue(slug("Loading a partitioner's map").equals("loading-a-partitioners-map"));
        assertTrue(slug("Values: getters and setters").equals("values-getters-and-setters"));
        assertFalse(slug("A — B").contains("—"));
    }

    private static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("docs"))) return p;
        }
        throw new IllegalStateException("no directory with README.md and docs/ above " + Path.of("").toAbsolutePath());
    }

    private static List<Path> markdownFiles(Path root) throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> top = Files.list(root)) {
            top.filter(p -> p.toString().endsWith(".md")).forEach(files::add);
        }
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).forEach(files::add);
        }
        try (Stream<Path> modules = Files.list(root)) {
            modules.filter(Files::isDirectory).map(d -> d.resolve("README.md")).filter(Files::isRegularFile).forEach(files::add);
        }
        files.sort(null);
        return files;
    }

    /** The link targets of a Markdown text, outside fenced code blocks and code spans. */
    static List<String> links(String markdown) {
        List<String> targets = new ArrayList<>();
        boolean fenced = false;
        for (String line : markdown.split("\n", -1)) {
            if (line.stripLeading().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) continue;
            Matcher m = LINK.matcher(line.replaceAll("`[^`]*`", "``"));
            while (m.find()) targets.add(m.group(1));
        }
        return targets;
    }

    /** The anchors GitHub gives a file's headings (a repeated one gets -1, -2, ...), and explicit {@code <a id>}s. */
    private static Set<String> anchorsOf(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : text.split("\n", -1)) {
            if (line.stripLeading().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) continue;
            Matcher h = HEADING.matcher(line);
            if (h.matches()) {
                String slug = slug(h.group(1));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? slug : slug + "-" + n);
            }
            Matcher a = HTML_ANCHOR.matcher(line);
            while (a.find()) anchors.add(a.group(1));
        }
        return anchors;
    }

    /** GitHub's heading anchor: the heading's text, lower case, punctuation dropped, spaces as hyphens. */
    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)]\\([^)]*\\)", "$1").replace("`", "").replace("*", "");
        return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]", "").replace(' ', '-');
    }
}
