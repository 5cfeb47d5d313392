package org.lutra.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Measurements a test reports for the docs' tables: written under target/hardening/, as the run saw them. */
final class Report {
    private Report() {}

    static void write(String name, List<String> lines) {
        try {
            Path dir = Path.of("target", "hardening");
            Files.createDirectories(dir);
            Files.write(dir.resolve(name), lines);
        } catch (IOException e) {
            System.err.println("cannot write report " + name + ": " + e);
        }
    }
}
