package dev.paddock.host.terminal;

/**
 * Whoever is attached to a terminal (a WebSocket). Called on the terminal's reader thread, one call at a time;
 * a call may block (that slows the command's output down instead of buffering without bound).
 */
public interface TerminalViewer {
    void output(byte[] data);

    /** The command ended: its exit code, or null when the sandbox went away under it. */
    void exited(Integer exitCode);

    /** Another client attached to the same terminal; this one is detached. */
    void replaced();
}
