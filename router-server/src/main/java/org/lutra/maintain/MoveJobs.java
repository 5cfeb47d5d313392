package org.lutra.maintain;

import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.config.RouterConfig;
import org.lutra.backend.Backends;
import org.lutra.lookup.io.MapFormatException;
import org.lutra.merge.RowSource;
import org.lutra.exec.SessionCommand;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Moves as durable jobs ({@link MoveLog} has the record): {@code ALTER TABLE ... SET PARTITION} and
 * {@code LOAD LOOKUP TABLE} write their plan (key → target partition, in order) before the first
 * batch, then a runner hands the plan to {@link Mover} a batch at a time, each batch one transaction.
 *
 * <p><b>Why a resumed move loses and duplicates nothing:</b> each batch is atomic, and a batch is
 * idempotent — the Mover reads where each key is under its locks and moves only rows not yet at
 * the target. Progress ({@code keys_done}) is written after a batch commits; a router that crashes
 * between the two redoes that batch on resume, finding its keys in place. So the remaining work is
 * always "the plan from keys_done on", whatever was interrupted.
 *
 * <p>Who runs a move: the router that started it (SET PARTITION and LOAD without APPLY in the
 * client's session, which waits; LOAD ... APPLY on a thread of its own, returning the plan at
 * once), after a crash that router when it starts again, or any router that says {@code RESUME
 * MOVE n}, which takes the move over (a new epoch; the old runner stops before its next batch).
 * {@code PAUSE MOVE n} from any router stops the runner before its next batch. Between batches the
 * runner sleeps {@code move_pause_ms}, so that a large move leaves the partitions to other traffic.
 */
