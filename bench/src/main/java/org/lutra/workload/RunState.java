package org.lutra.workload;

/**
 * What one run of a workload must remember across its clients: rows the transactions added
 * (for the invariants), work they left for later transactions (TPC-E's pending trades).
 * Shared by the clients of one run; implementations are thread-safe.
 */
public interface RunState {
    RunState NONE = new RunState() {};
}
