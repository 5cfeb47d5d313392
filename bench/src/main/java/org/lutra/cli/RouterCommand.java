package org.lutra.cli;

import org.lutra.config.RouterConfig;
import org.lutra.ops.Operations;
import org.lutra.server.RouterServer;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/** {@code ./lutra router --config FILE}: runs a router until interrupted. */
final class RouterCommand implements Command {
    @Override
    public String name() {
        return "router";
    }

    @Override
    public String summary() {
        return "run a router: --config config/demo.yaml";
    }

    @Override
    public int run(List<String> args) throws Exception {
        int at = args.indexOf("--config");
        if (args.contains("--help") || at < 0 || at + 1 >= args.size()) {
            System.out.println("usage: ./lutra router --config FILE   (see config/demo.yaml; stop with Ctrl-C)");
            return args.contains("--help") ? 0 : 2;
        }
        var config = RouterConfig.load(Path.of(args.get(at + 1)));
        var operated = Operations.start(config); // with the HTTP listener and slow log where the config asks for them
        var server = operated.router();
        var stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            operated.close();
            stopped.countDown();
        }, "lutra-shutdown"));
        for (var l : server.loaded()) {
            System.out.printf("lookup table %s: %,d keys (%d ms)%n", l.table(), l.keys(), l.millis());
        }
        System.out.printf("%s listening: jdbc:lutra://%s:%d/%s%n", RouterServer.VERSION, config.listenHost(), server.port(), config.database());
        if (config.http() != null) {
            System.out.printf("console, /metrics and /health: %s://%s:%d/%n", config.http().tls() == null ? "http" : "https", config.http().host(),
                    operated.httpPort());
        }
        stopped.await();
        return 0;
    }
}
