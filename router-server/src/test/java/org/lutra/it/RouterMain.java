package org.lutra.it;

import org.lutra.config.RouterConfig;
import org.lutra.server.RouterServer;

import java.nio.file.Path;

/** A router in a process of its own, for tests that kill it: prints its port, then serves until killed. */
public final class RouterMain {
    static final String PORT_LINE = "LUTRA-PORT ";

    public static void main(String[] args) throws Exception {
        var server = RouterServer.start(RouterConfig.load(Path.of(args[0])));
        System.out.println(PORT_LINE + server.port());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
