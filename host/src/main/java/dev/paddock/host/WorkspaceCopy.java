package dev.paddock.host;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Workspace;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Copies one workspace into another as a tar stream between two threads: no archive touches the disk, holes stay
 * holes (sparse entries), and either workspace's own checks (paths, sizes, its disk limit) apply as in a restore.
 */
final class WorkspaceCopy {
    private static final int PIPE_BYTES = 1 << 20;

    private WorkspaceCopy() {}

    static void copy(Workspace from, Workspace to) {
        AtomicReference<RuntimeException> exportFailure = new AtomicReference<>();
        PipedInputStream in = new PipedInputStream(PIPE_BYTES);
        PipedOutputStream out;
        try {
            out = new PipedOutputStream(in);
        } catch (IOException e) {
            throw PaddockException.internal("cannot connect the workspace copy's pipe", e);
        }
        Thread exporter = Thread.ofVirtual().name("workspace-copy").start(() -> {
            try (out) {
                from.exportTar(Workspace.ROOT, out);
            } catch (IOException e) {
                exportFailure.set(PaddockException.internal("reading the source workspace failed", e));
            } catch (RuntimeException e) {
                exportFailure.set(e);
            }
        });
        try (in) {
            to.importTar(Workspace.ROOT, in);
            in.transferTo(OutputStream.nullOutputStream()); // the archive's trailing padding, so the exporter ends cleanly
        } catch (IOException e) {
            throw PaddockException.internal("writing the new workspace failed", e);
        } finally {
            // the importer is done (or failed and closed the pipe, which ends the exporter's writes)
            try {
                exporter.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (exportFailure.get() != null) throw exportFailure.get();
    }
}
