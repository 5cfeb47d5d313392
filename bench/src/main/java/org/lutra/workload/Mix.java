package org.lutra.workload;

import java.util.SplittableRandom;

/** Draws the next transaction of one client. Each client has its own; used by one thread. */
public interface Mix {
    Txn next(SplittableRandom random);
}
