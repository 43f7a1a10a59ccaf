package dev.paddock.core.spi;

import java.io.OutputStream;
import java.time.Duration;

/** A command started by {@link Sandbox#exec}. Closing the handle kills the command if it still runs. */
public interface ExecHandle extends AutoCloseable {
    /** The command's stdin; closing it sends end-of-file. */
    OutputStream stdin();

    /** Waits until the command ends (the request's timeout is enforced by the driver) and returns how. */
    ExecResult await() throws InterruptedException;

    /** Waits at most {@code wait}; null when the command is still running. */
    ExecResult await(Duration wait) throws InterruptedException;

    /** Kills the command and everything it started (SIGKILL to its process group). */
    void kill();

    @Override
    default void close() {
        kill();
    }
}
