package dev.paddock.driver.gvisor;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.MemoryCheckpoints;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.Workspace;
import dev.paddock.init.SandboxDirs;
import java.nio.file.Path;

/**
 * Process-memory checkpoints through {@code runsc checkpoint} and {@code runsc restore}. runsc cannot save a sandbox
 * with a host socket open inside, so init first closes its control socket, its host connections and the egress
 * relays (quiesce, see paddock-init.c) and binds again afterwards; commands running through exec at that moment end,
 * background processes go on. A suspended sandbox is resumed for the save (init must handle the signal) and
 * suspended again when it stays. Saving stops the container; one left running is restored from the image at once. A restore starts the saved processes from the same OCI bundle the driver writes for
 * a create, so mount points match; the host sources (a fork's own workspace) may differ.
 */
final class GvisorMemoryCheckpoints implements MemoryCheckpoints {
    private final GvisorDriver driver;

    GvisorMemoryCheckpoints(GvisorDriver driver) {
        this.driver = driver;
    }

    @Override
    public void checkpoint(Sandbox sandbox, Path imageDir, boolean leaveRunning) {
        if (!(sandbox instanceof GvisorSandbox s)) {
            throw new IllegalArgumentException("not a sandbox of the gvisor driver: " + sandbox.ref());
        }
        SandboxDirs paths = s.paths();
        boolean overlay = s.meta().overlay();
        boolean wasPaused = s.paused();
        if (wasPaused) s.resume();
        driver.quiesce(paths, overlay);
        try {
            driver.runsc().checkpoint(paths.sandboxId(), imageDir, overlay, paths.log());
        } catch (PaddockException e) {
            if (driver.runsc().state(paths.sandboxId(), overlay).map(Runsc.State::running).orElse(false)) {
                driver.serveAgain(paths, overlay);
                if (wasPaused) s.suspend();
            }
            throw new PaddockException(ErrorCode.CHECKPOINT_FAILED, "could not save the processes of sandbox " + paths.sandboxId() + ": " + e.getMessage(), e);
        }
        if (leaveRunning) {
            // the save stopped the container: it goes on from the image just written, under the same id
            driver.restoreInPlace(paths, s.meta(), imageDir);
            if (wasPaused) s.suspend();
        } else {
            // the runtime ended with the save: its memory is freed, its files stay for the restore
            s.ended();
            driver.release(paths, s.meta());
        }
    }

    @Override
    public Sandbox restore(SandboxSpec spec, Fence fence, Path imageDir) {
        return driver.start(spec, fence, imageDir);
    }

    @Override
    public Workspace forkWorkspace(String sandboxId) {
        return driver.newWorkspace(sandboxId);
    }
}
