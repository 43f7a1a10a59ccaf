package dev.paddock.driver.bwrap.disk;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.CapacityExhaustedException;
import dev.paddock.workspace.Errno;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A sparse ext4 image per sandbox ({@code <images>/<id>.img}, root-only), loop-mounted over the sandbox's directory.
 * Works on any host filesystem that holds sparse files, as root with loop devices. A fresh image is a sparse copy of a
 * template made once per size ({@code template-<bytes>.img}; copying is about four times faster than mkfs), made
 * in-process ({@link SparseTemplate}) and loop-mounted in-process ({@link LoopMount}), so a
 * 1 GiB limit costs well under 1 MiB of real disk until the sandbox writes. The filesystem has no journal (the
 * workspace is not a database; it is checkpointed by tar), no blocks reserved for root ({@code -m 0}) and no
 * reserve for online growth ({@code ^resize_inode}: a 10 GiB image then takes about 230 KiB), and is
 * mounted {@code nosuid,nodev}; its root is the sandbox's directory (0711 root) and {@code lost+found} is removed.
 * While any image is mounted, the directory of all sandboxes is a mount of its own ({@link SandboxesMount}).
 */
public final class LoopImageQuota implements DiskQuota {
    private static final long TIMEOUT_SECONDS = 60;
    /** Disk mounts and the mount of their parent directory (see SandboxesMount), one at a time in this process. */
    private static final Object MOUNTS = new Object();
    private final Path images;
    private final Map<Long, Object> templateLocks = new ConcurrentHashMap<>();
    private final Map<Long, SparseTemplate> templates = new ConcurrentHashMap<>();

    public LoopImageQuota(Path images) {
        this.images = images;
    }

    /** What this host lacks for loop images; empty when they work. */
    public static Optional<String> problem() {
        if (!Files.exists(Path.of("/dev/loop-control"))) return Optional.of("no loop devices (/dev/loop-control is missing: modprobe loop)");
        if (which("mkfs.ext4").isEmpty()) return Optional.of("mkfs.ext4 is missing (Debian: e2fsprogs)");
        return Optional.empty();
    }

    @Override
    public String name() { return "loop_image"; }

