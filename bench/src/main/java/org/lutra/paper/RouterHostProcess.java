package org.lutra.paper;

import org.lutra.cli.bench.RouterProcess;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** The benchmark's side of a {@link RouterHost}: starts and stops routers in it, reads its CPU time. */
final class RouterHostProcess implements AutoCloseable {
    private final Process process;
    private final BufferedReader answers;
    private final PrintWriter requests;

    private RouterHostProcess(Process process) {
        this.process = process;
        this.answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.requests = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
    }

    /** Starts the host JVM; its router's log goes to {@code log}. */
    static RouterHostProcess start(Path log) throws IOException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        var builder = RouterProcess.java(RouterHost.class.getName(), java.util.List.of(), null).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        var host = new RouterHostProcess(builder.start());
        String first = host.answers.readLine();
        if (!"ready".equals(first)) {
            host.close();
            throw new IOException("the router host did not start (" + first + "); see " + log);
        }
        return host;
    }

    /** Starts a router with {@code config}; returns its port. */
    synchronized int startRouter(Path config) throws IOException {
        String answer = ask("start " + config.toAbsolutePath());
        return Integer.parseInt(answer.substring(3).trim());
    }

    synchronized void stopRouter() throws IOException {
        ask("stop");
    }

    private String ask(String request) throws IOException {
        requests.println(request);
        String answer = answers.readLine();
        if (answer == null) throw new IOException("the router host ended (" + request + ")");
        if (!answer.startsWith("ok")) throw new IOException("router host: " + answer.replaceFirst("^error ", ""));
        return answer;
    }

    long pid() {
        return process.pid();
    }

    /** CPU ticks of the host's JIT compiler threads so far (warm-up: a router whose JIT is still busy is not measured yet). */
    long compilerTicks() {
        return ProcFs.threadTicks(process.pid(), name -> name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre"));
    }

    @Override
    public void close() {
        requests.close();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
