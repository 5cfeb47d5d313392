package org.lutra.plan;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LabelsTest {
    @Test
    void aLongLabelIsCutAfter255CodePointsAndAstralCharactersAreQuestionMarks() {
        String text = "CHAR_LENGTH('ab" + "\uD83D\uDE00".repeat(1_000) + "')";
        String label = Labels.asMariaDbNames(text);
        assertEquals(255, label.length());
        assertEquals("CHAR_LENGTH('ab" + "?".repeat(240), label); // what MariaDB 11.4 labels this item
    }

    @Test
    void aShortLabelKeepsItsCharacters() {
        assertEquals("é + 1", Labels.asMariaDbNames("é + 1"));
        assertEquals("'?'", Labels.asMariaDbNames("'\uD83D\uDE00'"));
    }
}
