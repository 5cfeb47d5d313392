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
}
