package org.lutra.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A router process killed with SIGKILL in the middle of a LOAD ... APPLY, wherever its move happens
 * to be (between batches, inside a batch, inside a two-phase commit), and started again as a new
 * process under the same name: it settles the cut batch (XA recovery), resumes the move, and every
 * user and follower row is on the shards exactly once, on the map's partition. Unlike MoveJobsIT's
 * crashes, nothing of the dead router runs on: its JVM is gone, its sockets closed by the kernel.
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RouterProcessKillIT {
    Shards shards;
    Path maps;

    @BeforeAll
    void start(Shards shards) throws Exception {
        this.shards = shards;
        maps = Files.createTempDirectory("lutra-maps");
    }

    @Test
    void aRouterProcessKilledMidMoveFinishesItWhenStartedAgain() throws Exception {
        String database = ("kill9_" + Long.toString(new Random().nextLong() >>> 24, 36)).toLowerCase();
        var setup = new TestRouter(shards, database, MoveJobsIT.SCHEMA, null, shards.size(), null, 8, 0,
                new RouterConfig.CatalogSettings(0, null, maps, 20));
        Process first = null;
        Process second = null;
        try {
            for (int from = 1; from <= 2000; from += 50) MoveJobsIT.users(setup, from, from + 49); // short statements: a cold, loaded router parses slowly
            var map = MoveJobsIT.randomMap(1, 2000, 9);
            var csv = new StringBuilder();
            map.forEach((k, p) -> csv.append(k).append(",p").append(p).append('\n'));
            Files.writeString(maps.resolve("kill.csv"), csv);
            setup.stopRouter(); // its name ("router") is the processes' now

            Path log1 = Files.createTempFile("lutra-router-1", ".log");
            first = RouterProcess.start(setup, maps, -1, log1); // no pause between batches: the kill most likely cuts one
            long id;
            try (Connection c = DriverManager.getConnection("jdbc:lutra://127.0.0.1:" + RouterProcess.port(first, log1) + "/" + database,
                    TestRouter.USER, TestRouter.PASSWORD)) {
                id = MoveJobsIT.load(c, "LOAD LOOKUP TABLE users FROM 'kill.csv' FORMAT csv APPLY").move();
            }
            assertTrue(id > 0);
            // somewhere past the third batch, at no chosen point: the kill lands wherever the move is
            long[] progress = progress(setup, id);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (progress[0] < 300 && System.nanoTime() < until) {
                Thread.sleep(5);
                progress = progress(setup, id);
            }
            Thread.sleep(new Random().nextInt(40));
            first.destroyForcibly(); // SIGKILL, to this pid only
            assertTrue(first.waitFor(30, TimeUnit.SECONDS));
            assertEquals(137, first.exitValue(), "killed by SIGKILL");
            progress = progress(setup, id);
            assertTrue(progress[0] >= 300 && progress[0] < progress[1], "killed in the middle of the move: " + progress[0] + " of " + progress[1]);
            System.out.printf("RouterProcessKillIT: router process killed at %d of %d keys, %d XA branches left prepared%n", progress[0], progress[1],
                    MoveJobsIT.preparedBranches(setup));

            Path log2 = Files.createTempFile("lutra-router-2", ".log");
            second = RouterProcess.start(setup, maps, 20, log2); // the same name: it resumes the move at start
            RouterProcess.port(second, log2);
            until = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (!"done".equals(state(setup, id)) && System.nanoTime() < until) Thread.sleep(100);
            assertEquals("done", state(setup, id), "the restarted router finished the move; its log: " + Files.readString(log2));
            MoveJobsIT.assertPlaced(setup, 1, 2000, map);
            assertEquals(0, MoveJobsIT.preparedBranches(setup), "recovery settled the batch the kill cut");
        } finally {
            for (Process p : new Process[] {first, second}) {
                if (p != null) {
                    p.destroyForcibly();
                    p.waitFor(30, TimeUnit.SECONDS);
                }
            }
            setup.close(); // and the databases
        }
    }

    /** keys_done, keys_total of move {@code id}, read on partition 0. */
    static long[] progress(TestRouter r, long id) throws SQLException {
        try (Connection p0 = r.partition(0); var rs = p0.createStatement().executeQuery("SELECT keys_done, keys_total FROM lutra_moves WHERE id = " + id)) {
            assertTrue(rs.next(), "move " + id);
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    static String state(TestRouter r, long id) throws SQLException {
        try (Connection p0 = r.partition(0); var rs = p0.createStatement().executeQuery("SELECT state FROM lutra_moves WHERE id = " + id)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
