package org.lutra.shards;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.IntStream;

/** One database that exists on every shard of {@code shards} (see {@link Shards#createDatabase}). */
public record ShardDatabase(Shards shards, String name) {

    public int size() {
        return shards.size();
    }

    /** JDBC URL of the database on shard {@code shard}. */
    public String url(int shard) {
        return shards.url(shard, name);
    }

    public List<String> urls() {
        return IntStream.range(0, size()).mapToObj(this::url).toList();
    }

    public Connection connect(int shard) throws SQLException {
        return shards.connect(shard, name);
    }

    public void drop() throws SQLException {
        shards.dropDatabase(name);
    }
}
