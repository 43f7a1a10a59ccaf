package dev.paddock.core.spi;

import java.nio.file.Path;

/**
 * Process-memory checkpoints (the conformance checkpoint kind {@value #KIND}): a driver that can save a sandbox's
 * running processes (memory, threads, what they have open inside the sandbox) and start them again later, in the
 * same sandbox or in a new one. The workspace is not part of the image: the host saves and restores it beside it
 * (as a {@code workspace_tar} archive), so the pair is the whole sandbox.
 */
public interface MemoryCheckpoints {
    String KIND = "memory";

    /**
     * Saves the processes of a live sandbox into {@code imageDir} (an empty directory the host made; the driver owns
     * its content). With {@code leaveRunning} the sandbox goes on afterwards; without, its runtime ends once saved
     * (its memory is freed, its workspace stays) and only {@link #restore} brings it back.
     */
    void checkpoint(Sandbox sandbox, Path imageDir, boolean leaveRunning);

    /**
     * Starts the processes saved in {@code imageDir} as sandbox {@code spec.sandboxId()}: the same id after its
     * runtime ended (restore in place) or a new one (a fork). The sandbox's workspace must already hold the files the
     * processes expect; the host puts them there first.
     */
    Sandbox restore(SandboxSpec spec, Fence fence, Path imageDir);

    /**
     * The empty workspace of sandbox {@code sandboxId}, made before a {@link #restore} under that new id (a fork) so
     * the host can put the saved files in first. Refused while a sandbox with that id runs.
     */
    Workspace forkWorkspace(String sandboxId);
}
