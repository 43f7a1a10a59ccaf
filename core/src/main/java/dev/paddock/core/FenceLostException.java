package dev.paddock.core;

import dev.paddock.core.spi.Fence;

/** A holder of a stale fence tried to change a sandbox that another owner (or a newer generation) now holds. */
public final class FenceLostException extends PaddockException {
    public FenceLostException(String sandboxId, Fence stale) {
        super(ErrorCode.FENCE_LOST,
                "sandbox " + sandboxId + " is now held by another owner or generation (stale generation "
                        + stale.generation() + "); re-read the sandbox and retry");
    }

    /** This host no longer owns the sandbox: another host took it over. */
    public FenceLostException(String sandboxId) {
        super(ErrorCode.FENCE_LOST, "sandbox " + sandboxId + " is now held by another host; this one no longer acts on it");
    }
}
