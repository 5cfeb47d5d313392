package org.lutra.paper;

import org.lutra.config.RouterConfig;
import org.lutra.server.RouterServer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A JVM of its own that runs one router at a time, for the benchmarks: each run's router starts
 * in the same process as the last one, whose JIT-compiled code it inherits, as a router that has
 * been serving for a while would have it; and the process's CPU time is the router's alone.
 *
 * <p>Protocol, one line each way on standard input and output: {@code start CONFIG} answers
 * {@code ok PORT} once the router listens (or {@code error MESSAGE}); {@code stop} closes it and
 * answers {@code ok}; end of input closes it and exits. The router's log goes to standard error.
 */
public final class RouterHost {
    private RouterHost() {}

    public static void main(String[] args) throws Exception {
        var in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        var out = System.out;
        RouterServer server = null;
        out.println("ready");
        out.flush();
        for (String line; (line = in.readLine()) != null; ) {
            try {
                if (line.startsWith("start ")) {
                    if (server != null) server.close();
                    server = RouterServer.start(RouterConfig.load(Path.of(line.substring(6).trim())));
                    out.println("ok " + server.port());
                } else if (line.equals("stop")) {
                    if (server != null) server.close();
                    server = null;
                    out.println("ok");
                } else {
                    out.println("error unknown request: " + line);
                }
            } catch (Exception | Error e) {
                server = null;
                out.println("error " + String.valueOf(e).replace('\n', ' '));
            }
            out.flush();
        }
        if (server != null) server.close();
    }
}
