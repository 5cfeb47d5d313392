package org.lutra.txn;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

class WaitForGraphTest {
    private static WaitForGraph.Node router(String gtrid, long started) {
        return new WaitForGraph.Node(gtrid, started, true, null);
    }

    private static WaitForGraph.Edge waits(WaitForGraph.Node waiter, String backend, WaitForGraph.Node holder) {
        return new WaitForGraph.Edge(waiter, holder, backend);
    }

    private static List<String> victims(WaitForGraph g) {
        return g.victims().stream().map(v -> v.node().key()).toList();
    }

    @Test
    void aCycleOverTwoBackendsLosesItsYoungestTransaction() {
        var old = router("lutra:a:x:1:p0", 1_000);
        var young = router("lutra:b:y:1:p1", 2_000);
        var g = new WaitForGraph();
        g.add(waits(old, "s1", young));
        g.add(waits(young, "s0", old));
        assertEquals(List.of(young.key()), victims(g));
        assertTrue(g.victims().getFirst().component().contains("waits on s1 for"), g.victims().getFirst().component());
    }

    @Test
    void equalStartsAreOrderedByGtridSoEveryRouterPicksTheSame() {
        var a = router("lutra:a:x:1:p0", 5);
        var b = router("lutra:b:x:1:p0", 5);
        for (boolean reversed : new boolean[] {false, true}) {
            var g = new WaitForGraph();
            var edges = new ArrayList<>(List.of(waits(a, "s1", b), waits(b, "s0", a)));
            if (reversed) Collections.reverse(edges);
            edges.forEach(g::add);
            assertEquals(List.of(b.key()), victims(g));
        }
    }

    @Test
    void noCycleNoVictim() {
        var a = router("lutra:a:x:1:p0", 1);
        var b = router("lutra:a:x:2:p0", 2);
        var c = router("lutra:a:x:3:p0", 3);
        var g = new WaitForGraph();
        g.add(waits(a, "s0", b));
        g.add(waits(b, "s1", c));
        g.add(waits(a, "s1", c));
        assertEquals(List.of(), victims(g));
    }

    @Test
    void aCycleWithinOneBackendIsItsServersOwn() {
        var a = WaitForGraph.Node.ofBackend("s0", 10);
        var b = WaitForGraph.Node.ofBackend("s0", 11);
        var g = new WaitForGraph();
        g.add(waits(a, "s0", b));
        g.add(waits(b, "s0", a));
        assertEquals(List.of(), victims(g));
        // router transactions whose waits inside the cycle are all on one backend: none spans it
        var r1 = router("lutra:a:x:1:p0", 1);
        var r2 = router("lutra:a:x:2:p0", 2);
        g = new WaitForGraph();
        g.add(waits(r1, "s0", r2));
        g.add(waits(r2, "s0", r1));
        g.add(waits(r2, "s1", WaitForGraph.Node.ofBackend("s1", 5))); // a wait outside the cycle does not count
        assertEquals(List.of(), victims(g));
    }

    @Test
    void aSessionOfNoRouterIsNeverTheVictim() {
        var a = router("lutra:a:x:1:p0", 1);
        var b = router("lutra:a:x:2:p1", 2);
        var admin = WaitForGraph.Node.ofBackend("s0", 77);
        var g = new WaitForGraph();
        g.add(waits(a, "s1", b));
        g.add(waits(b, "s0", admin));
        g.add(waits(admin, "s0", a));
        assertEquals(List.of(b.key()), victims(g));
        // the administrator younger than both: still not the victim
        admin = new WaitForGraph.Node("s0#77", 99, false, null);
        g = new WaitForGraph();
        g.add(waits(a, "s1", b));
        g.add(waits(b, "s0", admin));
        g.add(waits(admin, "s0", a));
        assertEquals(List.of(b.key()), victims(g));
    }

    @Test
    void twoSeparateCyclesGetOneVictimEach() {
        var a = router("lutra:a:x:1:p0", 1);
        var b = router("lutra:a:x:2:p0", 2);
        var c = router("lutra:a:x:3:p0", 3);
        var d = router("lutra:a:x:4:p0", 4);
        var g = new WaitForGraph();
        g.add(waits(a, "s1", b));
        g.add(waits(b, "s0", a));
        g.add(waits(c, "s2", d));
        g.add(waits(d, "s3", c));
        g.add(waits(c, "s0", a)); // c waits for the first cycle too: still two components
        assertEquals(Set.of(b.key(), d.key()), new HashSet<>(victims(g)));
    }

    @Test
    void aWaitOfATransactionOnItselfIsNoEdge() {
        var a = router("lutra:a:x:1:p0", 1);
        var g = new WaitForGraph();
        g.add(waits(a, "s0", a));
        assertTrue(g.isEmpty());
    }

    /** Random graphs against a brute-force check: a victim exactly for the components that hold a cycle across backends. */
    @Test
    void randomGraphsAgreeWithABruteForceReachability() {
        var random = new Random(42);
        for (int round = 0; round < 500; round++) {
            int n = 2 + random.nextInt(7);
            var nodes = new ArrayList<WaitForGraph.Node>();
            for (int i = 0; i < n; i++) nodes.add(router("lutra:r:l:" + i + ":p0", random.nextInt(3)));
            boolean[][] reach = new boolean[n][n];
            var g = new WaitForGraph();
            var edges = new ArrayList<int[]>();
            for (int e = random.nextInt(2 * n); e > 0; e--) {
                int from = random.nextInt(n), to = random.nextInt(n), backend = random.nextInt(2);
                if (from == to) continue;
                edges.add(new int[] {from, to, backend});
                g.add(waits(nodes.get(from), "s" + backend, nodes.get(to)));
                reach[from][to] = true;
            }
            for (int k = 0; k < n; k++) for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) reach[i][j] |= reach[i][k] && reach[k][j];
            var expected = new HashSet<String>();
            var seen = new HashSet<Integer>();
            for (int i = 0; i < n; i++) {
                if (seen.contains(i) || !reach[i][i]) continue;
                var component = new ArrayList<Integer>();
                for (int j = 0; j < n; j++) if (j == i || reach[i][j] && reach[j][i]) component.add(j);
                seen.addAll(component);
                WaitForGraph.Node best = null;
                for (int j : component) {
                    var backends = new HashSet<Integer>();
                    for (int[] e : edges) {
                        if ((e[0] == j || e[1] == j) && component.contains(e[0]) && component.contains(e[1])) backends.add(e[2]);
                    }
                    var node = nodes.get(j);
                    if (backends.size() < 2) continue;
                    if (best == null || node.startedMillis() > best.startedMillis()
                            || node.startedMillis() == best.startedMillis() && node.key().compareTo(best.key()) > 0) best = node;
                }
                if (best != null) expected.add(best.key());
            }
            assertEquals(expected, new HashSet<>(victims(g)), "round " + round);
        }
    }
}
