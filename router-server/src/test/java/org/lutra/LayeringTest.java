package org.lutra;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lutra.server.RouterServer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The router's packages depend on each other one way only, top to bottom (docs/architecture.md,
 * "Modules and packages"): a class may use classes of its own package and of packages below it.
 * Read from the compiled classes (ArchUnit), so imports used only by comments do not count and
 * fully qualified names in code do.
 * No dependency runs upward, so there is no cycle between packages.
 */
class LayeringTest {
    /** Top to bottom. {@code server.mysql} is part of {@code server}. */
    static final List<String> LAYERS = List.of(
            "ops",       // the HTTP listener, metrics, console: reads the running router
            "server",    // listeners, sessions, TransactionWorker, session commands
            "ddl",       // DDL through the router, the stored catalog and its lease
            "maintain",  // lookup tables at start, the change log, moves
            "txn",       // TransactionState, two-phase commit, recovery
            "plan",      // parse, decide partitions, rewrite, choose by cost: builds operator trees
            "exec",      // the plan and its operators, the Executor, EXPLAIN, SHOW WARNINGS' rows, the router's foreign keys
            "placement", // the placement protocol: the validation protocol and the home rows, placement rows, the move fence, replica scans, secondary entries, the Shards interface and a statement's scans under the fence
            "backend",   // the backends: pools, a statement's connections, the driver's settings and codecs, deadlines, the backend watch
            "sql",       // SQL text both planning and execution read: templates, key matches, guards, locking clauses
            "merge",     // row streams, expressions, sort keys
            "config",    // the YAML
            "catalog",   // tables and their placement
            "trace",     // the trace format
            "log");      // client text made safe for a log line

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        // the router module's own classes only (other modules' org.lutra packages are not layers of it)
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importUrl(RouterServer.class.getProtectionDomain().getCodeSource().getLocation());
    }

    /** The layer of a class of the router's packages, or null for anything else (JDK, libraries, other modules). */
    static String layer(JavaClass c) {
        String name = c.getPackageName();
        if (!name.startsWith("org.lutra.")) return null;
        String top = name.substring("org.lutra.".length()).split("\\.")[0];
        return LAYERS.contains(top) ? top : null;
    }

    /** Package edge "from → to" to the class dependencies that make it. */
    static Map<String, Set<String>> edges() {
        Map<String, Set<String>> edges = new TreeMap<>();
        for (JavaClass c : classes) {
            String from = layer(c);
            if (from == null) continue;
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String to = layer(d.getTargetClass());
                if (to == null || to.equals(from)) continue;
                edges.computeIfAbsent(from + " → " + to, k -> new TreeSet<>())
                        .add(d.getOriginClass().getName().substring("org.lutra.".length()) + " → " + d.getTargetClass().getName().substring("org.lutra.".length()));
            }
        }
        return edges;
    }

    static boolean upward(String edge) {
        String[] ends = edge.split(" → ");
        return LAYERS.indexOf(ends[0]) > LAYERS.indexOf(ends[1]);
    }

    @Test
    void everyPackageHasALayer() {
        Set<String> unplaced = new TreeSet<>();
        for (JavaClass c : classes) {
            String name = c.getPackageName();
            if (name.startsWith("org.lutra.") && layer(c) == null) unplaced.add(name);
        }
        assertTrue(unplaced.isEmpty(), () -> "packages without a layer (add them to LAYERS and docs/architecture.md): " + unplaced);
    }

    @Test
    void dependenciesPointDown() {
        List<String> problems = new ArrayList<>();
        edges().forEach((edge, why) -> {
            if (upward(edge)) problems.add("upward dependency " + edge + ":\n      " + String.join("\n      ", why));
        });
        assertEquals(List.of(), problems, () -> String.join("\n", problems));
    }
}
