package org.lutra.txn;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A transaction's savepoints, oldest first, with MySQL's rules: names compare without case; setting
 * a name again moves it to the end; rolling back to one keeps it and drops the later ones; releasing
 * one drops it and the later ones. Each remembers which branches had written when it was set, so
 * that rolling back to it gives the branches back the read-only status they had then.
 */
final class Savepoints {
    record Mark(String name, Set<Branch> written) {}

    private final List<Mark> marks = new ArrayList<>();

    List<String> names() {
        return marks.stream().map(Mark::name).toList();
    }

    void set(String name, Set<Branch> written) {
        marks.removeIf(m -> m.name().equalsIgnoreCase(name));
        marks.add(new Mark(name, written));
    }

    /** The savepoint named so; MySQL's 1305 if there is none. */
    Mark find(String name) throws SQLException {
        return marks.get(indexOf(name));
    }

    /** Drops the savepoints set after {@code name}. */
    void dropAfter(String name) throws SQLException {
        marks.subList(indexOf(name) + 1, marks.size()).clear();
    }

    /** Drops {@code name} and the savepoints set after it. */
    void release(String name) throws SQLException {
        marks.subList(indexOf(name), marks.size()).clear();
    }

    private int indexOf(String name) throws SQLException {
        for (int i = 0; i < marks.size(); i++) {
            if (marks.get(i).name().equalsIgnoreCase(name)) return i;
        }
        throw doesNotExist(name);
    }

    static SQLException doesNotExist(String name) {
        return new SQLException("SAVEPOINT " + name + " does not exist", "42000", 1305);
    }

    /** The name as SQL text: back-quoted, a back-quote doubled. */
    static String quoted(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}
