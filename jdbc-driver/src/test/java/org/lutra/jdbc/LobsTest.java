package org.lutra.jdbc;

import org.junit.jupiter.api.Test;

import java.io.Writer;
import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.*;

/** The driver's in-memory LOBs: created empty (as ORMs do), written, read, truncated, freed. */
class LobsTest {
    @Test
    void textGrowsFromEmptyAndReadsBack() throws Exception {
        var clob = new TextLob("");
        assertEquals(5, clob.setString(1, "hello"));
        clob.setString(6, ", world");
        assertEquals("hello, world", clob.getSubString(1, 100));
        clob.setString(1, "J");
        assertEquals("Jello, world", clob.text());
        assertEquals(8, clob.position("world", 1));
        assertEquals(-1, clob.position("nope", 1));
        try (Writer w = clob.setCharacterStream(13)) {
            w.write("!?");
        }
        assertEquals("Jello, world!?", clob.text());
        clob.truncate(5);
        assertEquals("Jello", clob.text());
        assertThrows(SQLException.class, () -> clob.setString(7, "x"), "past the end + 1");
        clob.free();
        assertThrows(SQLException.class, clob::length);
    }

    @Test
    void bytesGrowFromEmptyAndReadBack() throws Exception {
        var blob = new BytesLob(new byte[0]);
        assertEquals(3, blob.setBytes(1, new byte[]{1, 2, 3}));
        blob.setBytes(4, new byte[]{9, 8, 7, 6}, 1, 2);
        assertArrayEquals(new byte[]{1, 2, 3, 8, 7}, blob.bytes());
        assertEquals(4, blob.position(new byte[]{8, 7}, 1));
        try (var out = blob.setBinaryStream(6)) {
            out.write(new byte[]{5, 5});
        }
        assertArrayEquals(new byte[]{1, 2, 3, 8, 7, 5, 5}, blob.getBytes(1, 100));
        blob.truncate(2);
        assertArrayEquals(new byte[]{1, 2}, blob.getBinaryStream().readAllBytes());
        blob.free();
        assertThrows(SQLException.class, blob::length);
    }
}
