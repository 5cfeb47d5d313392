package org.lutra.it.rqg;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One line of {@code rqg/regressions.sql}: {@code <statement>; -- <feature>: <what it tests>}. Lines
 * that are empty or start with {@code --} are comments. UPDATE, DELETE, INSERT and REPLACE lines compare the table
 * they write; a SELECT whose outermost ORDER BY is total must say so by ending the comment with
 * {@code [ordered]}.
 */
public record RegressionCase(int line, String feature, String description, Query query) {
    private static final Pattern LINE = Pattern.compile("(.*?);\\s*--\\s*([\\w-]+):\\s*(.*)");
    private static final Pattern DML = Pattern.compile("(?i)\\s*(?:UPDATE|DELETE\\s+FROM|(?:INSERT(?:\\s+IGNORE)?|REPLACE)\\s+INTO)\\s+(\\w+).*");

    public static List<RegressionCase> load(String resource) throws IOException {
        var in = RegressionCase.class.getResourceAsStream(resource);
        if (in == null) throw new IOException("no resource " + resource);
        var out = new ArrayList<RegressionCase>();
        try (var reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String text;
            int n = 0;
            while ((text = reader.readLine()) != null) {
                n++;
                if (text.isBlank() || text.strip().startsWith("--")) continue;
                var m = LINE.matcher(text);
                if (!m.matches()) throw new IOException(resource + ":" + n + ": expected '<statement>; -- <feature>: <what>', found " + text);
                out.add(new RegressionCase(n, m.group(2), m.group(3), query(m.group(1).strip(), m.group(2), m.group(3).endsWith("[ordered]"))));
            }
        }
        return out;
    }

    private static Query query(String sql, String feature, boolean ordered) {
        var dml = DML.matcher(sql);
        if (dml.matches()) return new Query.Dml(sql, dml.group(1), List.of(), Set.of(feature));
        return new Query.Verbatim(sql, ordered, Set.of(feature));
    }

    @Override
    public String toString() {
        return "regressions.sql:" + line + " [" + feature + "] " + query.sql();
    }
}
