package org.lutra.txn;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Who waits for whom across the backends: an edge T1 → T2 when a branch of T1 waits on some backend for a lock a branch of T2
 * holds (or asked for first) there. A node is a router's transaction that spans backends, named by its XA gtrid (one node for
 * all of its branches: that is what makes a cycle across shards visible), or a transaction of one backend alone — a
 * router transaction on one partition, an auto-commit statement, an administrator's session — named {@code backend#trx_id}.
 *
 * <p>A cycle lies inside a strongly connected component. Each component of two nodes or more gets one victim, by a rule every
 * router applies alike to the same component, so that two routers seeing the same cycle pick the same victim and only its own
 * router rolls it back: among the component's router transactions that have waits on two backends or more within it (every
 * cycle across shards holds one; a transaction of one backend is no router's to name), the youngest — the latest start, then
 * the greatest gtrid. A cycle within one backend is its server's own to break (InnoDB already does).
 */
final class WaitForGraph {
    /**
     * A transaction in the graph. {@code spanning}: a router's transaction known by its gtrid (this router's own, or one another
     * router published); {@code local}: this router's own, or null.
     */
    record Node(String key, long startedMillis, boolean spanning, TransactionState local) {
        static Node ofBackend(String backend, long trxId) {
            return new Node(backend + "#" + trxId, 0, false, null);
        }
    }

    /** {@code waiter} waits on {@code backend} for a lock {@code holder} holds there. */
    record Edge(Node waiter, Node holder, String backend) {}

    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final Map<String, List<Edge>> out = new HashMap<>();

    void add(Edge e) {
        if (e.waiter().key().equals(e.holder().key())) return; // two branches of one transaction on one server: its server's to see
        nodes.putIfAbsent(e.waiter().key(), e.waiter());
        nodes.putIfAbsent(e.holder().key(), e.holder());
        out.computeIfAbsent(e.waiter().key(), k -> new ArrayList<>()).add(e);
    }

    boolean isEmpty() {
        return out.isEmpty();
    }

    /** A cycle's victim, and the cycle's component as it reads in a log line. */
    record Victim(Node node, String component) {}

    /** One victim per component of two nodes or more that holds a router transaction with waits on two backends. */
    List<Victim> victims() {
        var victims = new ArrayList<Victim>();
        for (Set<String> component : components()) {
            if (component.size() < 2) continue;
            var backendsOf = new HashMap<String, Set<String>>();
            var inside = new ArrayList<Edge>();
            for (String k : component) {
                for (Edge e : out.getOrDefault(k, List.of())) {
                    if (!component.contains(e.holder().key())) continue;
                    inside.add(e);
                    backendsOf.computeIfAbsent(e.waiter().key(), x -> new HashSet<>()).add(e.backend());
                    backendsOf.computeIfAbsent(e.holder().key(), x -> new HashSet<>()).add(e.backend());
                }
            }
            component.stream().map(nodes::get)
                    .filter(n -> n.spanning() && backendsOf.getOrDefault(n.key(), Set.of()).size() >= 2)
                    .max(Comparator.comparingLong(Node::startedMillis).thenComparing(Node::key))
                    .ifPresent(v -> victims.add(new Victim(v, describe(inside))));
        }
        return victims;
    }

    private static String describe(List<Edge> edges) {
        var parts = new ArrayList<String>();
        for (Edge e : edges) parts.add(e.waiter().key() + " waits on " + e.backend() + " for " + e.holder().key());
        return String.join(", ", parts);
    }

    /** Tarjan's strongly connected components, iterative (a graph of many waits must not overflow the stack). */
    private List<Set<String>> components() {
        var index = new HashMap<String, Integer>();
        var low = new HashMap<String, Integer>();
        var onStack = new HashSet<String>();
        var stack = new ArrayDeque<String>();
        var result = new ArrayList<Set<String>>();
        int next = 0;
        for (String root : nodes.keySet()) {
            if (index.containsKey(root)) continue;
            Deque<Object[]> work = new ArrayDeque<>(); // {node, position in its edge list}
            work.push(new Object[] {root, 0});
            index.put(root, next);
            low.put(root, next++);
            stack.push(root);
            onStack.add(root);
            while (!work.isEmpty()) {
                Object[] frame = work.peek();
                String v = (String) frame[0];
                List<Edge> edges = out.getOrDefault(v, List.of());
                int i = (Integer) frame[1];
                if (i < edges.size()) {
                    frame[1] = i + 1;
                    String w = edges.get(i).holder().key();
                    if (!index.containsKey(w)) {
                        index.put(w, next);
                        low.put(w, next++);
                        stack.push(w);
                        onStack.add(w);
                        work.push(new Object[] {w, 0});
                    } else if (onStack.contains(w)) {
                        low.put(v, Math.min(low.get(v), index.get(w)));
                    }
                    continue;
                }
                work.pop();
                if (!work.isEmpty()) {
                    String parent = (String) work.peek()[0];
                    low.put(parent, Math.min(low.get(parent), low.get(v)));
                }
                if (low.get(v).equals(index.get(v))) {
                    var component = new HashSet<String>();
                    String w;
                    do {
                        w = stack.pop();
                        onStack.remove(w);
                        component.add(w);
                    } while (!w.equals(v));
                    result.add(component);
                }
            }
        }
        return result;
    }
}
