package org.lutra.workload.twitter;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FollowerGraphTest {
    private final FollowerGraph graph = new FollowerGraph(5000, 11);

    @Test
    void theSameSeedGivesTheSameGraph() {
        var again = new FollowerGraph(5000, 11);
        for (int u = 0; u < 5000; u++) assertArrayEquals(graph.followees[u], again.followees[u]);
    }

    @Test
    void followsAndFollowersAreTheSameEdges() {
        long in = Arrays.stream(graph.followers).mapToLong(f -> f.length).sum();
        assertEquals(graph.edges(), in);
        for (int u = 1; u <= graph.users(); u++) {
            for (int v : graph.followees[u - 1]) {
                assertTrue(v != u, "no one follows themselves");
                assertTrue(Arrays.binarySearch(graph.followers[v - 1], u) >= 0, u + " follows " + v);
            }
        }
    }

    @Test
    void degreesAreHeavyTailed() {
        double meanIn = (double) graph.edges() / graph.users();
        int maxIn = Arrays.stream(graph.followers).mapToInt(f -> f.length).max().orElse(0);
        int minOut = Arrays.stream(graph.followees).mapToInt(f -> f.length).min().orElse(0);
        assertTrue(maxIn > 20 * meanIn, "the most followed user has " + maxIn + " followers, the mean is " + meanIn);
        assertTrue(minOut >= FollowerGraph.MIN_OUT - 1, "everyone follows a few: " + minOut);
        // a power law: far more users with few followers than with many
        long few = Arrays.stream(graph.followers).filter(f -> f.length <= meanIn).count();
        assertTrue(few > graph.users() / 2, few + " of " + graph.users() + " users have at most the mean in-degree");
    }

    @Test
    void mostFollowsStayInTheirCommunity() {
        // each follow stays inside the community with probability 1 - MU
        double within = graph.withinShare();
        assertTrue(within > 1 - FollowerGraph.MU - 0.05 && within < 1 - FollowerGraph.MU + 0.05, "within-community share " + within);
        assertTrue(graph.communities > 5, graph.communities + " communities");
    }
}
