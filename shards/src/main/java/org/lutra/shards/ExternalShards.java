package org.lutra.shards;

import java.util.List;

/** Servers started by someone else (LUTRA_BACKENDS, docker-compose, `./lutra shards start`). */
record ExternalShards(List<String> urls, String user, String password) implements Shards {
    @Override
    public boolean canKill() {
        return false;
    }

    @Override
    public void kill(int shard) {
        throw notOurs("kill");
    }

    @Override
    public void restart(int shard) {
        throw notOurs("restart");
    }

    @Override
    public void freeze(int shard) {
        throw notOurs("freeze");
    }

    @Override
    public void thaw(int shard) {
        throw notOurs("thaw");
    }

    private UnsupportedOperationException notOurs(String what) {
        return new UnsupportedOperationException("cannot " + what + " a shard started elsewhere (" + String.join(", ", urls)
                + "): its process is not this JVM's; run crash tests on embedded shards (unset LUTRA_BACKENDS)");
    }

    @Override
    public void close() {
        // not ours to stop
    }
}
