package org.lutra.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class MainTest {

    @Test
    void unknownCommandIsAUsageError() throws Exception {
        assertEquals(2, Main.run(List.of("no-such-command")));
    }

    @Test
    void helpSucceedsAndCommandNamesAreUnique() throws Exception {
        assertEquals(0, Main.run(List.of()));
        assertEquals(0, Main.run(List.of("help")));
        var names = new HashSet<String>();
        for (Command c : Main.commands()) assertTrue(names.add(c.name()), "duplicate " + c.name());
        assertTrue(names.containsAll(List.of("shards", "sql")));
    }
}
