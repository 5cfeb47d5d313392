package org.lutra.workload.twitter;

import org.apache.commons.rng.UniformRandomProvider;
import org.apache.commons.rng.sampling.distribution.AliasMethodDiscreteSampler;
import org.apache.commons.rng.sampling.distribution.SharedStateDiscreteSampler;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A follower graph with power-law degrees and community structure: a directed degree-corrected
 * stochastic block model (Karrer and Newman, "Stochastic blockmodels and community structure in
 * networks", Phys. Rev. E 83, 2011) with the parameters of the LFR benchmark graphs (Lancichinetti,
 * Fortunato and Radicchi, "Benchmark graphs for testing community detection algorithms", Phys.
 * Rev. E 78, 2008):
 * <ul>
 *   <li>community sizes from a power law of exponent {@value #TAU_COMMUNITY} from
 *       {@value #MIN_COMMUNITY} users to a tenth of the users (at most {@value #MAX_COMMUNITY});</li>
 *   <li>each user's out-degree (how many it follows) from a power law of exponent
 *       {@value #TAU_OUT} from {@value #MIN_OUT} to the largest community's size (LFR's bound: a
 *       user's follows inside its community fit in it);</li>
 *   <li>each user's popularity, a weight θ from a power law of exponent {@value #TAU_IN}: its
 *       expected in-degree (followers) is proportional to θ, so in-degrees follow that power law;</li>
 *   <li>mixing μ = {@value #MU}: each follow stays in the follower's community with probability
 *       1 − μ, else goes to another community; followees are drawn in proportion to θ.</li>
 * </ul>
 * As in LFR, a user joins a community larger than its internal degree ((1 − μ) of its out-degree).
 * Users are numbered 1..n independently of their communities, so neither ids nor their ranges say
 * who is in which community. A pure preferential-attachment graph has no such groups for a partitioner to find.
 */
public final class FollowerGraph {
    static final double TAU_COMMUNITY = 1.5;
    static final int MIN_COMMUNITY = 20;
    static final int MAX_COMMUNITY = 400;
    static final double TAU_OUT = 2.2;
    static final int MIN_OUT = 4;
    static final int MAX_OUT = 400;
    static final double TAU_IN = 2.1;
    static final double MU = 0.15;

    /** followees[u - 1]: the users u follows, sorted; followers[u - 1]: those following u, sorted. */
    final int[][] followees;
    final int[][] followers;
    final int[] community; // of user u at u - 1
    final double[] popularity;
    final int communities;

    FollowerGraph(int users, long seed) {
        var random = new SplittableRandom(seed ^ 0xf011);
        UniformRandomProvider rng = random::nextLong;
        int maxCommunity = Math.max(MIN_COMMUNITY, Math.min(MAX_COMMUNITY, users / 10));
        int maxOut = Math.max(MIN_OUT, Math.min(MAX_OUT, maxCommunity));
        int[] degree = new int[users];
        for (int i = 0; i < users; i++) degree[i] = (int) Math.min(maxOut, pareto(random, MIN_OUT, TAU_OUT));
        var sizes = new ArrayList<Integer>();
        for (int at = 0; at < users; ) {
            int size = (int) Math.min(users - at, Math.min(maxCommunity, pareto(random, MIN_COMMUNITY, TAU_COMMUNITY)));
            if (users - at - size < MIN_COMMUNITY) size = users - at; // no tiny community at the end
            sizes.add(size);
            at += size;
        }
        // LFR's rule: a user joins a community larger than its internal degree, (1 - μ) of its degree; the
        // users of largest degree choose first, each a random community with room among those large enough
        community = new int[users];
        var members = new ArrayList<int[]>();
        int[] filled = new int[sizes.size()];
        for (int size : sizes) members.add(new int[size]);
        Integer[] byDegree = new Integer[users];
        for (int i = 0; i < users; i++) byDegree[i] = i;
        Arrays.sort(byDegree, (a, b) -> Integer.compare(degree[b], degree[a]));
        for (int i : byDegree) {
            int internal = (int) Math.ceil((1 - MU) * degree[i]);
            var fits = new ArrayList<Integer>();
            int roomiest = 0;
            for (int c = 0; c < sizes.size(); c++) {
                if (filled[c] == sizes.get(c)) continue;
                if (sizes.get(c) > internal) fits.add(c);
                if (filled[roomiest] == sizes.get(roomiest) || sizes.get(c) > sizes.get(roomiest)) roomiest = c;
            }
            int c = fits.isEmpty() ? roomiest : fits.get(random.nextInt(fits.size()));
            members.get(c)[filled[c]++] = i + 1;
            community[i] = c;
        }
        communities = members.size();
        popularity = new double[users];
        for (int i = 0; i < users; i++) popularity[i] = Math.min(users, pareto(random, 1, TAU_IN));
        SharedStateDiscreteSampler everyone = AliasMethodDiscreteSampler.of(rng, popularity.clone());
        var within = new SharedStateDiscreteSampler[communities];
        for (int c = 0; c < communities; c++) {
            double[] w = new double[members.get(c).length];
            for (int i = 0; i < w.length; i++) w[i] = popularity[members.get(c)[i] - 1];
            within[c] = AliasMethodDiscreteSampler.of(rng, w);
        }
        followees = new int[users][];
        var counts = new int[users];
        for (int u = 1; u <= users; u++) {
            int c = community[u - 1];
            int size = members.get(c).length;
            // how many of its follows stay in the community is decided first (each with probability 1 - μ), then that
            // many distinct members and the rest distinct outsiders are drawn by popularity: drawing each follow's side
            // as it comes would favour outsiders, since repeated draws of a community's stars are rejected as duplicates
            int inside = 0;
            for (int k = 0; k < degree[u - 1]; k++) if (random.nextDouble() >= MU) inside++;
            inside = Math.min(inside, size - 1);
            int outside = Math.min(degree[u - 1] - inside, users - size);
            var chosen = new HashSet<Integer>();
            for (int tries = 0; chosen.size() < inside && tries < 50 * inside; tries++) {
                int v = members.get(c)[within[c].sample()];
                if (v != u) chosen.add(v);
            }
            int wanted = chosen.size() + outside;
            for (int tries = 0; chosen.size() < wanted && tries < 50 * outside; tries++) {
                int v = everyone.sample() + 1;
                if (community[v - 1] != c) chosen.add(v);
            }
            followees[u - 1] = chosen.stream().mapToInt(Integer::intValue).sorted().toArray();
            for (int v : followees[u - 1]) counts[v - 1]++;
        }
        followers = new int[users][];
        for (int v = 0; v < users; v++) followers[v] = new int[counts[v]];
        Arrays.fill(counts, 0);
        for (int u = 1; u <= users; u++) for (int v : followees[u - 1]) followers[v - 1][counts[v - 1]++] = u;
    }

    int users() {
        return followees.length;
    }

    long edges() {
        long e = 0;
        for (int[] f : followees) e += f.length;
        return e;
    }

    /** The share of follow edges within a community. */
    double withinShare() {
        long within = 0;
        for (int u = 1; u <= users(); u++) for (int v : followees[u - 1]) if (community[u - 1] == community[v - 1]) within++;
        return (double) within / Math.max(1, edges());
    }

    String describe() {
        int maxIn = Arrays.stream(followers).mapToInt(f -> f.length).max().orElse(0);
        return String.format(Locale.ROOT, "%,d users in %d communities, %,d follows (mean %.1f followees, most followers %,d, %.0f %% within a "
                + "community); directed degree-corrected SBM, LFR parameters: community sizes τ=%.1f in [%d, min(%d, users/10)], out-degree τ=%.1f from %d, "
                + "popularity τ=%.1f, μ=%.2f", users(), communities, edges(), (double) edges() / users(), maxIn, 100 * withinShare(),
                TAU_COMMUNITY, MIN_COMMUNITY, MAX_COMMUNITY, TAU_OUT, MIN_OUT, TAU_IN, MU);
    }

    /** A draw of a power law of exponent {@code tau} from {@code min} (a continuous Pareto by inversion). */
    static double pareto(SplittableRandom random, double min, double tau) {
        return min * Math.pow(1 - random.nextDouble(), -1 / (tau - 1));
    }

    /** 1..n in a random order. */
    static int[] permutation(int n, SplittableRandom random) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) p[i] = i + 1;
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    List<int[]> edgesOf(int user) {
        return List.of(followees[user - 1], followers[user - 1]);
    }
}
