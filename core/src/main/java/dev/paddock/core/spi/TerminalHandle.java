package dev.paddock.core.spi;

/**
 * A command running on a terminal (a pty inside the sandbox), started by {@link Sandbox#openTerminal}. Its
 * {@link #stdin()} is what the user types and stays open until closed; its output (one stream: the terminal's)
 * arrives as {@link ExecOutput#stdout}.
 */
public interface TerminalHandle extends ExecHandle {
    /** Sets the terminal's size; the command gets SIGWINCH. Rows and columns are 1 to {@link TerminalRequest#MAX_SIZE}. */
    void resize(int rows, int cols);
}
