package dev.paddock.workspace;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Workspace.SwapGuard;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A workspace's staging area: a host directory on the workspace's filesystem that the sandbox never sees. Uploads
 * make their temporary files here and rename them into place; a restore unpacks the new tree here and then swaps the
 * top-level entries by rename. What an entry's name says is its state, so that a crash at any point can be undone
 * or finished by {@link #recover}:
 * <ul>
 *   <li>{@code unpack-<id>}: an archive being unpacked; rolled back (deleted).</li>
 *   <li>{@code commit-<id>}: committed; the old entries are being moved from the workspace to {@code trash-<id>}.
 *       Rolled forward: move whatever is left, then rename to {@code swap-<id>}.</li>
 *   <li>{@code swap-<id>}: the old entries are all out; the new ones are being moved in. Rolled forward.</li>
 *   <li>{@code trash-<id>} and {@code .paddock-*.tmp}: deleted.</li>
 * </ul>
 * One process serves a data directory, so whatever this process is not using ({@link #LIVE}) is a leftover.
 */
final class Staging {
    /** Names in staging areas that this process is using right now; anything else found there is left from a crash. */
    static final Set<String> LIVE = ConcurrentHashMap.newKeySet();
    private static final ConcurrentHashMap<Path, ReentrantLock> LOCKS = new ConcurrentHashMap<>();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String UNPACK = "unpack-", COMMIT = "commit-", SWAP = "swap-", TRASH = "trash-";

    /** Tests stop a restore here to stand for a crash: "committed", "trashed" and "swapping" (one new entry moved in). */
    static volatile Consumer<String> crashPoint = phase -> { };

    private final Path dir;
    private final String virtualRoot;

    Staging(Path dir, String virtualRoot) {
        this.dir = dir.toAbsolutePath().normalize();
        this.virtualRoot = virtualRoot;
    }

    /** Opens the area, creating it (0700, the host's user only) on first use. */
    Fd open() {
        try {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(dir);
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            }
        } catch (IOException e) {
            throw PaddockException.internal("cannot create the staging area " + dir + ": " + e.getMessage(), e);
        }
        return new Fd(Posix.openat(Posix.AT_FDCWD, dir.toString(), Posix.O_RDONLY | Posix.O_DIRECTORY | Posix.O_NOFOLLOW, 0));
    }

    private ReentrantLock lock() {
        return LOCKS.computeIfAbsent(dir, d -> new ReentrantLock());
    }

    /**
     * Finishes a committed swap and removes leftovers. Skipped while this process is replacing the same workspace
     * (the replace recovers first itself). Runs without a guard: call it where the sandbox is frozen or not running.
     */
    void recover(Fd root) {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) return;
        ReentrantLock lock = lock();
        if (!lock.tryLock()) return;
        try (Fd area = open()) {
            recover(area, root, SwapGuard.NONE);
        } finally {
            lock.unlock();
        }
    }

    private void recover(Fd area, Fd root, SwapGuard guard) {
        List<String> names = Fd.names(area.fd());
        List<String> unfinished = names.stream().filter(n -> !LIVE.contains(n) && (n.startsWith(COMMIT) || n.startsWith(SWAP))).toList();
        if (!unfinished.isEmpty()) {
            guard.run(() -> {
                for (String n : unfinished) finish(area, root, n.substring(n.indexOf('-') + 1));
            });
        }
        for (String n : Fd.names(area.fd())) {
            boolean leftover = n.startsWith(UNPACK) || n.startsWith(TRASH) || (n.startsWith(".paddock-") && n.endsWith(".tmp"));
            if (leftover && !LIVE.contains(n)) Trees.delete(area.fd(), n, virtualRoot);
        }
    }

    /**
     * Unpacks {@code tar} beside the workspace, then swaps it in inside {@code guard}. A failed unpack leaves the
     * workspace as it was.
     */
    void replace(Fd root, TarImporter importer, InputStream tar, SwapGuard guard) {
        ReentrantLock lock = lock();
        lock.lock();
        String id = newId();
        List<String> mine = List.of(UNPACK + id, COMMIT + id, SWAP + id, TRASH + id);
        LIVE.addAll(mine);
        try (Fd area = open()) {
            recover(area, root, guard);
            requireSameFilesystem(root, area);
            Posix.mkdirat(area.fd(), UNPACK + id, 0700);
            try (Fd unpacked = Fd.openDirectory(area.fd(), UNPACK + id)) {
                importer.unpack(unpacked, virtualRoot, tar, area, AtomicFiles.Durability.NONE);
                Posix.syncfs(area.fd()); // one flush for the whole staged tree, before it can be committed
            } catch (RuntimeException e) {
                Trees.delete(area.fd(), UNPACK + id, virtualRoot);
                throw e;
            }
            guard.run(() -> {
                Posix.renameat(area.fd(), UNPACK + id, area.fd(), COMMIT + id); // the commit point
                Posix.fsync(area.fd());
                crashPoint.accept("committed");
                finish(area, root, id);
            });
            Trees.delete(area.fd(), TRASH + id, virtualRoot);
        } catch (Errno e) {
            throw WorkspaceErrors.of(e, virtualRoot);
        } finally {
            LIVE.removeAll(mine);
            lock.unlock();
        }
    }

    /** Rolls a committed swap forward from whichever phase it is in. */
    private void finish(Fd area, Fd root, String id) {
        if (exists(area, COMMIT + id)) {
            mkdirIfMissing(area, TRASH + id);
            try (Fd trash = Fd.openDirectory(area.fd(), TRASH + id)) {
                for (String name : Fd.names(root.fd())) move(root, name, trash, null);
                Posix.fsync(trash.fd());
                Posix.fsync(root.fd());
            }
            crashPoint.accept("trashed");
            Posix.renameat(area.fd(), COMMIT + id, area.fd(), SWAP + id);
            Posix.fsync(area.fd());
        }
        if (exists(area, SWAP + id)) {
            mkdirIfMissing(area, TRASH + id);
            try (Fd incoming = Fd.openDirectory(area.fd(), SWAP + id); Fd trash = Fd.openDirectory(area.fd(), TRASH + id)) {
                boolean first = true;
                for (String name : Fd.names(incoming.fd())) {
                    move(incoming, name, root, trash);
                    if (first) crashPoint.accept("swapping");
                    first = false;
                }
                Posix.fsync(root.fd());
            }
            Posix.unlinkat(area.fd(), SWAP + id, Posix.AT_REMOVEDIR);
            Posix.fsync(area.fd());
        }
    }

    /**
     * Renames {@code name} from {@code from} into {@code to}. Something already there (made after a crash, before
     * recovery) goes to {@code displaced}, or is deleted when that is null.
     */
    private void move(Fd from, String name, Fd to, Fd displaced) {
        try {
            Posix.renameat(from.fd(), name, to.fd(), name);
        } catch (Errno e) {
            if (e.errno() != Errno.EEXIST && e.errno() != Errno.ENOTEMPTY && e.errno() != Errno.EISDIR && e.errno() != Errno.ENOTDIR) throw e;
            if (displaced != null) move(to, name, displaced, null);
            else Trees.delete(to.fd(), name, virtualRoot);
            Posix.renameat(from.fd(), name, to.fd(), name);
        }
    }

    private static boolean exists(Fd dir, String name) {
        try {
            Posix.stat(dir.fd(), name);
            return true;
        } catch (Errno e) {
            if (e.errno() == Errno.ENOENT) return false;
            throw e;
        }
    }

    private static void mkdirIfMissing(Fd dir, String name) {
        try {
            Posix.mkdirat(dir.fd(), name, 0700);
        } catch (Errno e) {
            if (e.errno() != Errno.EEXIST) throw e;
        }
    }

    /** Renames cannot cross filesystems: a staging area elsewhere would fail half-way through a swap. */
    private void requireSameFilesystem(Fd root, Fd area) {
        if (Posix.device(root.fd()) != Posix.device(area.fd())) {
            throw PaddockException.internal("the staging area " + dir + " is not on the workspace's filesystem", null);
        }
    }

    private static String newId() {
        byte[] bytes = new byte[8];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
