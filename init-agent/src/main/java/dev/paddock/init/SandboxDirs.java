package dev.paddock.init;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.FileTrees;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.Workspace;
import dev.paddock.workspace.HostDirWorkspace;
import dev.paddock.workspace.TarLimits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where one sandbox of a container driver (gvisor, docker) keeps its files under the driver's state directory:
 * {@code run/<id>/} while it runs (its meta file, log, and the control directory that is bound into the sandbox at
 * {@link SandboxLayout#CONTROL_DIR}, where init binds its socket) and {@code sandboxes/<id>/} for what outlives it
 * (workspace, outputs, the staging area, the generated /etc and egress files). The id is checked before it becomes
 * a path.
 */
public record SandboxDirs(String sandboxId, Path runDir, Path sandboxDir) {
    private static final Pattern SAFE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");
    /** sun_path holds 108 bytes including the terminating NUL. */
    private static final int MAX_SOCKET_PATH = 107;

    public static SandboxDirs of(String driver, Path stateDir, String sandboxId) {
        if (!isSafeId(sandboxId)) {
            throw new PaddockException(ErrorCode.INVALID_SANDBOX_ID, "sandbox ids for the " + driver
                    + " driver are 1-64 letters, digits, '_' or '-', got '" + Text.clip(sandboxId, 70) + "'");
        }
        SandboxDirs d = new SandboxDirs(sandboxId, stateDir.resolve("run").resolve(sandboxId), stateDir.resolve("sandboxes").resolve(sandboxId));
        if (d.socket().toString().length() > MAX_SOCKET_PATH) {
            throw new PaddockException(ErrorCode.DATA_DIR_TOO_LONG, "the " + driver + " driver's data directory path is too long for a unix"
                    + " socket path (" + d.socket() + "); use a shorter dataDir");
        }
        return d;
    }

    /** The directories of {@code ref}; empty for a ref that cannot be one of this driver's (null, an unsafe id). */
    public static Optional<SandboxDirs> of(String driver, Path stateDir, SandboxRef ref) {
        return ref == null || !isSafeId(ref.sandboxId()) ? Optional.empty() : Optional.of(of(driver, stateDir, ref.sandboxId()));
    }

    public static boolean isSafeId(String id) {
        return id != null && SAFE_ID.matcher(id).matches();
    }

    /** The sandboxes that have a run directory under {@code stateDir}, as refs of {@code driver}. */
    public static List<SandboxRef> list(String driver, Path stateDir) {
        Path run = stateDir.resolve("run");
        if (!Files.isDirectory(run)) return List.of();
        List<SandboxRef> out = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(run)) {
            dirs.map(d -> d.getFileName().toString()).filter(SandboxDirs::isSafeId).sorted()
                    .forEach(id -> out.add(new SandboxRef(id, driver, id)));
        } catch (IOException e) {
            throw PaddockException.internal("cannot list " + run + ": " + e.getMessage(), e);
        }
        return out;
    }

    /**
     * Creates each of {@code dirs} (and their parents) with the permissions {@code mode} ({@code "rwx------"}); an
     * existing one gets them too. For a driver's state directory at start.
     */
    public static void makeDirs(String mode, Path... dirs) {
        Path current = null;
        try {
            for (Path d : dirs) {
                current = d;
                Files.createDirectories(d);
                Files.setPosixFilePermissions(d, PosixFilePermissions.fromString(mode));
            }
        } catch (IOException e) {
            throw PaddockException.internal("cannot prepare the directory " + current + ": " + e.getMessage(), e);
        }
    }

    /** Creating the run directory is the claim on the id: of two concurrent creates, exactly one gets it. */
    public static void claimRunDir(String driver, String sandboxId, Path runDir) {
        try {
            Files.createDirectory(runDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (FileAlreadyExistsException e) {
            throw new PaddockException(ErrorCode.SANDBOX_EXISTS, "a " + driver + " sandbox with id " + sandboxId + " already runs; terminate it or use another id");
        } catch (IOException e) {
            throw PaddockException.internal("cannot create " + runDir + ": " + e.getMessage(), e);
        }
    }

    /** Deletes a directory tree without following symlinks (they are removed, not their targets). */
    public static void deleteTree(Path dir) {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) return;
        try {
            FileTrees.delete(dir);
        } catch (IOException | UncheckedIOException e) {
            throw PaddockException.internal("cannot remove " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Whether the sandbox runs, or was left half made, on this host: its run directory exists. */
    public boolean running() {
        return Files.exists(runDir, LinkOption.NOFOLLOW_LINKS);
    }

    /** The workspace, as the sandbox's processes ({@code uid}) own it. */
    public HostDirWorkspace openWorkspace(int uid) {
        return new HostDirWorkspace(workspace(), Workspace.ROOT, uid, uid, TarLimits.DEFAULT, staging());
    }

    public HostDirWorkspace openOutputs(int uid) {
        return new HostDirWorkspace(outputs(), Workspace.OUTPUTS, uid, uid, TarLimits.DEFAULT, staging());
    }

    /**
     * The workspace kept on the host, also after the sandbox ended; a restore the host died in is finished first
     * when nothing runs in it. Empty when there is none.
     */
    public Optional<Workspace> keptWorkspace(int uid) {
        if (!Files.isDirectory(workspace(), LinkOption.NOFOLLOW_LINKS)) return Optional.empty();
        HostDirWorkspace ws = openWorkspace(uid);
        if (!running()) ws.recover();
        return Optional.of(ws);
    }

    /** The outputs kept on the host, also after the sandbox ended; empty when there are none. */
    public Optional<Workspace> keptOutputs(int uid) {
        return Files.isDirectory(outputs(), LinkOption.NOFOLLOW_LINKS) ? Optional.of(openOutputs(uid)) : Optional.empty();
    }

    public Path meta() { return runDir.resolve("sandbox.properties"); }
    /** The container's stdout and stderr (init's notes). */
    public Path log() { return runDir.resolve("init.log"); }
    /** Bound read-write at {@link SandboxLayout#CONTROL_DIR}: init binds its control socket there, reachable from the host. */
    public Path controlDir() { return runDir.resolve("control"); }
    public Path socket() { return controlDir().resolve(SandboxLayout.CONTROL_SOCKET); }
    public Path workspace() { return sandboxDir.resolve("workspace"); }
    public Path outputs() { return sandboxDir.resolve("outputs"); }
    /** Upload temporaries and restores being unpacked: on the workspace's filesystem, never bound into the sandbox. */
    public Path staging() { return sandboxDir.resolve(".staging"); }
    /** The generated part of the sandbox's /etc; outside the workspace so the sandbox cannot change it. */
    public Path etc() { return sandboxDir.resolve("etc"); }
    public Path egressFiles() { return sandboxDir.resolve("egress"); }
}
