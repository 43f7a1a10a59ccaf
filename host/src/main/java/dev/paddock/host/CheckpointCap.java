package dev.paddock.host;

import dev.paddock.core.CappedOutputStream;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Optional;

/**
 * The most bytes one checkpoint archive may take, and which setting says so: the archive is written through
 * {@link #bound}, which fails the write that would pass the cap, so a workspace of sparse files or of more than the
 * host's disk never becomes an archive larger than allowed.
 */
record CheckpointCap(long bytes, boolean byQuota, long setting) {

    static PaddockException quotaExceeded(long quota) {
        return new PaddockException(ErrorCode.STORAGE_QUOTA_EXCEEDED, "this tenant's checkpoints, skills and files already take its storage quota of "
                + quota + " bytes; delete some (DELETE /v1/sandboxes/{id}/checkpoints/{checkpoint_id}, DELETE /v1/files/{file_id}) first");
    }

    OutputStream bound(OutputStream out) {
        return new CappedOutputStream(out, bytes, () -> {
            throw new TooLarge();
        });
    }

    /** The error to report when {@code e} is the cap's own refusal. */
    Optional<PaddockException> explain(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TooLarge) {
                if (byQuota) {
                    return Optional.of(new PaddockException(ErrorCode.STORAGE_QUOTA_EXCEEDED, "the checkpoint would pass this tenant's "
                            + "storage quota of " + setting + " bytes (" + bytes + " bytes left); delete checkpoints or files first"));
                }
                return Optional.of(new PaddockException(ErrorCode.CHECKPOINT_TOO_LARGE, "the checkpoint would be larger than this server's maximum of "
                        + setting + " bytes (max_checkpoint_size); remove files from the workspace first"));
            }
        }
        return Optional.empty();
    }

    static final class TooLarge extends IOException {
        TooLarge() { super("checkpoint size cap reached"); }
    }
}
