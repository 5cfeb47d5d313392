package org.lutra.cli.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;

import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code ./lutra bench point}'s Connector/J exchanges with the router's MySQL listener over a whole run of
 * prepared point selects, against the same client straight at MariaDB, each through a {@link PacketCountingForwarder}:
 * the same commands (one prepare, one COM_STMT_EXECUTE per statement: no periodic session reads, SHOW WARNINGS or
 * re-prepares), per execution the same packets each way, the same closing status flags and warnings count, and each
 * answer written whole (one read of the forwarder per execution). The bench's client-CPU column compares the two paths;
 * this is what keeps that comparison one of the same traffic (docs/benchmarks-router.md, "The MySQL listener").
 */
@ExtendWith(EmbeddedShardsExtension.class)
class ListenerWireTest {
    private static final int ROWS = 200;
    private static final int STATEMENTS = 2_000;

    @Test
    void connectorJSendsAndReadsTheSameAtTheListenerAsAtMariaDb(Shards shards, @TempDir Path dir) throws Exception {
        String routed = shards.createDatabase("lutra_wire_routed");
        String reference = shards.createDatabase("lutra_wire_ref");
        var address = Pattern.compile("//([^:/]+):(\\d+)/").matcher(shards.url(0));
        assertTrue(address.find(), shards.url(0));
        String host = address.group(1);
        int shardPort = Integer.parseInt(address.group(2));
        try (var router = RouterProcess.start(dir, shards, routed, PointClients.SCHEMA, null)) {
            String options = "?" + PointBench.CONNECTOR_J_OPTIONS;
            String directUrl = shards.url(0, reference) + options;
            try (var c = DriverManager.getConnection(directUrl, shards.user(), shards.password()); var st = c.createStatement()) {
                st.execute("CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(32) NOT NULL, karma INT NOT NULL)");
            }
            PointClients.load(DriverManager.getConnection(router.url(), "bench", "bench"), ROWS);
            PointClients.load(DriverManager.getConnection(directUrl, shards.user(), shards.password()), ROWS);
            String mysqlUrl = router.mysqlUrl(options);
            var listenerPort = Pattern.compile(":(\\d+)/").matcher(mysqlUrl);
            assertTrue(listenerPort.find(), mysqlUrl);

            Map<String, Long> listener, direct;
            try (var counting = new PacketCountingForwarder("127.0.0.1", Integer.parseInt(listenerPort.group(1)))) {
                run(mysqlUrl.replace(":" + listenerPort.group(1) + "/", ":" + counting.port() + "/"), "bench", "bench");
                listener = settled(counting);
            }
            try (var counting = new PacketCountingForwarder(host, shardPort)) {
                run(directUrl.replace(":" + shardPort + "/", ":" + counting.port() + "/"), shards.user(), shards.password());
                direct = settled(counting);
            }
            String both = "\nlistener: " + listener + "\nMariaDB:  " + direct;
            for (var side : java.util.List.of(listener, direct)) {
                assertEquals(1L, side.get("commands COM_STMT_PREPARE"), both);
                assertEquals(STATEMENTS, side.get("commands COM_STMT_EXECUTE"), both);
                assertEquals(STATEMENTS, side.get("up COM_STMT_EXECUTE packets"), both);
                // colcount, two column definitions, the row, the closing OK
                assertEquals(5L * STATEMENTS, side.get("down COM_STMT_EXECUTE packets"), both);
                assertEquals(STATEMENTS, side.get("down COM_STMT_EXECUTE end status 0x2 warnings 0"), "autocommit, nothing else" + both);
            }
            // after the login Connector/J reads the session's variables and sets autocommit on both; at MariaDB it also sets
            // character_set_results (the listener reports it NULL already): once a connection, none of it per statement
            assertTrue(listener.getOrDefault("commands COM_QUERY", 0L) <= direct.getOrDefault("commands COM_QUERY", 0L), both);
            assertEquals(direct.get("up COM_STMT_EXECUTE bytes"), listener.get("up COM_STMT_EXECUTE bytes"), both);
            // one write per answer: the forwarder reads each execution's answer once (two would mean the client waits twice)
            assertEquals(STATEMENTS, listener.get("down COM_STMT_EXECUTE reads"), 0.02 * STATEMENTS, both);
        } finally {
            shards.dropDatabase(routed);
            shards.dropDatabase(reference);
        }
    }

    private static void run(String url, String user, String password) throws Exception {
        var client = PointClients.open(url, user, password, "point select", ROWS);
        var random = new SplittableRandom(7);
        for (int i = 0; i < STATEMENTS; i++) client.transaction(random);
        client.close();
    }

    /** The counts once the forwarder has copied the client's COM_QUIT (its threads run on after the client closed). */
    private static Map<String, Long> settled(PacketCountingForwarder counting) throws InterruptedException {
        for (int i = 0; i < 200 && counting.count("commands COM_QUIT") == 0; i++) Thread.sleep(10);
        return counting.counts();
    }
}
