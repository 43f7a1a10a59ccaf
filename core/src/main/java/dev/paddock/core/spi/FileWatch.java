package dev.paddock.core.spi;

import java.time.Duration;
import java.util.List;

/** A watch on a directory of a sandbox's workspace ({@link Workspace#watch}); closing it releases what it holds. */
public interface FileWatch extends AutoCloseable {
    /**
     * The changes since the last call, coalesced (one entry per path; a burst past the cap ends in one
     * {@link FileChange.Kind#OVERFLOW}), waiting up to {@code wait} for the first; empty when none came.
     */
    List<FileChange> next(Duration wait);

    /** Whether nothing more will come: the watched directory itself is gone (deleted or moved away), or the watch was closed. */
    boolean ended();

    @Override
    void close();
}
