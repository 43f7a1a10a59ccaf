package dev.paddock.core.agents;

/**
 * An owner's append refused: another node runs the session's loop now (this one lost its lease and a survivor took
 * the session over). The loop that meets it stops without writing anything more.
 */
public final class SessionMovedException extends RuntimeException {
    public SessionMovedException(String sessionId, String ownerId) {
        super("session " + sessionId + " is no longer run by " + ownerId);
    }
}
