package org.lutra.catalog;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The representative function over a small hand-made collation: case folds, one ignorable, PAD SPACE. */
class KeyCollationTest {
    private static KeyCollation collation() {
        var weights = new String[0x10000];
        for (int cp = 0; cp < 0x10000; cp++) weights[cp] = "%04X".formatted(cp);
        for (char c = 'a'; c <= 'z'; c++) weights[c] = weights[Character.toUpperCase(c)];
        weights['\u00E9'] = weights['E']; // é weighs as E
        weights['\u200B'] = "";           // zero width space: ignored
        weights[0xD800] = null;           // not a character of the set
        var k = new KeyCollation("utf8mb4_test_ci");
        k.learn(weights, weights['?']);
        return k;
    }

    @Test
    void equalStringsShareOneRepresentative() {
        var k = collation();
        assertEquals("utf8mb4", k.charset());
        assertEquals(k.canonical("Emile"), k.canonical("\u00E9MILE"));
        assertEquals(k.canonical("ann"), k.canonical("ANN   "));
        assertEquals(k.canonical("an\u200Bn"), k.canonical("Ann"));
        assertEquals(k.canonical("?"), k.canonical("\uD83D\uDE00"), "every character above U+FFFF weighs as the one given");
        assertNotEquals(k.canonical("ann"), k.canonical(" ann"), "leading spaces count");
        assertNotEquals(k.canonical("ann"), k.canonical("anne"));
    }

    @Test
    void refusesCollationsThatAreNotOneWeightPerCharacter() {
        var weights = new String[0x10000];
        for (int cp = 0; cp < 0x10000; cp++) weights[cp] = "%04X".formatted(cp);
        weights['\u00DF'] = "00530053"; // ß as "ss": an expansion
        var k = new KeyCollation("utf8mb4_german_ci");
        var e = assertThrows(IllegalStateException.class, () -> k.learn(weights, "0041"));
        assertTrue(e.getMessage().contains("not one unit"), e.getMessage());
        assertFalse(k.ready());
        assertThrows(IllegalStateException.class, () -> k.canonical("x"));
    }
}
