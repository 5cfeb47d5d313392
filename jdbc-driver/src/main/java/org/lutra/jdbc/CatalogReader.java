package org.lutra.jdbc;

import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The catalog queries of DatabaseMetaData, answered from what the router says about the logical
 * database: {@code SHOW FULL TABLES} (the router's catalog), and {@code SHOW FULL COLUMNS},
 * {@code SHOW INDEX}, {@code SHOW CREATE TABLE} (a partition's copy of the table). Patterns are
 * matched here, not sent: the answers are small and the driver then needs no escaping rules.
 *
 * <p>The logical database is the only catalog. A catalog argument of null or "" means it, as does
 * its own name; any other catalog has no tables (a server with only this database would say the
 * same). Schemas do not exist in MySQL; schema arguments are ignored, as Connector/J does.
 */
final class CatalogReader {
    private final LutraConnection connection;
    private final String database;
    private final boolean caseInsensitiveNames;

    CatalogReader(LutraConnection connection, String database, boolean caseInsensitiveNames) {
        this.connection = connection;
        this.database = database;
        this.caseInsensitiveNames = caseInsensitiveNames;
    }

    boolean isOurs(String catalog) {
        return catalog == null || catalog.isEmpty() || catalog.equals(database);
    }

    /** Names of the tables matching {@code pattern} (null = all), in the router's order. */
    List<String> tables(String catalog, String pattern) throws SQLException {
        var out = new ArrayList<String>();
        if (!isOurs(catalog)) return out;
        try (var st = statement(); var rs = st.executeQuery("SHOW FULL TABLES")) {
            while (rs.next()) {
                String name = rs.getString(1);
                if (Like.matches(pattern, name, caseInsensitiveNames)) out.add(name);
            }
        }
        return out;
    }

    /** One row of SHOW FULL COLUMNS. */
    record ColumnInfo(String name, String type, String collation, boolean nullable, String key, String defaultValue,
                      String extra, String comment, int position) {
        boolean autoIncrement() {
            return extra.toLowerCase(Locale.ROOT).contains("auto_increment");
        }

        boolean generated() {
            String e = extra.toUpperCase(Locale.ROOT);
            return e.contains("GENERATED") || e.contains("VIRTUAL") || e.contains("PERSISTENT") || e.contains("STORED");
        }

        boolean onUpdateCurrentTimestamp() {
            return extra.toLowerCase(Locale.ROOT).startsWith("on update current_timestamp");
        }
    }

    List<ColumnInfo> columns(String table) throws SQLException {
        var out = new ArrayList<ColumnInfo>();
        try (var st = statement(); var rs = st.executeQuery("SHOW FULL COLUMNS FROM " + quote(table))) {
            while (rs.next()) {
                out.add(new ColumnInfo(rs.getString("Field"), rs.getString("Type"), rs.getString("Collation"),
                        "YES".equalsIgnoreCase(rs.getString("Null")), nonNull(rs.getString("Key")), rs.getString("Default"),
                        nonNull(rs.getString("Extra")), nonNull(rs.getString("Comment")), out.size() + 1));
            }
        }
        return out;
    }

    /** One row of SHOW INDEX: a column of an index. */
    record IndexColumn(boolean nonUnique, String indexName, int seq, String column, String collation, long cardinality, String indexType) {}

    List<IndexColumn> indexes(String table) throws SQLException {
        var out = new ArrayList<IndexColumn>();
        try (var st = statement(); var rs = st.executeQuery("SHOW INDEX FROM " + quote(table))) {
            while (rs.next()) {
                out.add(new IndexColumn(rs.getInt("Non_unique") != 0, rs.getString("Key_name"), rs.getInt("Seq_in_index"),
                        rs.getString("Column_name"), rs.getString("Collation"), rs.getLong("Cardinality"), nonNull(rs.getString("Index_type"))));
            }
        }
        return out;
    }

    /** A foreign key of {@code table}, one entry per column pair. */
    record ForeignKey(String name, String table, List<String> columns, String referencedTable, List<String> referencedColumns,
                      int updateRule, int deleteRule) {}

    private static final Pattern FOREIGN_KEY = Pattern.compile(
            "CONSTRAINT\\s+`((?:[^`]|``)+)`\\s+FOREIGN KEY\\s+\\(([^)]*)\\)\\s+REFERENCES\\s+((?:`(?:[^`]|``)+`\\.)?`(?:[^`]|``)+`)\\s*\\(([^)]*)\\)([^\\n]*)",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern RULE = Pattern.compile("ON (DELETE|UPDATE) (CASCADE|SET NULL|SET DEFAULT|NO ACTION|RESTRICT)", Pattern.CASE_INSENSITIVE);

    /** The foreign keys in the table's DDL (SHOW CREATE TABLE), as MySQL prints them. */
    List<ForeignKey> foreignKeys(String table) throws SQLException {
        String ddl;
        try (var st = statement(); var rs = st.executeQuery("SHOW CREATE TABLE " + quote(table))) {
            if (!rs.next()) return List.of();
            ddl = rs.getString(2);
        }
        var out = new ArrayList<ForeignKey>();
        Matcher m = FOREIGN_KEY.matcher(ddl);
        while (m.find()) {
            String referenced = m.group(3);
            referenced = referenced.substring(referenced.lastIndexOf("`.`") >= 0 ? referenced.lastIndexOf("`.`") + 2 : 0);
            int update = DatabaseMetaData.importedKeyRestrict, delete = DatabaseMetaData.importedKeyRestrict;
            Matcher r = RULE.matcher(m.group(5));
            while (r.find()) {
                int rule = switch (r.group(2).toUpperCase(Locale.ROOT)) {
                    case "CASCADE" -> DatabaseMetaData.importedKeyCascade;
                    case "SET NULL" -> DatabaseMetaData.importedKeySetNull;
                    case "SET DEFAULT" -> DatabaseMetaData.importedKeySetDefault;
                    case "NO ACTION" -> DatabaseMetaData.importedKeyNoAction;
                    default -> DatabaseMetaData.importedKeyRestrict;
                };
                if (r.group(1).equalsIgnoreCase("DELETE")) delete = rule;
                else update = rule;
            }
            out.add(new ForeignKey(unquote(m.group(1)), table, names(m.group(2)), unquote(referenced), names(m.group(4)), update, delete));
        }
        return out;
    }

    private static List<String> names(String list) {
        var out = new ArrayList<String>();
        for (String part : list.split("`\\s*,\\s*`")) out.add(unquote(part.trim()));
        return out;
    }

    private static String unquote(String name) {
        String n = name.trim();
        if (n.startsWith("`")) n = n.substring(1);
        if (n.endsWith("`")) n = n.substring(0, n.length() - 1);
        return n.replace("``", "`");
    }

    static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }

    private static String nonNull(String s) {
        return s == null ? "" : s;
    }

    private LutraStatement statement() {
        return new LutraStatement(connection, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY, ResultSet.CLOSE_CURSORS_AT_COMMIT);
    }

    /** SQL LIKE as DatabaseMetaData patterns use it: % any run, _ any character, backslash escapes the next. */
    static final class Like {
        private Like() {}

        static boolean matches(String pattern, String text, boolean ignoreCase) {
            if (pattern == null) return true;
            if (ignoreCase) {
                pattern = pattern.toLowerCase(Locale.ROOT);
                text = text.toLowerCase(Locale.ROOT);
            }
            return match(pattern, 0, text, 0);
        }

        // Backtracks only to the latest %: O(pattern x text), whatever the pattern.
        private static boolean match(String p, int pi, String t, int ti) {
            int starP = -1, starT = -1;
            while (ti < t.length()) {
                if (pi < p.length() && p.charAt(pi) == '%') {
                    starP = ++pi;
                    starT = ti;
                } else if (pi < p.length() && one(p, pi, t.charAt(ti))) {
                    pi += p.charAt(pi) == '\\' && pi + 1 < p.length() ? 2 : 1;
                    ti++;
                } else if (starP >= 0) {
                    pi = starP;
                    ti = ++starT;
                } else {
                    return false;
                }
            }
            while (pi < p.length() && p.charAt(pi) == '%') pi++;
            return pi == p.length();
        }

        private static boolean one(String p, int pi, char c) {
            char pc = p.charAt(pi);
            if (pc == '\\' && pi + 1 < p.length()) return p.charAt(pi + 1) == c;
            return pc == '_' || pc == c;
        }
    }
}
