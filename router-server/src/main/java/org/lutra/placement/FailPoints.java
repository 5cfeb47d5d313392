package org.lutra.placement;

import java.util.function.Consumer;

/**
 * Places in the commit and placement protocols where tests inject failures: a crash of the whole router
 * (system property {@code lutra.failpoint=<point>} halts the JVM there, as a kill -9 would) or
 * an in-process hook (say, killing a backend between the two phases).
 */
public final class FailPoints {
    /** Every writing branch is prepared; no decision is logged yet. */
    public static final String AFTER_PREPARE = "after-prepare";
    /** The commit decision is durable; no branch is committed yet. */
    public static final String AFTER_DECISION = "after-decision";

    /** A starting router listens; its lookup tables are not loaded yet (statements go through the home rows). */
    public static final String BEFORE_LOOKUP_LOAD = "before-lookup-load";

    /** A scan of a lookup group knows whether the group has replicated keys; it has not read its rows yet. */
    public static final String SCAN_ASKED_ABOUT_COPIES = "scan-asked-about-copies";

    /** A read through a secondary lookup has its entries' partitions; it has not read its rows yet. */
    public static final String SECONDARY_ENTRIES_READ = "secondary-entries-read";

    /**
     * A read by a UNIQUE secondary lookup's value, tried where the router guesses its row lives, has read its first row
     * there (its snapshot is taken); it has not compared move batches nor answered yet.
     */
    public static final String SECONDARY_GUESS_READ = "secondary-guess-read";

    /**
     * An UPDATE or DELETE by a UNIQUE secondary lookup's value has chosen the partition where the router guesses its row
     * lives; it has not sent the write there yet.
     */
    public static final String SECONDARY_GUESS_WRITE = "secondary-guess-write";

    /** A statement holds its keys' home rows under a shared lock ({@link HomeRows}); it has not read their rows yet. */
    public static final String HOME_ROWS_LOCKED = "home-rows-locked";

    /** A move batch holds every row lock it needs (rows read, copied and deleted); it has not taken the move fence yet. */
    public static final String MOVE_BATCH_LOCKED = "move-batch-locked";

    /** A move batch found the locking statements' fence held (NOWAIT refused) and yields: it rolls back, to be retried. */
    public static final String MOVE_FENCE_YIELDED = "move-fence-yielded";

    private static final String HALT_AT = System.getProperty("lutra.failpoint", "");
    private static volatile Consumer<String> hook = point -> {};

    private FailPoints() {}

    /** Installs an in-process hook (tests); returns a handle that removes it. */
    public static AutoCloseable install(Consumer<String> h) {
        hook = h;
        return () -> hook = point -> {};
    }

    public static void reach(String point) {
        if (HALT_AT.equals(point)) {
            System.err.println("lutra: failpoint " + point + " reached: halting");
            Runtime.getRuntime().halt(86);
        }
        hook.accept(point);
    }
}
