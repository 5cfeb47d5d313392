package org.lutra.trace;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The keys one sampled transaction touched, each once (a key read and written is written), in the
 * order first touched; at most {@link #MAX_KEYS}. Statements of a session run one at a time, but
 * one statement's sub-plans may report from several threads: the methods are synchronized.
 */
final class TransactionKeys implements KeyTrace {
    static final int MAX_KEYS = 10_000;

    private record Key(String table, String key) {}

    private final TraceRecorder recorder;
    private final Map<Key, Boolean> written = new LinkedHashMap<>();

    TransactionKeys(TraceRecorder recorder) {
        this.recorder = recorder;
    }

    @Override
    public synchronized void read(String table, Object[] keys) {
        add(table, keys, false);
    }

    @Override
    public synchronized void write(String table, Object[] keys) {
        add(table, keys, true);
    }

    private void add(String table, Object[] keys, boolean write) {
        if (keys == null) return;
        for (Object k : keys) {
            if (k == null) continue;
            var key = new Key(table, k.toString());
            Boolean before = written.get(key);
            if (before == null && written.size() >= MAX_KEYS) continue;
            if (before == null || write && !before) written.put(key, write);
        }
    }

    @Override
    public synchronized void committed() {
        if (written.isEmpty()) return; // a transaction that named no key says nothing about placement
        var accesses = new ArrayList<Access>(written.size());
        written.forEach((k, w) -> accesses.add(new Access(w, k.table(), k.key())));
        recorder.committed(TraceLine.untyped(accesses));
    }
}
