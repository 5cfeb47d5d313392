package org.lutra.shards;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether every thread of a process is stopped by a SIGSTOP, from Linux's {@code /proc/<pid>/task/<tid>/stat}: the
 * state after the command name is {@code T} for a stopped thread. The process's own {@code /proc/<pid>/stat} is its
 * main thread's alone, which is the one the kernel usually wakes to take the signal and so the first to stop.
 */
final class Stopped {
    private Stopped() {}

    /** Waits up to {@code timeout} until no thread of {@code pid} runs; false if some still ran then. */
    static boolean await(long pid, Duration timeout) {
        long until = System.nanoTime() + timeout.toNanos();
        while (!running(pid).isEmpty()) {
            if (System.nanoTime() - until > 0) return false;
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for process " + pid + " to stop", e);
            }
        }
        return true;
    }

    /**
     * The threads of {@code pid} not stopped, each as {@code tid:state}; empty once all are stopped (or exiting: Z, X),
     * or when the process is gone.
     */
    static List<String> running(long pid) {
        var running = new ArrayList<String>();
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                char state;
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    state = stat.charAt(stat.lastIndexOf(')') + 2); // the command name may hold spaces and parentheses
                } catch (NoSuchFileException e) {
                    continue; // the thread ended meanwhile
                }
                if (state != 'T' && state != 'Z' && state != 'X') running.add(task.getFileName() + ":" + state);
            }
        } catch (NoSuchFileException e) {
            return List.of(); // gone: nothing runs
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the threads of process " + pid + " in /proc (freezing needs Linux)", e);
        }
        return running;
    }
}
