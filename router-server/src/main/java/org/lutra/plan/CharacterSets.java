package org.lutra.plan;

import org.lutra.sql.PlanException;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * {@code SET NAMES}, {@code SET CHARACTER SET} and {@code SET character_set_client / _connection /
 * _results}, which MySQL clients send on connect or by habit. Between the driver and the router
 * text is Unicode (protobuf strings), and the router's backend connections are utf8mb4: a Unicode
 * set changes nothing and is acknowledged, and so does {@code character_set_results = NULL}; any
 * other set is refused, since the router would not convert text to it.
 */
final class CharacterSets {
    private static final Pattern NAMES = Pattern.compile("(?is)\\s*SET\\s+(?:NAMES|CHARACTER\\s+SET|CHARSET)\\s+['\"`]?(\\w+)['\"`]?"
            + "(?:\\s+COLLATE\\s+['\"`]?(\\w+)['\"`]?)?\\s*;?\\s*");
    private static final Pattern VARIABLE = Pattern.compile("(?is)\\s*SET\\s+(?:SESSION\\s+|LOCAL\\s+|@@SESSION\\.|@@LOCAL\\.|@@)?"
            + "character_set_(client|connection|results)\\s*:?=\\s*['\"`]?(\\w+)['\"`]?\\s*;?\\s*");

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
            set = v.group(2);
            // NULL results: each column in its own character set, as the column's definition names it (Connector/J sends it
            // on connect and after COM_RESET_CONNECTION). The router's answers are Unicode, and the MySQL listener names the
            // character set it encodes each column in, so a client decodes the same text either way.
            boolean quoted = "'\"`".indexOf(sql.charAt(v.start(2) - 1)) >= 0;
            if (v.group(1).equalsIgnoreCase("results") && set.equalsIgnoreCase("NULL") && !quoted) return true;
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
