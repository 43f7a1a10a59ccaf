package dev.paddock.driver.bwrap;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ended sandboxes whose disk image is mounted again so their files can be read, least recently read first. Each
 * mount holds a loop device until it is unmounted; without a bound, reading the files of many ended sandboxes would
 * use up the host's loop devices and stop every tenant's new sandboxes. The driver unmounts what {@link #read} evicts
 * (a later read mounts it again) and forgets a sandbox when its files are purged.
 */
final class EndedMounts {
    static final int DEFAULT_MAX = 32;

    private final int max;
    private final LinkedHashMap<String, SandboxPaths> mounted = new LinkedHashMap<>(16, 0.75f, true);

    EndedMounts(int max) {
        if (max < 1) throw new IllegalArgumentException("max must be at least 1");
        this.max = max;
    }

    /** Records a read of {@code paths}' files; returns the sandboxes to unmount now, oldest first. */
    synchronized List<SandboxPaths> read(SandboxPaths paths) {
        mounted.put(paths.sandboxId(), paths);
        List<SandboxPaths> evicted = new ArrayList<>();
        for (Iterator<Map.Entry<String, SandboxPaths>> it = mounted.entrySet().iterator(); mounted.size() > max; ) {
            evicted.add(it.next().getValue());
            it.remove();
        }
        return evicted;
    }

    synchronized void forget(String sandboxId) {
        mounted.remove(sandboxId);
    }

    /** Empties the set and returns what it held, for the driver to unmount when it closes. */
    synchronized List<SandboxPaths> drain() {
        List<SandboxPaths> all = new ArrayList<>(mounted.values());
        mounted.clear();
        return all;
    }
}
