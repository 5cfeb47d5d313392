package org.lutra.catalog;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class IntegerRangeTest {
    @Test
    void eachIntegerTypeHoldsWhatMySqlHolds() {
        assertEquals(new IntegerRange(Integer.MIN_VALUE, Integer.MAX_VALUE), IntegerRange.of("INT"));
        assertEquals(new IntegerRange(0, 4_294_967_295L), IntegerRange.of("int(10) unsigned"));
        assertEquals(new IntegerRange(-128, 127), IntegerRange.of("TINYINT(4)"));
        assertEquals(new IntegerRange(0, 65_535), IntegerRange.of("SMALLINT UNSIGNED ZEROFILL"));
        assertEquals(new IntegerRange(-8_388_608, 8_388_607), IntegerRange.of("mediumint"));
        assertEquals(new IntegerRange(Long.MIN_VALUE, Long.MAX_VALUE), IntegerRange.of("BIGINT"));
        assertEquals(new IntegerRange(Integer.MIN_VALUE, Integer.MAX_VALUE), IntegerRange.of("INTEGER"));
        assertNull(IntegerRange.of("VARCHAR(64)"));
        assertNull(IntegerRange.of("INTERVAL")); // not INT: the whole word counts
        assertTrue(IntegerRange.of("INT").holds(2_147_483_647L));
        assertFalse(IntegerRange.of("INT").holds(2_147_483_648L));
        assertFalse(IntegerRange.of("INT UNSIGNED").holds(-1));
    }
}