    @Override
    public void create(String sandboxId, Path dir, long bytes) {
        Path image = image(sandboxId);
        Path tmp = images.resolve(sandboxId + ".img.partial");
        try {
            Files.createDirectories(images);
            Files.setPosixFilePermissions(images, PosixFilePermissions.fromString("rwx------"));
            Files.deleteIfExists(tmp); // left by a crash
            template(bytes).copyTo(tmp);
            Files.move(tmp, image, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            deleteQuietly(tmp);
            throw PaddockException.internal("cannot make the disk image of sandbox " + sandboxId + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            deleteQuietly(tmp);
            throw e;
        }
        try {
            mount(image, dir);
            // the filesystem's root is the sandbox's directory: passable by the sandbox's uid, listable by root only
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
            Path lostFound = dir.resolve("lost+found");
            if (Files.isDirectory(lostFound, LinkOption.NOFOLLOW_LINKS)) Files.delete(lostFound);
        } catch (IOException | RuntimeException e) {
            delete(sandboxId, dir);
            throw e instanceof PaddockException pe ? pe
                    : PaddockException.internal("cannot mount the disk of sandbox " + sandboxId + ": " + e.getMessage(), e);
        }
    }

    @Override
    public boolean ensureMounted(String sandboxId, Path dir) {
        Path image = image(sandboxId);
        if (!Files.isRegularFile(image, LinkOption.NOFOLLOW_LINKS)) return false;
        synchronized (this) {
            if (!isMountPoint(dir)) {
                try {
                    Files.createDirectories(dir);
                } catch (IOException e) {
                    throw PaddockException.internal("cannot create " + dir + ": " + e.getMessage(), e);
                }
                mount(image, dir);
            }
        }
        return true;
    }

    @Override
    public void unmount(String sandboxId, Path dir) {
        synchronized (this) {
            if (!isMountPoint(dir)) return;
            synchronized (MOUNTS) {
                try {
                    if (!LoopMount.unmount(dir)) {
                        // still in use (a host-side read in flight): detach now, the kernel frees it when the last user closes
                        LoopMount.detach(dir);
                    }
                } catch (Errno e) {
                    throw new PaddockException(ErrorCode.DISK_QUOTA_FAILED, "cannot unmount the disk at " + dir + ": " + e.getMessage());
                }
                SandboxesMount.release(dir.getParent());
            }
        }
    }

    @Override
    public void delete(String sandboxId, Path dir) {
        unmount(sandboxId, dir);
        deleteQuietly(image(sandboxId));
        deleteQuietly(images.resolve(sandboxId + ".img.partial"));
    }

    Path image(String sandboxId) {
        return images.resolve(sandboxId + ".img");
    }

    /** The empty filesystem of {@code bytes}, made once (mkfs) and copied sparsely for every sandbox. */
    private SparseTemplate template(long bytes) throws IOException {
        Path template = images.resolve("template-" + bytes + ".img");
        synchronized (templateLocks.computeIfAbsent(bytes, b -> new Object())) {
            SparseTemplate known = templates.get(bytes);
            if (known != null) return known;
            if (!Files.isRegularFile(template, LinkOption.NOFOLLOW_LINKS)) make(template, bytes);
            SparseTemplate made = SparseTemplate.of(template);
            templates.put(bytes, made);
            return made;
        }
    }

    private static void make(Path template, long bytes) throws IOException {
        Path tmp = template.resolveSibling(template.getFileName() + ".partial");
        Files.deleteIfExists(tmp);
        try (var ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.truncate(0);
            ch.position(bytes - 1);
            ch.write(ByteBuffer.wrap(new byte[1]));
        }
        run("mkfs.ext4", "-q", "-F", "-m", "0", "-O", "^has_journal,^resize_inode", "-E", "lazy_itable_init=1,nodiscard,root_owner=0:0", tmp.toString());
        Files.move(tmp, template, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void mount(Path image, Path dir) {
        synchronized (MOUNTS) {
            try {
                SandboxesMount.ensure(dir.getParent());
            } catch (Errno e) {
                // the disk works without it; only the launchers' mount namespaces keep the other sandboxes' disks
            }
            // noinit_itable: no background zeroing of inode tables, which would make the sparse image dense
            try {
                LoopMount.mountExt4(image, dir, "noinit_itable");
            } catch (Errno e) {
                SandboxesMount.release(dir.getParent());
                if (e.errno() == Errno.ENOSPC || e.errno() == Errno.ENOMEM || e.errno() == Errno.EAGAIN) {
                    throw new CapacityExhaustedException(ErrorCode.HOST_AT_CAPACITY, "cannot mount the disk image " + image.getFileName() + ": "
                            + e.getMessage() + " (the host is out of loop devices, mounts (fs.mount-max) or memory)");
                }
                throw new PaddockException(ErrorCode.DISK_QUOTA_FAILED, "cannot mount the disk image " + image.getFileName() + ": " + e.getMessage());
            }
        }
    }

    /** A directory is a mount point when it lives on another device than its parent. */
    static boolean isMountPoint(Path dir) {
        try {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) return false;
            Object own = Files.getAttribute(dir, "unix:dev", LinkOption.NOFOLLOW_LINKS);
            Object parent = Files.getAttribute(dir.getParent(), "unix:dev", LinkOption.NOFOLLOW_LINKS);
            return !own.equals(parent);
        } catch (IOException e) {
            return false;
        }
    }

    private static void run(String... command) {
        String out = exec(command);
        if (out != null) {
            throw new PaddockException(ErrorCode.DISK_QUOTA_FAILED, command[0] + " failed: " + Text.clip(out.trim(), 300));
        }
    }

    /** Null on success, else the command's output. */
    private static String exec(String... command) {
        List<String> cmd = new ArrayList<>(List.of(command));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "timed out";
            }
            return p.exitValue() == 0 ? null : (out.isBlank() ? "exit " + p.exitValue() : out);
        } catch (IOException e) {
            return e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static Optional<Path> which(String tool) {
        for (String dir : List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")) {
            Path p = Path.of(dir, tool);
            if (Files.isExecutable(p)) return Optional.of(p);
        }
        return Optional.empty();
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort: a leftover image is removed by the next purge
        }
    }
}
