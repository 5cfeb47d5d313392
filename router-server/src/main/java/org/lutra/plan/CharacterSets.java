package org.lutra.plan;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * {@code SET NAMES}, {@code SET CHARACTER SET} and {@code SET character_set_client / _connection /
 * _results}, which MySQL clients send on connect or by habit. Between the driver and the router
 * text is Unicode (protobuf strings), and the router's backend connections are utf8mb4: a Unicode
 * set changes nothing and is acknowledged; any other set is refused, since the router would not
 * convert text to it.
 */
final class CharacterSets {
    private static final Pattern NAMES = Pattern.compile("(?is)\\s*SET\\s+(?:NAMES|CHARACTER\\s+SET|CHARSET)\\s+['\"`]?(\\w+)['\"`]?"
            + "(?:\\s+COLLATE\\s+['\"`]?(\\w+)['\"`]?)?\\s*;?\\s*");
    private static final Pattern VARIABLE = Pattern.compile("(?is)\\s*SET\\s+(?:SESSION\\s+|LOCAL\\s+|@@SESSION\\.|@@LOCAL\\.|@@)?"
            + "character_set_(?:client|connection|results)\\s*:?=\\s*['\"`]?(\\w+)['\"`]?\\s*;?\\s*");

    private CharacterSets() {}

    /** Whether {@code sql} sets a Unicode character set for the session; throws for any other set. */
    static boolean acknowledged(String sql) throws PlanException {
        var m = NAMES.matcher(sql);
        String set;
        String collation = null;
        if (m.matches()) {
            set = m.group(1);
            collation = m.group(2);
        } else {
            var v = VARIABLE.matcher(sql);
            if (!v.matches()) return false;
            set = v.group(1);
        }
        String s = set.toLowerCase(Locale.ROOT);
        if (!s.equals("utf8mb4") && !s.equals("utf8") && !s.equals("utf8mb3") && !s.equals("default")) {
            throw PlanException.unsupported("the character set " + set + " through the router (text between the driver and the router is "
                    + "Unicode and the backends' connections are utf8mb4; use SET NAMES utf8mb4)");
        }
        if (collation != null) {
            throw PlanException.unsupported("SET NAMES ... COLLATE through the router yet (the connection collation of the backends is "
                    + "their default; comparisons of literals would follow it)");
        }
        return true;
    }
}
