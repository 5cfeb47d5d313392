package org.lutra.cli.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicLong;

/** Scrapes a router's /metrics every second, as Prometheus would (more often than its default 15 s), until closed. */
final class MetricsScraper implements AutoCloseable {
    private final AtomicLong scrapes = new AtomicLong();
    private final Thread thread;
    private volatile boolean stop;

    MetricsScraper(String url) {
        var client = HttpClient.newHttpClient();
        var request = HttpRequest.newBuilder(URI.create(url)).build();
        thread = Thread.ofPlatform().daemon().name("metrics-scraper").start(() -> {
            while (!stop) {
                try {
                    if (client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) scrapes.incrementAndGet();
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                } catch (IOException e) {
                    // the router is stopping
                }
            }
        });
    }

    long scrapes() {
        return scrapes.get();
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.interrupt();
        thread.join(5_000);
    }
}
