package org.lutra.exec;

import org.lutra.protocol.Value;

import java.util.List;

/** One sub-query: the SQL and parameters one partition runs. */
public record ShardQuery(int partition, String sql, List<Value> params) {}
