package org.lutra.merge;

import org.lutra.protocol.Column;
import org.lutra.protocol.Row;

import java.sql.SQLException;
import java.util.List;

/**
 * The rows of the first source that has any, the others closed unread: the fallback of a read of
 * one lookup key, whose rows all live on one partition. While a move of the key commits, the
 * target (committed first) and the source (not yet) both hold them; taking one partition's rows
 * keeps the reader from seeing them twice.
 */
public final class FirstAnsweringRows implements RowSource {
    private final List<RowSource> sources;
    private RowSource chosen;
    private boolean done;

    public FirstAnsweringRows(List<RowSource> sources) {
        this.sources = sources;
    }

    @Override
    public List<Column> columns() {
        return sources.getFirst().columns();
    }

    @Override
    public Row next() throws SQLException {
        if (chosen != null) return chosen.next();
        if (done) return null;
        for (RowSource s : sources) {
            Row row = s.next();
            if (row != null) {
                chosen = s;
                for (RowSource other : sources) {
                    if (other != s) other.close();
                }
                return row;
            }
            s.close();
        }
        done = true;
        return null;
    }

    @Override
    public void close() {
        sources.forEach(RowSource::close);
    }
}
