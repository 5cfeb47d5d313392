package org.lutra.exec;

import org.lutra.backend.Backends;
import org.lutra.backend.Connections;
import org.lutra.backend.FanOut;
import org.lutra.placement.Shards;
import org.lutra.placement.IdBlocks;
import org.lutra.placement.StatementShards;
/**
 * What a statement's operators use besides its parameters and connections, one set per {@link Executor}, shared by every
 * statement: the router's counters, the backends, the fan-out of sub-queries, the writes of replicated rows, the
 * AUTO_INCREMENT id blocks, and the executor itself for the statements a write plans while it runs (a foreign key's
 * checks and cascades). Operators reach them through the {@link Context}.
 */
final class Services {
    private final Stats stats;
    private final Backends backends;
    private final FanOut fanOut;
    private final ReplicaWrite replicas;
    private final AutoIncrement autoIncrement;
    private final Executor executor;

    Services(Stats stats, Backends backends, FanOut fanOut, Executor executor) {
        this.stats = stats;
        this.backends = backends;
        this.fanOut = fanOut;
        this.replicas = new ReplicaWrite(stats, backends, fanOut);
        this.autoIncrement = new AutoIncrement(new IdBlocks(backends));
        this.executor = executor;
    }

    /** Services without backends, for operators run against a fake of {@link Shards} (no replicated keys, no foreign keys of the router's). */
    static Services withoutBackends(Stats stats) {
        return new Services(stats, null, null, null);
    }

    Stats stats() {
        return stats;
    }

    Backends backends() {
        return backends;
    }

    FanOut fanOut() {
        return fanOut;
    }

    ReplicaWrite replicas() {
        return replicas;
    }

    AutoIncrement autoIncrement() {
        return autoIncrement;
    }

    Executor executor() {
        return executor;
    }

    /** The shards as operators see them, over a statement's connections (the pool's, or its transaction's). */
    Shards shards(Connections connections) {
        return new StatementShards(fanOut, backends, connections);
    }
}
