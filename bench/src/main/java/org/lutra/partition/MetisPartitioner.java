package org.lutra.partition;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * METIS's {@code gpmetis} (Karypis and Kumar; Debian's {@code metis} package) run on the graph: the
 * graph is written in METIS's format to a temporary directory, {@code gpmetis} partitions it
 * (multilevel k-way, edge cut objective, {@code -ufactor} from the imbalance, {@code -seed}), and its
 * {@code .part.k} file is read back.
 */
public final class MetisPartitioner implements Partitioner {
    private final Path gpmetis;
    private String version = "";

    MetisPartitioner(Path gpmetis) {
        this.gpmetis = gpmetis;
    }

    /** gpmetis on the PATH (or {@code LUTRA_GPMETIS}), or null. */
    public static MetisPartitioner find() {
        String explicit = System.getenv("LUTRA_GPMETIS");
        if (explicit != null && !explicit.isBlank()) return Files.isExecutable(Path.of(explicit)) ? new MetisPartitioner(Path.of(explicit)) : null;
        String path = System.getenv("PATH");
        if (path == null) return null;
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (dir.isEmpty()) continue;
            Path candidate = Path.of(dir, "gpmetis");
            if (Files.isExecutable(candidate)) return new MetisPartitioner(candidate);
        }
        return null;
    }

    @Override
    public String description() {
        return "metis: " + gpmetis + (version.isEmpty() ? "" : " (" + version + ")") + ", multilevel k-way, edge cut objective";
    }

    @Override
    public int[] partition(Graph graph, int k, double imbalance, long seed) throws IOException {
        if (k < 1) throw new IllegalArgumentException("k must be at least 1");
        int n = graph.vertices();
        if (k == 1 || n == 0) return new int[n];
        Path dir = Files.createTempDirectory("lutra-metis");
        try {
            Path graphFile = dir.resolve("g.graph");
            write(graph, graphFile);
            // ufactor: the allowed imbalance in thousandths (30 = parts up to 1.030 × the average)
            int ufactor = Math.max(1, (int) Math.round(imbalance * 1000));
            var command = List.of(gpmetis.toString(), "-ufactor=" + ufactor, "-seed=" + (seed & 0x7fffffff), graphFile.toString(), Integer.toString(k));
            Path log = dir.resolve("gpmetis.log");
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                if (!process.waitFor(30, TimeUnit.MINUTES)) {
                    process.destroyForcibly();
                    throw new IOException("gpmetis did not finish within 30 minutes");
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted waiting for gpmetis", e);
            }
            String output = Files.readString(log);
            version = output.lines().filter(l -> l.contains("METIS")).findFirst().map(String::strip).orElse("");
            if (process.exitValue() != 0) throw new IOException("gpmetis failed (exit " + process.exitValue() + "): " + output.strip());
            return readParts(dir.resolve("g.graph.part." + k), n, k);
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        }
    }

    /** METIS's graph format: a header {@code n m 011} (vertex and edge weights), then line v: its weight and its (neighbour+1, weight) pairs. */
    static void write(Graph g, Path file) throws IOException {
        try (var out = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.US_ASCII), 1 << 20)) {
            out.write(g.vertices() + " " + g.edges() + " 011\n");
            var line = new StringBuilder();
            for (int v = 0; v < g.vertices(); v++) {
                line.setLength(0);
                line.append(g.vertexWeights[v]);
                for (int i = g.offsets[v]; i < g.offsets[v + 1]; i++) {
                    line.append(' ').append(g.adjacency[i] + 1).append(' ').append(g.edgeWeights[i]);
                }
                out.append(line).append('\n');
            }
        }
    }

    static int[] readParts(Path file, int n, int k) throws IOException {
        List<String> lines = new ArrayList<>(Files.readAllLines(file));
        lines.removeIf(String::isBlank);
        if (lines.size() != n) throw new IOException("gpmetis wrote " + lines.size() + " parts for " + n + " vertices");
        int[] part = new int[n];
        for (int v = 0; v < n; v++) {
            part[v] = Integer.parseInt(lines.get(v).strip());
            if (part[v] < 0 || part[v] >= k) throw new IOException("gpmetis wrote part " + part[v] + " for vertex " + v + " of a " + k + "-way partition");
        }
        return part;
    }
}
