package org.lutra.plan;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** USER() and friends replaced by the session's values; quoted text, identifiers and comments untouched. */
class SessionFunctionsTest {
    private static String s(String sql) {
        return SessionFunctions.substitute(sql, "app", "10.0.0.7");
    }

    @Test
    void callsBecomeTheSessionsValues() {
        assertEquals("SELECT SUBSTRING_INDEX('app@10.0.0.7','@',1)", s("SELECT SUBSTRING_INDEX(USER(),'@',1)"));
        assertEquals("SELECT 'app@10.0.0.7' AS `USER()`", s("SELECT USER()"));
        assertEquals("SELECT 'app@%' AS `current_user`, 'app@10.0.0.7' AS `session_user( )` FROM t", s("SELECT current_user, session_user( ) FROM t"));
        assertEquals("SELECT 'app@%' AS `CURRENT_USER()`;", s("SELECT CURRENT_USER();"));
        assertEquals("SELECT 'app@10.0.0.7' who", s("SELECT SYSTEM_USER() who"));
        assertEquals("INSERT INTO h (by_whom) VALUES ('app@10.0.0.7')", s("INSERT INTO h (by_whom) VALUES (USER())"));
    }

    @Test
    void quotedTextIdentifiersAndCommentsStay() {
        for (String sql : new String[] {"SELECT 'USER()' FROM t", "SELECT `user`() FROM t", "SELECT \"CURRENT_USER\"", "SELECT user FROM t",
                "SELECT t.user() FROM t", "SELECT 1 -- USER()\n", "SELECT 1 /* CURRENT_USER */", "SELECT my_user() FROM t",
                "SELECT 'it''s USER()' , \"a\\\"USER()\""}) {
            assertEquals(sql, s(sql), sql);
        }
        assertEquals("SELECT 'x', 'app@10.0.0.7' AS `USER()`", s("SELECT 'x', USER()"));
        assertNull(SessionFunctions.substitute(null == null ? "SELECT USER()" : "", null, null).equals("SELECT USER()") ? null : "changed");
    }
}
