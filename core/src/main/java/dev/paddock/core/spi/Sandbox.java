package dev.paddock.core.spi;

import java.util.List;

/**
 * A live sandbox on some backend. Methods a driver's {@link dev.paddock.core.conformance.Conformance} marks
 * unsupported throw {@link UnsupportedCapabilityException} at once. Implementations are thread-safe: many execs
 * and file operations may run concurrently.
 */
public interface Sandbox {
    SandboxRef ref();

    /** Starts a command; output goes to {@code output} as it arrives. */
    ExecHandle exec(ExecRequest request, ExecOutput output);

    /** Starts a command that outlives the call; its output is kept for {@link #processLogs}. */
    ProcessInfo startProcess(ExecRequest request);

    List<ProcessInfo> processes();

    /** Up to {@code maxBytes} of a background process's combined output, starting at {@code offset}. */
    byte[] processLogs(long pid, long offset, int maxBytes);

    /** Sends a signal to a background process's group. */
    void signalProcess(long pid, int signal);

    Workspace workspace();

    /**
     * The sandbox's {@code /mnt/session/outputs} as a workspace rooted there (paths read as
     * {@code /mnt/session/outputs/...}); drivers without it throw {@link UnsupportedCapabilityException}.
     */
    default Workspace outputs() {
        throw new UnsupportedCapabilityException(ref().driver(), "session outputs");
    }

    void suspend();

    void resume();

    /** Kills everything in the sandbox and releases its backend resources; the workspace stays on disk. */
    void terminate(TerminationReason reason);

    SandboxStatus inspect();

    /**
     * Whether the sandbox is alive and whether it is frozen, for the host's pass over every sandbox it holds (the other
     * fields may be unknown, -1). A driver that can tell both without waking the sandbox and without reading its usage
     * answers here more cheaply than {@link #inspect}; a busy host must not take a slow answer for a dead sandbox.
     */
    default SandboxStatus liveness() {
        return inspect();
    }

    /**
     * Starts a command on a new terminal (a pty allocated inside the sandbox, as its user, like any exec); output
     * arrives as {@link ExecOutput#stdout}. Drivers without terminals throw {@link UnsupportedCapabilityException}
     * (their conformance lists {@code terminal} as unavailable).
     */
    default TerminalHandle openTerminal(TerminalRequest request, ExecOutput output) {
        throw new UnsupportedCapabilityException(ref().driver(), "terminals");
    }

    /**
     * A byte stream to {@code 127.0.0.1:port} of the sandbox's own network namespace, relayed over the driver's own
     * channel into the sandbox: the handle's stdin is sent to the port, what the port answers arrives as
     * {@link ExecOutput#stdout}, and the stream ends when the server closes it. Exit code {@link #PORT_NOT_LISTENING}
     * when nothing listens there. Drivers that cannot throw {@link UnsupportedCapabilityException} (their
     * conformance lists {@code port_forward} as unavailable).
     */
    default ExecHandle connectPort(int port, ExecOutput output) {
        throw new UnsupportedCapabilityException(ref().driver(), "port forwarding");
    }

    /** The exit code of a {@link #connectPort} stream that found nothing listening on the port. */
    int PORT_NOT_LISTENING = 3;

    /**
     * Whether a sandbox that {@link #inspect} reports not alive is gone for good, so the host marks it failed. A driver
     * whose sandboxes come back by themselves (a browser tab reopened) answers false and reports presence otherwise.
     */
    default boolean goneWhenNotAlive() {
        return true;
    }
}
