package org.lutra.exec;

/**
 * What the planner makes of one SQL text: a {@link Plan} the executor runs, or a
 * {@link SessionCommand} the session runs itself.
 */
public sealed interface Planned permits Plan, SessionCommand {
    /** How many '?' the statement has; Execute must bind exactly that many. */
    int paramCount();
}
