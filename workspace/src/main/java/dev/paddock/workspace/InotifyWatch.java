package dev.paddock.workspace;

import dev.paddock.core.spi.FileChange;
import dev.paddock.core.spi.FileChange.Kind;
import dev.paddock.core.spi.FileWatch;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A watch on a directory of a host-directory workspace, with Linux inotify. The workspace is hostile, so every
 * directory is reached the way the rest of this module reaches files: opened from its parent's descriptor with
 * O_NOFOLLOW | O_DIRECTORY (a symlink is never followed, in or out), and watched through that descriptor
 * ({@code /proc/self/fd/N}), never by a path. Each watched directory's descriptor is held until its watch ends, so a
 * new subdirectory is opened from the very directory the event came from. Changes are reported as sandbox paths.
 *
 * <p>Bounded against a sandbox that makes changes as fast as it can: at most {@code maxDirectories} directories
 * are watched (past that, one {@code overflow} says the tree is not fully watched), and one {@link #next} call
 * returns at most {@code maxBatch} paths, one entry per path (a path created and then written is one
 * {@code created}); a burst past that, or the kernel's own queue overflowing, ends the batch in one {@code overflow}.
 */
final class InotifyWatch implements FileWatch {
    static final int IN_MODIFY = 0x2, IN_CLOSE_WRITE = 0x8, IN_MOVED_FROM = 0x40, IN_MOVED_TO = 0x80, IN_CREATE = 0x100,
            IN_DELETE = 0x200, IN_DELETE_SELF = 0x400, IN_MOVE_SELF = 0x800, IN_Q_OVERFLOW = 0x4000, IN_IGNORED = 0x8000,
            IN_ONLYDIR = 0x1000000, IN_EXCL_UNLINK = 0x4000000, IN_ISDIR = 0x40000000;
    private static final int MASK = IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
            | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK;
    /** A burst's follow-ups that arrive this soon after its first event join its batch. */
    private static final int COALESCE_MILLIS = 20;
    private static final int BUFFER_BYTES = 64 * 1024;
    /** How often a waiting watch looks for events: the most a change waits before it is seen. */
    private static final Duration POLL_STEP = Duration.ofMillis(25);

    private record Watched(String path, Fd dir) {}

    private final int inotify;
    private final boolean recursive;
    private final int maxDirectories;
    private final int maxBatch;
    private final String rootPath;
    /** The watched directory itself, held open: its link count says when it was deleted (see {@link #rootDeleted}). */
    private final Fd rootDir;
    private final Map<Integer, Watched> watched = new HashMap<>();
    private final Map<String, Kind> batch = new LinkedHashMap<>();
    private boolean overflowed;
    private boolean ended;
    private boolean closed;

    /** Takes ownership of {@code root} (an open directory at sandbox path {@code rootPath}). */
    InotifyWatch(Fd root, String rootPath, boolean recursive, int maxDirectories, int maxBatch) {
        this.inotify = Posix.inotifyInit();
        this.recursive = recursive;
        this.maxDirectories = maxDirectories;
        this.maxBatch = maxBatch;
        this.rootPath = rootPath;
        this.rootDir = root;
        try {
            add(root, rootPath, false);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public synchronized List<FileChange> next(Duration wait) {
        if (closed) return List.of();
        if (batch.isEmpty() && !overflowed) {
            int millis = (int) Math.min(Math.max(wait.toMillis(), 0), Integer.MAX_VALUE);
            if (readableWithin(millis)) {
                drain();
                if (readableWithin(COALESCE_MILLIS)) drain();
            }
        } else {
            drain();
        }
        if (!ended && rootDeleted()) {
            ended = true;
            note(rootPath, Kind.DELETED);
        }
        List<FileChange> out = new ArrayList<>(batch.size() + 1);
        batch.forEach((path, kind) -> out.add(new FileChange(kind, path)));
        if (overflowed) out.add(new FileChange(Kind.OVERFLOW, rootPath));
        batch.clear();
        overflowed = false;
        return out;
    }

    /**
     * Waits up to {@code millis} for events without blocking in poll(2): a watch's reader is usually a virtual thread,
     * and one blocked in a native call holds its carrier, so a few watches would stall every other request of the
     * server. It sleeps between polls that do not wait instead, which lets the carrier go.
     */
    private boolean readableWithin(int millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!Posix.pollReadable(inotify, 0)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) return false;
            try {
                Thread.sleep(Duration.ofNanos(Math.min(left, POLL_STEP.toNanos())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    @Override
    public synchronized boolean ended() {
        return ended || closed;
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        watched.values().forEach(w -> w.dir().close());
        watched.clear();
        Posix.close(inotify);
    }

    /**
     * Whether the watched directory was deleted. The kernel reports a directory's own deletion only once nothing
     * holds it open, and this watch holds it (to open new subdirectories from it), so its link count tells instead.
     */
    private boolean rootDeleted() {
        try {
            return Posix.stat(rootDir.fd(), "").links() == 0;
        } catch (Errno e) {
            return true;
        }
    }

    /** Reads every queued event (the descriptor is non-blocking) into the batch. */
    private void drain() {
        byte[] events = new byte[BUFFER_BYTES];
        MemorySegment buf = MemorySegment.ofArray(events);
        for (int rounds = 0; rounds < 64; rounds++) { // bounded: a sandbox writing without pause must not hold us here
            int n;
            try {
                n = Posix.read(inotify, events, 0, BUFFER_BYTES);
            } catch (Errno e) {
                if (e.errno() == Errno.EAGAIN) return;
                throw e;
            }
            if (n <= 0) return;
            for (int pos = 0; pos + 16 <= n; ) {
                int wd = buf.get(ValueLayout.JAVA_INT_UNALIGNED, pos);
                int mask = buf.get(ValueLayout.JAVA_INT_UNALIGNED, pos + 4);
                int len = buf.get(ValueLayout.JAVA_INT_UNALIGNED, pos + 12);
                String name = len > 0 ? buf.getString(pos + 16) : "";
                handle(wd, mask, name);
                pos += 16 + len;
            }
        }
    }

    private void handle(int wd, int mask, String name) {
        if ((mask & IN_Q_OVERFLOW) != 0) {
            overflowed = true;
            return;
        }
        Watched dir = watched.get(wd);
        if (dir == null) return;
        if ((mask & IN_IGNORED) != 0) {
            watched.remove(wd).dir().close();
            if (dir.path().equals(rootPath)) ended = true; // deleted, or its filesystem unmounted with the sandbox's end
            return;
        }
        if ((mask & (IN_DELETE_SELF | IN_MOVE_SELF)) != 0) {
            if (dir.path().equals(rootPath)) {
                ended = true;
                note(rootPath, Kind.DELETED);
            }
            return; // a subdirectory's own end is reported by its parent
        }
        String path = dir.path() + "/" + name;
        boolean isDir = (mask & IN_ISDIR) != 0;
        if ((mask & (IN_CREATE | IN_MOVED_TO)) != 0) {
            note(path, Kind.CREATED);
            if (isDir && recursive) addChild(dir, name, path);
        } else if ((mask & (IN_DELETE | IN_MOVED_FROM)) != 0) {
            note(path, Kind.DELETED);
            if (isDir) forget(path);
        } else if ((mask & (IN_MODIFY | IN_CLOSE_WRITE)) != 0 && !isDir) {
            note(path, Kind.MODIFIED);
        }
    }

    /** One entry per path; a path created in this batch stays {@code created} when it is then written. */
    private void note(String path, Kind kind) {
        Kind before = batch.get(path);
        if (before == null && batch.size() >= maxBatch) {
            overflowed = true;
            return;
        }
        batch.put(path, before == Kind.CREATED && kind == Kind.MODIFIED ? Kind.CREATED : kind);
    }

    /** A new subdirectory: watched, and what was made in it before its watch began is reported as created. */
    private void addChild(Watched parent, String name, String path) {
        Fd child;
        try {
            child = Fd.openDirectory(parent.dir().fd(), name);
        } catch (Errno e) {
            return; // gone or swapped for a symlink since the event: nothing to follow
        }
        add(child, path, true);
    }

    /** A directory still to watch: its name in a watched (so open) parent. */
    private record Pending(Fd parent, String name, String path) {}

    /**
     * Watches {@code dir} and, when recursive, the directories below it (breadth first, up to the cap). Directories
     * wait as names and are opened one at a time when their turn comes, so a tree far wider than the cap (a sandbox
     * can make tens of thousands of directories) never holds more descriptors than the watched ones plus one.
     */
    private void add(Fd dir, String path, boolean reportEntries) {
        Deque<Pending> pending = new ArrayDeque<>();
        Watched w = new Watched(path, dir);
        while (w != null) {
            if (watched.size() >= maxDirectories) {
                overflowed = true;
                w.dir().close();
                return;
            }
            if (watch(w)) {
                for (String name : (recursive || reportEntries) ? Fd.names(w.dir().fd()) : List.<String>of()) {
                    String childPath = w.path() + "/" + name;
                    if (reportEntries) note(childPath, Kind.CREATED);
                    if (recursive) pending.add(new Pending(w.dir(), name, childPath));
                }
            }
            w = null;
            while (w == null && !pending.isEmpty()) {
                Pending next = pending.removeFirst();
                if (!next.parent().isOpen()) continue; // its parent's watch ended meanwhile (moved back): seen there
                try {
                    w = new Watched(next.path(), Fd.openDirectory(next.parent().fd(), next.name()));
                } catch (Errno e) {
                    // a file, a symlink or gone: not a directory to watch
                }
            }
        }
    }

    /** Adds the kernel watch of {@code w}; false when the kernel refused it (its watch limit) below the root. */
    private boolean watch(Watched w) {
        int wd;
        try {
            wd = Posix.inotifyWatchDescriptor(inotify, w.dir().fd(), MASK);
        } catch (Errno e) {
            w.dir().close();
            if (w.path().equals(rootPath)) throw e;
            overflowed = true; // the kernel's watch limit: the tree is not fully watched
            return false;
        }
        Watched old = watched.put(wd, w);
        if (old != null && old != w) old.dir().close(); // the same directory again (moved back): one watch
        return true;
    }

    /** Ends the watches of a directory moved or deleted away, and of everything below it. */
    private void forget(String path) {
        String below = path + "/";
        watched.entrySet().removeIf(e -> {
            String p = e.getValue().path();
            if (!p.equals(path) && !p.startsWith(below)) return false;
            Posix.inotifyRemoveWatch(inotify, e.getKey());
            e.getValue().dir().close();
            return true;
        });
    }
}
