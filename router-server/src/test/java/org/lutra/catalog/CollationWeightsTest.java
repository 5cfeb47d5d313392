package org.lutra.catalog;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The weighing cache over a fake backend whose "collation" folds case and weighs 'ß' as "ss" (an expansion), gives
 * U+200B no weight, weighs U+00A0 as a space, and cannot hold '€' (as latin1 cannot hold most of Unicode).
 */
class CollationWeightsTest {
    private static final byte[] SPACE = {0x02, 0x09};

    /** Records every batch asked; the weight of a string is two bytes per folded character. */
    static final class FakeBackend implements CollationWeights.Source {
        final List<List<String>> asked = new ArrayList<>();
        boolean down;

        @Override
        public List<byte[]> weigh(List<String> values) throws SQLException {
            if (down) throw new SQLTransientConnectionException("backend down");
            asked.add(List.copyOf(values));
            var out = new ArrayList<byte[]>();
            for (String v : values) out.add(v.contains("€") ? null : weight(v));
            return out;
        }

        static byte[] weight(String v) {
            String folded = v.replace("ß", "ss").replace("\u200B", "").replace('\u00A0', ' ').toUpperCase(Locale.ROOT);
            byte[] chars = folded.getBytes(StandardCharsets.UTF_16BE);
            for (int i = 0; i < chars.length; i += 2) {
                if (chars[i] == 0 && chars[i + 1] == ' ') {
                    chars[i] = SPACE[0];
                    chars[i + 1] = SPACE[1];
                }
            }
            return chars;
        }
    }

    private static CollationWeights padSpace(FakeBackend backend) {
        return new CollationWeights("utf8mb4_fake_ci", CollationWeights.Pad.PAD_SPACE, SPACE, backend, CollationWeights.DEFAULT_CAPACITY_BYTES);
    }

    @Test
    void equalValuesAreOneKeyAndBindTheirOwnSpelling() {
        var w = padSpace(new FakeBackend());
        CollatedKey strasse = w.key("Straße");
        assertEquals(strasse, w.key("STRASSE"));
        assertEquals(strasse, w.key("strasse  "), "PAD SPACE: trailing spaces weigh nothing");
        assertEquals(strasse, w.key("stras\u200Bse\u00A0"), "an ignorable character, and a trailing character that weighs as a space");
        assertEquals(strasse.lookupText(), w.key("STRASSE").lookupText());
        assertEquals(KeyValues.bucket(strasse, 7), KeyValues.bucket(w.key("strasse"), 7), "one hash bucket");
        assertNotEquals(strasse, w.key(" strasse"), "leading spaces count");
        assertNotEquals(strasse, w.key("strase"));
        assertEquals("Straße", strasse.value(), "a probe binds the spelling it was made from");
        assertEquals("Straße", String.valueOf(strasse), "written as text (the placement log), it reads back as an equal key");
        assertEquals(w.key(""), w.key("   "), "the empty string and spaces: one key under PAD SPACE");
        assertTrue(strasse.lookupText().startsWith("w:"), "never read back as an integer key from a snapshot");
    }

    @Test
    void noPadKeepsTrailingSpaces() {
        var w = new CollationWeights("utf8mb4_fake_nopad_ci", CollationWeights.Pad.NO_PAD, SPACE, new FakeBackend(), CollationWeights.DEFAULT_CAPACITY_BYTES);
        assertNotEquals(w.key("ann"), w.key("ann "));
        assertEquals(w.key("ann"), w.key("ANN"));
    }

    @Test
    void aValueTheCharacterSetCannotHoldHasNoKey() {
        var w = padSpace(new FakeBackend());
        assertNull(w.key("5 €"));
        Object[] keys = w.keys(new String[] {"a", "5 €", null});
        assertNotNull(keys[0]);
        assertNull(keys[1]);
        assertNull(keys[2]);
    }

    @Test
    void theBackendIsAskedOncePerNewValueAndOncePerStatement() {
        var backend = new FakeBackend();
        var w = padSpace(backend);
        Object[] first = w.keys(new String[] {"a", "b", "a", "c"});
        assertEquals(List.of(List.of("a", "b", "c")), backend.asked, "one round trip for the statement's new values, each asked once");
        Object[] again = w.keys(new String[] {"c", "b", "a"});
        assertEquals(1, backend.asked.size(), "cached: no round trip");
        assertEquals(first[0], again[2]);
        for (int i = 0; i < 100; i++) w.key("a");
        assertEquals(1, w.roundTrips());
        w.keys(new String[] {"a", "d", "A"});
        assertEquals(List.of("d", "A"), backend.asked.get(1), "only what the cache lacks; 'A' is another spelling, cached apart");
    }

    @Test
    void largeStatementsAreWeighedInBatches() {
        var backend = new FakeBackend();
        var w = padSpace(backend);
        var values = new String[CollationWeights.BATCH * 2 + 1];
        for (int i = 0; i < values.length; i++) values[i] = "v" + i;
        Object[] keys = w.keys(values);
        assertEquals(3, backend.asked.size());
        for (int i = 0; i < values.length; i++) assertEquals(w.key(values[i]), keys[i]);
        assertEquals(3, w.roundTrips());
    }

    @Test
    void theCacheIsBounded() {
        var backend = new FakeBackend();
        var w = new CollationWeights("utf8mb4_fake_ci", CollationWeights.Pad.PAD_SPACE, SPACE, backend, 64 * 1024);
        for (int i = 0; i < 20_000; i++) w.key("value number " + i);
        assertTrue(w.cached() < 1_000, "about 64 KiB of entries, not 20,000: " + w.cached());
        long trips = w.roundTrips();
        assertNotNull(w.key("value number 0"));
        assertEquals(trips + 1, w.roundTrips(), "an evicted value is weighed again");
    }

    @Test
    void aFailedWeighingCachesNothing() {
        var backend = new FakeBackend();
        var w = padSpace(backend);
        backend.down = true;
        var e = assertThrows(KeyWeighingException.class, () -> w.key("x"));
        assertTrue(e.sqlException().getMessage().contains("backend down"), e.getMessage());
        assertEquals("08", e.sqlException().getSQLState() == null ? "08" : e.sqlException().getSQLState().substring(0, 2));
        backend.down = false;
        assertEquals(w.key("X"), w.key("x"));
    }

    @Test
    void weightsThatAreNotWholeUnitsHaveNoKey() {
        CollationWeights.Source odd = values -> values.stream().map(v -> new byte[] {1, 2, 3}).toList();
        var w = new CollationWeights("odd_ci", CollationWeights.Pad.PAD_SPACE, SPACE, odd, CollationWeights.DEFAULT_CAPACITY_BYTES);
        assertNull(w.key("x"), "the pad cannot be taken off exactly: no key, the statement is not routed by it");
    }

    @Test
    void aCollatedColumnRoutesNothingBeforeItsCollationIsLearned() {
        var c = new ColumnDef("name", "VARCHAR(9)", KeyType.STRING, new KeyCollation(null));
        assertThrows(IllegalStateException.class, () -> c.key("x"));
        assertNull(c.key(5L), "a number against a string column compares numerically: not routed by value");
        c.collation().learnWeights(padSpace(new FakeBackend()));
        assertEquals(c.key("Straße"), c.key("strasse"));
        assertArrayEquals(new Object[] {c.key("a"), null, c.key("b")}, c.keys(new Object[] {"A", null, "B"}));
    }
}
