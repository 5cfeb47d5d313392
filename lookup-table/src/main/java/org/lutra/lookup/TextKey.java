package org.lutra.lookup;

/**
 * A key that a lookup table stores under a text of its own, not under the key's value: a string
 * routing column whose collation holds several spellings equal ('Straße', 'STRASSE') gives each
 * the same text (the collation's weight), so that all of them find one entry. The tables keep
 * the text as any String key; {@link LookupTable}'s Object methods take this interface as well.
 */
public interface TextKey {
    /** The text the tables store this key under: equal for keys that are equal. */
    String lookupText();
}