public final class MoveJobs implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MoveJobs.class);
    private static final int LOCK_WAIT_TIMEOUT = 1205;
    private static final int DEADLOCK = 1213;
    /**
     * A batch ended by contention is retried until it has tried this often and for this many of the configured lock
     * waits: its own waits are short (it yields, {@code Backends.Placement.YIELDING_LOCK_WAIT_SECONDS}), its patience
     * with a client that holds its rows is what five waits of the configured length gave before it yielded.
     */
    private static final int ATTEMPTS = 5;

    private final Backends backends;
    private final MoveLog moves;
    private final String router;
    private final Supplier<Mover.Transaction> begin;
    private final Path mapDir;
    private final long pauseMillis;
    private final long leaseMillis;
    private volatile boolean closed;
    private final Mover.Copied copied;
    private final org.lutra.placement.MoveFence fence;

    /**
     * @param begin       a transaction of the router's own, one per batch
     * @param settings    {@code map_dir} (where LOAD LOOKUP TABLE may read map files; unset: LOAD is refused) and the pause between batches
     * @param copied      what a batch writes for the rows it copied, before it commits (secondary lookup entries)
     */
    public MoveJobs(Backends backends, String router, Supplier<Mover.Transaction> begin, RouterConfig.CatalogSettings settings, Mover.Copied copied) {
        this.backends = backends;
        this.copied = copied;
        this.fence = new org.lutra.placement.MoveFence(backends);
        this.moves = new MoveLog(backends.placement(0));
        this.router = router;
        this.begin = begin;
        this.mapDir = settings.mapDir();
        this.pauseMillis = Math.max(0, settings.movePauseMillis());
        this.leaseMillis = settings.leaseMillis();
    }

    /** Creates the move tables and the move fence's if they are missing. */
    public void install() throws SQLException {
        moves.install();
        fence.install();
    }

    /** Resumes, in the background, the moves this router was running when it stopped (call once it serves clients). */
    public void resumeMine() throws SQLException {
        for (var job : moves.runningOf(router)) {
            long epoch = moves.claim(job.id(), router);
            if (epoch > 0) {
                log.info("move {} ({}) was running when this router stopped: resuming at key {} of {}", job.id(), job.statement(), job.keysDone(),
                        job.keysTotal());
                background(job.id(), epoch);
            }
        }
    }

    /** ALTER TABLE ... SET PARTITION: records the move of {@code keys} to {@code targets} and runs it here; returns the rows moved. */
    public long move(TableDef owner, String statement, List<Object> keys, int[] targets) throws SQLException {
        if (keys.isEmpty()) return 0;
        var catalog = catalog();
        String name = String.join(",", java.util.Arrays.stream(targets).mapToObj(p -> catalog.partition(p).name()).toList()); // several: replicated
        var plan = new ArrayList<MoveLog.Step>(keys.size());
        for (Object k : keys) plan.add(new MoveLog.Step(plan.size(), text(k), name));
        long id = moves.create(owner.name(), statement, router, plan);
        return runHere(id);
    }

    /** LOAD LOOKUP TABLE: the plan as rows (Action, From, To, Keys, Rows, Move); with APPLY the move runs in the background. */
    public RowSource load(SessionCommand.LoadLookup load) throws SQLException {
        Catalog catalog = catalog();
        var lookup = (Partitioning.LookedUp) load.table().partitioning();
        TableDef owner = catalog.table(lookup.owner());
        Map<Object, int[]> entries;
        try {
            entries = MapPlan.read(catalog, load.table(), lookup, LookupMapFiles.mapSource(new RouterConfig.LookupSource(load.table().name(),
                    mapFile(load.file(), load.format()), load.format())));
        } catch (MapFormatException e) {
            throw new SQLException("LOAD LOOKUP TABLE: nothing loaded: " + e.getMessage(), "22000", 0, e);
        } catch (NoSuchFileException e) {
            throw new SQLException("LOAD LOOKUP TABLE: File '" + e.getFile() + "' not found", "HY000", 29, e);
        } catch (IOException e) {
            throw new SQLException("LOAD LOOKUP TABLE: nothing loaded: " + e.getMessage(), "HY000", 0, e);
        }
        // per (action, from, to): keys, rows — and the plan: keys with rows elsewhere (APPLY), keys without rows anywhere
        var summary = new LinkedHashMap<List<Object>, long[]>();
        var steps = new ArrayList<MapPlan.Key>();
        for (var k : MapPlan.locate(catalog, owner, lookup, backends, entries)) {
            String action;
            if (k.inPlace()) {
                action = "in place";
            } else if (k.rows() == 0) {
                action = "place";
                steps.add(k);
            } else if (load.apply()) {
                action = "move";
                steps.add(k);
            } else {
                action = "would move";
            }
            var sum = summary.computeIfAbsent(List.of(action, k.inPlace() ? "" : RouterLoader.names(catalog, k.location()),
                    RouterLoader.names(catalog, k.target())), x -> new long[2]);
            sum[0]++;
            sum[1] += k.rows();
        }
        // a batch goes to one set of partitions: the plan sorted by it (Arrays.compare: lexicographic)
        steps.sort(Comparator.comparing(MapPlan.Key::target, java.util.Arrays::compare).thenComparing(MapPlan.Key::location, java.util.Arrays::compare));
        Long id = null;
        if (!steps.isEmpty()) {
            var plan = new ArrayList<MoveLog.Step>(steps.size());
            for (var k : steps) plan.add(new MoveLog.Step(plan.size(), text(k.key()), RouterLoader.names(catalog, k.target()).replace(", ", ",")));
            id = moves.create(owner.name(), load.text(), router, plan);
            if (load.apply()) {
                background(id, 1);
            } else {
                runHere(id);
            }
        }
        var out = new ReportRows().text("Action").text("From_partition").text("To_partition").number("Keys").number("Rows").number("Move");
        for (var e : summary.entrySet()) {
            String action = (String) e.getKey().get(0);
            String from = (String) e.getKey().get(1);
            boolean inPlan = action.equals("move") || action.equals("place");
            out.add(action, from.isEmpty() ? null : from, e.getKey().get(2), e.getValue()[0], e.getValue()[1], inPlan ? id : null);
        }
        return out.rows();
    }

    public RowSource show() throws SQLException {
        var out = new ReportRows().number("Id").text("Table").text("Statement").text("State").number("Keys_done").number("Keys_total")
                .number("Rows_moved").text("Router").text("Started").text("Updated").text("Message");
        for (var j : moves.jobs()) {
            out.add(j.id(), j.owner(), j.statement(), j.state(), j.keysDone(), j.keysTotal(), j.rowsMoved(), j.router(), j.started(), j.updated(),
                    j.message());
        }
        return out.rows();
    }

    public void pause(long id) throws SQLException {
        if (!moves.pause(id)) {
            var job = moves.job(id);
            throw new SQLException(job == null ? "no move " + id + " (SHOW MOVES lists them)" : "move " + id + " is " + job.state() + ", not running",
                    "HY000", 0);
        }
    }

    /** Takes move {@code id} over for this router and runs the rest of it in the background. */
    public void resume(long id) throws SQLException {
        long epoch = moves.claim(id, router);
        if (epoch < 0) {
            var job = moves.job(id);
            throw new SQLException(job == null ? "no move " + id + " (SHOW MOVES lists them)" : "move " + id + " is done", "HY000", 0);
        }
        background(id, epoch);
    }

    /** Runners stop at their next step and leave their moves running in the log, as a crash would: the next start resumes them. */
    @Override
    public void close() {
        closed = true;
    }

    private long runHere(long id) throws SQLException {
        Outcome outcome;
        try {
            outcome = run(id, 1);
        } catch (SQLException e) {
            var job = moves.job(id);
            throw new SQLException("move " + id + " failed after " + (job == null ? "?" : job.keysDone() + " of " + job.keysTotal()) + " keys (the keys"
                    + " before are moved; RESUME MOVE " + id + " tries the rest again): " + e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
        }
        if (!outcome.state().equals("done")) {
            var job = moves.job(id);
            throw new SQLException("move " + id + " stopped (" + outcome.state() + ") after " + (job == null ? "?" : job.keysDone() + " of " + job.keysTotal())
                    + " keys; the keys before it are moved, and RESUME MOVE " + id + " moves the rest (SHOW MOVES follows it)", "HY000", 0);
        }
        return outcome.rows();
    }

    private void background(long id, long epoch) {
        Thread.ofPlatform().daemon().name("lutra-move-" + id).start(() -> {
            try {
                run(id, epoch);
            } catch (SQLException | RuntimeException e) {
                if (!closed) log.warn("move {} failed: {}", id, e.getMessage());
            }
        });
    }

    /** @param state done, paused, taken over (another runner's epoch), or stopped (this router closed) */
    private record Outcome(String state, long rows) {}

    private Outcome run(long id, long epoch) throws SQLException {
        long rows = 0;
        try {
            while (true) {
                if (closed) return new Outcome("stopped", rows);
                var job = moves.job(id);
                if (job == null) return new Outcome("deleted", rows); // its row was deleted on p0 by hand
                if (job.epoch() != epoch) return new Outcome("taken over", rows);
                if (!job.state().equals("running")) return new Outcome(job.state(), rows);
                var steps = moves.next(id, job.keysDone(), Mover.BATCH);
                if (steps.isEmpty()) {
                    moves.finish(id, epoch, "done", null);
                    if ("done".equals(moves.job(id).state())) moves.forgetPlan(id);
                    return new Outcome("done", rows);
                }
                int same = 1; // a batch goes to one target (a partition, or a set): the plan is sorted by target, so batches are whole but at a change of target
                while (same < steps.size() && steps.get(same).target().equals(steps.getFirst().target())) same++;
                var batch = steps.subList(0, same);
                long moved = moveBatch(job.owner(), batch);
                moves.progress(id, batch.getLast().seq() + 1, moved);
                rows += moved;
                if (pauseMillis > 0 && same == Mover.BATCH) Thread.sleep(pauseMillis); // not after the last batch
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome("stopped", rows);
        } catch (SQLException | RuntimeException e) {
            if (closed) return new Outcome("stopped", rows);
            moves.finish(id, epoch, "failed", e.getMessage());
            throw e;
        }
    }

    /** One batch through the Mover, again after a deadlock or lock wait timeout with other traffic (the batch rolled back whole). */
    private long moveBatch(String ownerName, List<MoveLog.Step> batch) throws SQLException, InterruptedException {
        Catalog catalog = catalog();
        TableDef owner = catalog.table(ownerName);
        if (owner == null || !(owner.partitioning() instanceof Partitioning.LookedUp lookup)) {
            throw new SQLException("table '" + ownerName + "' is no longer placed by a lookup table: the move cannot go on", "HY000", 0);
        }
        String[] names = batch.getFirst().target().split(","); // several: the keys are replicated there
        int[] targets = new int[names.length];
        for (int i = 0; i < names.length; i++) targets[i] = catalog.partitionNamed(names[i]).id();
        var keys = new ArrayList<Object>(batch.size());
        for (var s : batch) keys.add(owner.key(s.key()));
        long patience = java.util.concurrent.TimeUnit.SECONDS.toNanos((long) ATTEMPTS * backends.placement(0).lockWaitSeconds());
        long started = System.nanoTime();
        for (int attempt = 1; ; attempt++) {
            try {
                return new Mover(catalog, lookup, copied, fence, leaseMillis).move(keys, targets, begin).rows();
            } catch (SQLException e) {
                boolean contention = e.getErrorCode() == DEADLOCK || e.getErrorCode() == LOCK_WAIT_TIMEOUT || "40001".equals(e.getSQLState())
                        || e.getCause() instanceof SQLException c && c.getErrorCode() == LOCK_WAIT_TIMEOUT;
                if (!contention || (attempt >= ATTEMPTS && System.nanoTime() - started > patience) || closed) throw e;
                Thread.sleep(Math.min(50L * attempt, 500));
            }
        }
    }

    /** The map file: inside the configured map directory, symbolic links resolved (docs/placement.md says why). */
    private Path mapFile(String file, String format) throws SQLException, IOException {
        if (mapDir == null) {
            throw new SQLException("LOAD LOOKUP TABLE is off: the router reads map files only from catalog.map_dir, which is not set", "HY000", 1290);
        }
        Path dir = mapDir.toRealPath();
        Path real = dir.resolve(file).toRealPath();
        Path vertices = format.equals("metis") ? LookupMapFiles.verticesOf(real) : real;
        if (!real.startsWith(dir) || (Files.exists(vertices) && !vertices.toRealPath().startsWith(dir))) {
            throw new SQLException("LOAD LOOKUP TABLE reads map files only inside catalog.map_dir (" + dir + "); '" + file + "' is outside it",
                    "HY000", 1290);
        }
        return real;
    }

    private Catalog catalog() {
        return backends.catalog();
    }

    private static String text(Object key) {
        return key.toString();
    }
}
