package org.lutra.ops;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Properties;

/**
 * The console's files, read once from the classpath: the page, its script and style (this
 * package's resources), and Chart.js from its WebJar, so that the console works without any
 * internet access. Only these paths are served: no path is ever mapped to a file name.
 */
final class StaticAssets {
    /** A file's bytes and type. */
    record Asset(byte[] bytes, String type) {
        FullHttpResponse response() {
            var r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(bytes));
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
            r.headers().set(HttpHeaderNames.CACHE_CONTROL, "max-age=300");
            return r;
        }
    }

    private final Map<String, Asset> assets;

    private StaticAssets(Map<String, Asset> assets) {
        this.assets = assets;
    }

    static StaticAssets load() {
        try {
            String chart = "/META-INF/resources/webjars/chart.js/" + webJarVersion("chart.js") + "/dist/chart.umd.js";
            return new StaticAssets(Map.of(
                    "/", new Asset(read("/org/lutra/ops/console.html"), "text/html; charset=utf-8"),
                    "/console.js", new Asset(read("/org/lutra/ops/console.js"), "text/javascript; charset=utf-8"),
                    "/console.css", new Asset(read("/org/lutra/ops/console.css"), "text/css; charset=utf-8"),
                    "/assets/chart.umd.js", new Asset(read(chart), "text/javascript; charset=utf-8")));
        } catch (IOException e) {
            throw new IllegalStateException("the console's files are missing from the router's classpath: " + e.getMessage(), e);
        }
    }

    /** The version of the npm WebJar {@code name} on the classpath (from its pom.properties). */
    static String webJarVersion(String name) throws IOException {
        var props = new Properties();
        try (InputStream in = StaticAssets.class.getResourceAsStream("/META-INF/maven/org.webjars.npm/" + name + "/pom.properties")) {
            if (in == null) throw new IOException("no WebJar " + name);
            props.load(in);
        }
        return props.getProperty("version");
    }

    private static byte[] read(String resource) throws IOException {
        try (InputStream in = StaticAssets.class.getResourceAsStream(resource)) {
            if (in == null) throw new IOException("no " + resource);
            return in.readAllBytes();
        }
    }

    /** The file served at {@code path}, or null. */
    Asset get(String path) {
        return assets.get(path.equals("/index.html") ? "/" : path);
    }
}
