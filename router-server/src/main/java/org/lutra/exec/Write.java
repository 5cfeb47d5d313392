package org.lutra.exec;

import java.sql.SQLException;

/**
 * A node of a write's plan: run once per execution, it changes rows and counts them. A write's plan is a tree of these
 * and of the reads it runs first (an INSERT ... SELECT's SELECT, an UPDATE's subqueries, the rows an UPDATE of the routing
 * column moves). Like an {@link Operator} it is immutable and shared by every session: everything one execution needs —
 * the parameters, the statement's connections, the router's counters, replicas and id blocks — comes in the {@link Context}.
 */
public interface Write extends Node {
    Result.Count run(Context ctx) throws SQLException;
}
