package org.lutra.config;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lutra.catalog.SchemaParser;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** The configs shipped in config/ stay loadable, and their schema parses. */
class ConfigFilesTest {
    @ParameterizedTest
    @ValueSource(strings = {"demo.yaml", "docker.yaml"})
    void shippedConfigsLoad(String name) throws Exception {
        var config = RouterConfig.load(Path.of("..", "config", name));
        assertEquals("social", config.database());
        assertEquals(4, config.partitions().size());
        assertEquals("social_p2", config.databaseOf(config.partitions().get(2)));
        var catalog = SchemaParser.parse(Files.readString(config.schema()),
                config.partitions().stream().map(RouterConfig.PartitionPlacement::name).toList());
        assertNotNull(catalog.table("tweets"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"listen: [oops", "schema: x.sql\nusers: []\nbackends: []\npartitions: []", "nonsense_key: 1\nschema: s.sql"})
    void badConfigsSayWhat(String yaml) throws Exception {
        Path file = Files.createTempFile("lutra", ".yaml");
        Files.writeString(file, yaml);
        var e = assertThrows(Exception.class, () -> RouterConfig.load(file));
        assertFalse(String.valueOf(e.getMessage()).isBlank());
    }
}
