package dev.paddock.host;

import dev.paddock.core.spi.FileChange;
import dev.paddock.core.spi.FileWatch;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The file watches open on each sandbox, so the end of a sandbox ends them at once: a watch holds descriptors of
 * the workspace's directories, which would otherwise keep the sandbox's disk image busy after its end.
 */
final class LiveWatches {
    private final Map<String, Set<FileWatch>> bySandbox = new ConcurrentHashMap<>();

    /** {@code watch}, registered under the sandbox until it is closed. */
    FileWatch register(String sandboxId, FileWatch watch) {
        FileWatch tracked = new FileWatch() {
            @Override public List<FileChange> next(Duration wait) { return watch.next(wait); }
            @Override public boolean ended() { return watch.ended(); }
            @Override public void close() {
                bySandbox.computeIfPresent(sandboxId, (id, set) -> {
                    set.remove(this);
                    return set.isEmpty() ? null : set;
                });
                watch.close();
            }
        };
        bySandbox.computeIfAbsent(sandboxId, id -> ConcurrentHashMap.newKeySet()).add(tracked);
        return tracked;
    }

    /** Ends every watch of the sandbox; their readers see them ended. */
    void endAll(String sandboxId) {
        Set<FileWatch> open = bySandbox.remove(sandboxId);
        if (open != null) open.forEach(FileWatch::close);
    }
}
