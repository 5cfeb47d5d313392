package org.lutra.plan;

import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SetOperationList;

import org.lutra.sql.LockInShareMode;

import java.util.List;

/**
 * {@code INSERT ... SELECT ... JOIN y ON c ON DUPLICATE KEY UPDATE ...}, which MariaDB runs and JSQLParser (5.4) does
 * not read: it takes the clause's {@code ON} for a second condition of the join. Read again with {@code WHERE TRUE} put
 * before the clause (the same rows: the select had no WHERE, or the join would not end it), and the WHERE taken out of
 * the tree afterwards, so that every text the router sends is the client's statement.
 */
final class UpsertAfterJoin {
    private static final String WHERE = " WHERE TRUE ";

    private UpsertAfterJoin() {}

    /** {@code sql} with {@code WHERE TRUE} before its top-level {@code ON DUPLICATE KEY UPDATE}; null when it has none. */
    static String forParser(String sql) {
        List<LockInShareMode.Token> tokens = LockInShareMode.tokens(sql);
        if (tokens.isEmpty() || !tokens.get(0).upper().equals("INSERT")) return null;
        int depth = 0;
        for (int i = 0; i + 3 < tokens.size(); i++) {
            String word = tokens.get(i).upper();
            if (word.equals("(")) depth++;
            else if (word.equals(")")) depth--;
            else if (depth == 0 && word.equals("ON") && tokens.get(i + 1).upper().equals("DUPLICATE") && tokens.get(i + 2).upper().equals("KEY")
                    && tokens.get(i + 3).upper().equals("UPDATE")) {
                int at = tokens.get(i).start();
                return sql.substring(0, at) + WHERE + sql.substring(at);
            }
        }
        return null;
    }

    /**
     * Takes the added {@code WHERE TRUE} out of {@code read} (parsed from {@link #forParser}'s text); false when the
     * statement is not the one this is for (an INSERT whose select's last part joins, with that WHERE), which then stays a
     * syntax error.
     */
    static boolean restore(Statement read) {
        if (!(read instanceof Insert insert) || insert.getSelect() == null || insert.getDuplicateUpdateSets() == null) return false;
        Select select = insert.getSelect();
        if (select instanceof SetOperationList union) select = union.getSelects().get(union.getSelects().size() - 1);
        if (!(select instanceof PlainSelect last) || last.getJoins() == null || last.getJoins().isEmpty() || last.getWhere() == null
                || !last.getWhere().toString().equalsIgnoreCase("TRUE")) {
            return false;
        }
        last.setWhere(null);
        return true;
    }
}
