package org.lutra.it;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * Heap of the JVM running the router (and the driver), after GC, with the test class's router up:
 * before its first test and after its last. docs/benchmarks-router.md quotes it per attack class;
 * growth that stays after the attacks would be memory the router keeps.
 */
final class HeapReport implements BeforeEachCallback, AfterEachCallback, AfterAllCallback {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(HeapReport.class);

    @Override
    public void beforeEach(ExtensionContext context) {
        context.getParent().orElseThrow().getStore(NS).getOrComputeIfAbsent("before", k -> usedAfterGc(), Long.class);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        context.getParent().orElseThrow().getStore(NS).put("after", usedAfterGc());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Long before = context.getStore(NS).get("before", Long.class);
        Long after = context.getStore(NS).get("after", Long.class);
        if (before == null || after == null) return;
        String name = context.getRequiredTestClass().getSimpleName();
        String line = name + ": heap after GC, router up: " + mb(before) + " MB before the first test, " + mb(after) + " MB after the last";
        System.out.println(line);
        Report.write("heap-" + name + ".txt", List.of(line));
    }

    private static long usedAfterGc() {
        for (int i = 0; i < 2; i++) {
            System.gc();
            try {
                Thread.sleep(30);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static String mb(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f", bytes / 1048576.0);
    }
}
