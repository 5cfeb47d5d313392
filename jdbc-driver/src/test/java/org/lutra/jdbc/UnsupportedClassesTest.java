package org.lutra.jdbc;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The committed Unsupported* classes are exactly what {@link GenerateUnsupported} writes for this JDK's java.sql. */
class UnsupportedClassesTest {
    @Test
    void committedClassesMatchTheGenerator() throws Exception {
        Path dir = Path.of("src/main/java/org/lutra/jdbc");
        for (var e : GenerateUnsupported.sources().entrySet()) {
            String committed = Files.readString(dir.resolve(e.getKey() + ".java"));
            assertEquals(e.getValue(), committed, e.getKey() + ".java differs from what GenerateUnsupported writes: "
                    + "run it again (see its comment) and commit the result");
        }
    }
}
