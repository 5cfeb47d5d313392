package org.lutra.backend;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Threads that use pooled backend connections besides the sessions' own: platform threads, never
 * virtual ones. A virtual thread's read or write switches the JDK socket under it to non-blocking
 * mode for good, and from then on every read on that pooled connection, whichever thread makes it,
 * is three system calls instead of one (see {@link BlockingSocketFactory}). Idle threads are kept
 * for a minute and reused, so a fan-out does not pay a thread start per partition.
 */
public final class BackendThreads {
    private BackendThreads() {}

    private static final ExecutorService LATER = pool("lutra-background");

    /**
     * Runs {@code work} soon on a background thread: what need not delay the client's answer
     * (committing a read-only snapshot, releasing a fence row or home-row locks).
     */
    public static void later(Runnable work) {
        LATER.execute(work);
    }

    /** A pool of daemon platform threads named {@code name-N}, as many as there are tasks at once. */
    public static ExecutorService pool(String name) {
        return Executors.newCachedThreadPool(Thread.ofPlatform().daemon().name(name + "-", 0).factory());
    }
}
