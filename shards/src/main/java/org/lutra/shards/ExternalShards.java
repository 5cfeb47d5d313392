package org.lutra.shards;

import java.util.List;

/** Servers started by someone else (LUTRA_BACKENDS, docker-compose, `./lutra shards start`). */
record ExternalShards(List<String> urls, String user, String password) implements Shards {
    @Override
    public void close() {
        // not ours to stop
    }
}
