package dev.paddock.app.serve;

import dev.paddock.store.JdbcStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Notices when the files this server's safety rests on are deleted or replaced under it: the data directory's lock
 * file (unlinked, a second server could lock a new one and take the sandboxes over) and the database with its WAL
 * (deleted, every later commit would go to a file nobody reads again). Checked around every store write (a stat of
 * three files) and every second while idle; either stops all store writes for good, so nothing is acknowledged that
 * could be lost and no sandbox is changed by a server that may no longer own it.
 */
final class DataDirWatch implements AutoCloseable {
    private final Map<Path, Object> identities = new LinkedHashMap<>();
    private final JdbcStore store;
    private final ScheduledExecutorService timer =
            Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("paddock-data-dir-watch").factory());

    DataDirWatch(JdbcStore store, Path... files) {
        this.store = store;
        for (Path f : files) identities.put(f, identity(f));
    }

    DataDirWatch start() {
        store.guardWrites(this::problem);
        timer.scheduleWithFixedDelay(() -> {
            String problem = problem();
            if (problem != null) store.stopWrites(problem);
        }, 1, 1, TimeUnit.SECONDS);
        return this;
    }

    /** What changed under this server, or null while every watched file is the one that was there at start. */
    String problem() {
        for (Map.Entry<Path, Object> e : identities.entrySet()) {
            Object now = identity(e.getKey());
            if (e.getValue() != null && !Objects.equals(e.getValue(), now)) {
                return e.getKey().getFileName() + " was " + (now == null ? "deleted" : "replaced")
                        + " while this server ran, so what it writes could be lost or belong to another server";
            }
        }
        return null;
    }

    private static Object identity(Path f) {
        try {
            return Files.readAttributes(f, BasicFileAttributes.class).fileKey(); // (device, inode)
        } catch (IOException gone) {
            return null;
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
