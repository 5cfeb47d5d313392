package org.lutra.server;

/**
 * A client connection the router tracks, whichever listener accepted it: counted against
 * {@code max_sessions}, swept when idle, found by its id for KILL.
 */
public interface ClientConnection {
    long id();

    /** The logged-in session; null while the connection is still in its login. */
    SessionCore core();

    /** Closes the connection if it has waited longer than {@code idleNanos} for its client's next request (MySQL's 4031, told first). */
    void closeIfIdle(long now, long idleNanos);

    /** Closes the connection from any thread; its session rolls back what it had open. */
    void close();

    /**
     * After its statement was stopped: waits, at most {@code millis}, until the command the connection runs has ended and
     * its answer is written to the client, so that a KILL QUERY is answered after the error of the statement it stopped
     * (a client that reads the two on two connections sees them in that order). Returns at once where the connection runs
     * no command, and on the connection's own thread (a session killing its own statement).
     */
    default void awaitCommandEnd(long millis) {}
}
