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
    void thePreCheckPassesEveryStatementWithACall() {
        var call = java.util.regex.Pattern.compile("(?i)(USER|SESSION_USER|SYSTEM_USER|CURRENT_USER)\\s*\\(\\s*\\)|CURRENT_USER(?![\\w$\\x{80}-\\x{10FFFF}])");
        String[] parts = {"user", "USER", "uSeR", "users", "current_user", "session_", "(", ")", " ", "_", "$", "x", "é", ",", "'", "SELECT ", "\n"};
        var random = new java.util.SplittableRandom(7);
        for (int i = 0; i < 200_000; i++) {
            var sql = new StringBuilder();
            for (int n = random.nextInt(1, 7); n > 0; n--) sql.append(parts[random.nextInt(parts.length)]);
            if (call.matcher(sql).find()) assertTrue(SessionFunctions.mayCall(sql.toString()), sql.toString());
        }
        assertFalse(SessionFunctions.mayCall("SELECT id, name FROM users WHERE id = ?"));
        assertFalse(SessionFunctions.mayCall("SELECT user_id FROM t"));
        assertEquals("SELECT current_useré FROM t", s("SELECT current_useré FROM t"), "an identifier, not the function");
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
