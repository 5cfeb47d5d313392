package org.lutra.lookup.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Summarizes repeated JMH runs ({@code bench.sh rounds}): each round is one JMH invocation that
 * measured every kind once, with {@code raw} among them. Prints per kind the median score over
 * rounds and the median of the per-round ratios to {@code raw}: on a shared machine whose load
 * drifts over minutes, a ratio taken within one round is steadier than scores compared across rounds.
 *
 * <pre>java -cp ... org.lutra.lookup.bench.Rounds round-1.csv round-2.csv ...</pre>
 */
public final class Rounds {
    public static void main(String[] args) throws IOException {
        Map<String, List<Double>> scores = new LinkedHashMap<>();
        Map<String, List<Double>> ratios = new LinkedHashMap<>();
        for (String file : args) {
            Map<String, Double> round = new LinkedHashMap<>();
            List<String> lines = Files.readAllLines(Path.of(file));
            List<String> header = fields(lines.getFirst());
            int score = header.indexOf("Score");
            int kind = header.indexOf("Param: kind");
            for (String line : lines.subList(1, lines.size())) {
                List<String> f = fields(line);
                round.put(f.get(kind), Double.parseDouble(f.get(score)));
            }
            Double raw = round.get("raw");
            round.forEach((k, v) -> {
                scores.computeIfAbsent(k, x -> new ArrayList<>()).add(v);
                if (raw != null) {
                    ratios.computeIfAbsent(k, x -> new ArrayList<>()).add(v / raw);
                }
            });
        }
        System.out.printf("%-12s %8s %14s %14s %12s%n", "kind", "rounds", "median M/s", "min..max M/s", "x raw (med)");
        scores.forEach((k, v) -> System.out.printf("%-12s %8d %14.1f %6.1f..%-7.1f %12s%n", k, v.size(), median(v) / 1e6,
                v.stream().mapToDouble(d -> d).min().orElse(0) / 1e6, v.stream().mapToDouble(d -> d).max().orElse(0) / 1e6,
                ratios.containsKey(k) ? String.format("%.2f", median(ratios.get(k))) : "-"));
    }

    private static double median(List<Double> values) {
        var sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static List<String> fields(String csvLine) {
        var out = new ArrayList<String>();
        for (String f : csvLine.split(",", -1)) {
            out.add(f.replace("\"", "").trim());
        }
        return out;
    }
}
