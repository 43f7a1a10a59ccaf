package dev.paddock.host;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.ErrorType;
import dev.paddock.core.FileTrees;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.MemoryCheckpoints;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.UnsupportedCapabilityException;
import dev.paddock.core.spi.Workspace;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code workspace_tar} checkpoints: an archive of the workspace in the checkpoint directory ({@code checkpoint_dir},
 * by default {@code <data-dir>/checkpoints}; the directory 0700, each archive 0600), written as {@code .tar.partial}
 * under {@code .partials/<node>/} and renamed when complete, with its record in the store, which names the directory.
 * Several nodes may share one checkpoint directory: each writes and, at start-up, clears only its own partials, and
 * any of them reads every archive in it. An archive is moved in with a mark beside the node's partials that stays until
 * its record is stored, so an archive whose record a killed process never stored is found and deleted at the node's
 * next start, without guessing which archives in the shared directory are whose or still being recorded.
 * {@code memory} checkpoints, where the driver offers {@link MemoryCheckpoints}, add the driver's image of the
 * sandbox's processes beside the archive ({@code <id>.memory/}, written as {@code .memory.partial}); both count in the
 * tenant's storage quota. Restoring one ends the sandbox's runtime, puts the archive's files in place and starts the
 * saved processes again under the same id.
 * A checkpoint is taken, and a restore swapped in, while the sandbox is frozen (when its driver can freeze) behind the
 * sandbox's freeze gate, so calls into it wait instead of seeing it suspended. Archives stop at the server's maximum
 * and at what is left of the tenant's storage quota ({@link CheckpointCap}); one tenant's are taken one at a time.
 * Every method takes a record the host already found for the caller: tenant scoping is the host's.
 */
final class Checkpoints {
    private static final Logger log = LoggerFactory.getLogger(Checkpoints.class);
    private static final FileAttribute<?> PRIVATE_FILE = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    private static final FileAttribute<?> PRIVATE_DIR = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
    static final String WORKSPACE_TAR = "workspace_tar";
    private static final String MEMORY_SUFFIX = ".memory";
    private static final String LANDING_SUFFIX = ".landing";

    private final HostConfig config;
    private final OwnedSandboxes host;
    private final SandboxLocks locks;
    private final Path dir;
    /** Where this node writes archives until they are complete: no other node's start-up clears it. */
    private final Path partials;
    private final ToLongFunction<String> storedBytes;

    /**
     * Makes the directory private and deletes what a dead process of this node left half-written. {@code nodeId}: the
     * node this host is (null: a server alone, whose directory nobody shares). {@code storedBytes}: what a tenant
     * stores in all (these checkpoints and more), for its storage quota.
     */
    Checkpoints(HostConfig config, String nodeId, OwnedSandboxes host, SandboxLocks locks, ToLongFunction<String> storedBytes) {
        this.config = config;
        this.storedBytes = storedBytes;
        this.host = host;
        this.locks = locks;
        this.dir = config.checkpointsDir().toAbsolutePath().normalize();
        this.partials = dir.resolve(".partials").resolve(nodeId == null ? "host" : nodeId);
        try {
            Files.createDirectories(dir);
            // every tenant's workspace archives: the server's user alone may read them
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            Files.createDirectories(partials);
            deleteUnrecorded();
            deletePartials(nodeId == null);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create " + dir, e);
        }
    }

    /**
     * Archives the workspace. The archive may not grow past {@code maxCheckpointBytes} nor past what is left of the
     * tenant's {@code tenantStorageBytes}: writing stops there, the partial file is deleted and the call fails with
     * {@code checkpoint_too_large} or {@code storage_quota_exceeded}.
     */
    CheckpointRecord take(SandboxRecord r) {
        return take(r, WORKSPACE_TAR);
    }

    /**
     * A checkpoint of {@code type} ({@code workspace_tar}, or {@code memory} where the driver can save processes;
     * null is {@code workspace_tar}). A memory checkpoint saves the processes first and leaves them running, then
     * archives the files with the sandbox frozen; its sha256 is the archive's, its size the archive's plus the image's.
     */
    CheckpointRecord take(SandboxRecord r, String type) {
        return take(r, type, null);
    }

    /** {@link #take(SandboxRecord, String)}, named within the tenant when {@code name} is set (a snapshot). */
    CheckpointRecord take(SandboxRecord r, String type, String name) {
        String kind = type == null ? WORKSPACE_TAR : type;
        MemoryCheckpoints memory = switch (kind) {
            case WORKSPACE_TAR -> {
                requireSupported(r);
                yield null;
            }
            case MemoryCheckpoints.KIND -> requireMemory(r);
            default -> throw new PaddockException(ErrorCode.INVALID_CHECKPOINT_TYPE,
                    "checkpoint type must be workspace_tar or memory, got '" + Text.clip(kind, 40) + "'");
        };
        String id = r.id();
        return locks.withLock(id, () -> locks.withLock("tenant-storage:" + r.tenantId(), () -> {
            SandboxRecord cur = host.reload(id);
            Workspace ws = host.workspace(cur);
            Sandbox live = memory == null ? null : requireLive(cur);
            String cpId = Ids.newId("cp");
            Path target = archive(cpId);
            Path tmp = partials.resolve(cpId + ".tar.partial");
            Path imageTmp = partials.resolve(cpId + MEMORY_SUFFIX + ".partial");
            Path landing = partials.resolve(cpId + LANDING_SUFFIX);
            CheckpointCap cap = cap(r.tenantId());
            try {
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                if (memory != null) Files.createDirectory(imageTmp, PRIVATE_DIR);
                frozenWhile(cur, () -> {
                    // the processes first (the driver may let them run to save them), then their files, frozen
                    if (memory != null) memory.checkpoint(live, imageTmp, true);
                    try (OutputStream out = new DigestOutputStream(cap.bound(Files.newOutputStream(Files.createFile(tmp, PRIVATE_FILE))), sha)) {
                        ws.exportTar(Workspace.ROOT, out);
                    }
                    return null;
                });
                long size = Files.size(tmp);
                Files.createFile(landing, PRIVATE_FILE); // before any file lands where other nodes see it
                if (memory != null) {
                    size += treeSize(imageTmp);
                    if (size > cap.bytes()) throw new CheckpointCap.TooLarge();
                    Files.move(imageTmp, image(cpId), StandardCopyOption.ATOMIC_MOVE);
                }
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
                CheckpointRecord cp = new CheckpointRecord(cpId, id, r.tenantId(), kind, size,
                        HexFormat.of().formatHex(sha.digest()), host.clock().instant(), name, dir.toString());
                host.store().checkpoints().insert(cp);
                deleteQuietly(landing); // recorded: the archive is no orphan now
                host.event(cur, "sandbox.checkpointed", name == null ? Map.of("checkpoint_id", cpId, "size_bytes", cp.sizeBytes())
                        : Map.of("checkpoint_id", cpId, "size_bytes", cp.sizeBytes(), "snapshot", name));
                return cp;
            } catch (Exception e) {
                deleteQuietly(tmp);
                deleteQuietly(target); // moved in but not recorded (a name taken meanwhile): no record will ever list it
                deleteTreeQuietly(imageTmp);
                deleteTreeQuietly(image(cpId));
                if (!Files.exists(target) && !Files.exists(image(cpId))) deleteQuietly(landing); // else the next start retries
                throw cap.explain(e).orElseGet(() -> Operations.asPaddock("checkpoint", e));
            }
        }));
    }

    Page<CheckpointRecord> list(SandboxRecord r, PageRequest page) {
        return host.store().checkpoints().list(r.id(), page);
    }

    /** Replaces the running sandbox's workspace with the checkpoint's, all or nothing where the workspace can stage it. */
    SandboxRecord restore(SandboxRecord r, String checkpointId) {
        CheckpointRecord cp = find(r.tenantId(), checkpointId);
        if (cp.kind().equals(MemoryCheckpoints.KIND)) return restoreMemory(r, cp);
        requireSupported(r);
        String id = r.id();
        return locks.withLock(id, () -> {
            SandboxRecord cur = host.reload(id);
            if (cur.state().isTerminal()) {
                throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + id + " is " + cur.state().wireName() + "; restore into a running sandbox");
            }
            Workspace ws = host.usable(cur).workspace();
            // unpacked beside the workspace while the sandbox runs; frozen only for the swap (all or nothing)
            try (InputStream in = archiveOf(cp)) {
                ws.replaceFromTar(in, swap -> frozenFor(cur, swap));
            }
            host.event(cur, "sandbox.restored", Map.of("checkpoint_id", cp.id()));
            return host.reload(id);
        });
    }

    /**
     * Restores a memory checkpoint in place: the sandbox's runtime ends, the archive's files replace the workspace
     * and the saved processes start again under the same id (a suspended sandbox is suspended again). Calls into the
     * sandbox wait meanwhile. A sandbox that cannot be brought back is marked failed, with the reason.
     */
    private SandboxRecord restoreMemory(SandboxRecord r, CheckpointRecord cp) {
        MemoryCheckpoints memory = requireMemory(r);
        if (!cp.sandboxId().equals(r.id())) {
            throw new PaddockException(ErrorCode.CHECKPOINT_OF_ANOTHER_SANDBOX, "memory checkpoint " + cp.id() + " holds the processes of sandbox "
                    + cp.sandboxId() + "; start a new sandbox from it (from_checkpoint in POST /v1/sandboxes)");
        }
        String id = r.id();
        return locks.withLock(id, () -> {
            SandboxRecord cur = host.reload(id);
            if (cur.state().isTerminal()) {
                throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + id + " is " + cur.state().wireName() + "; restore into a running sandbox");
            }
            SandboxDriver driver = host.driver(cur);
            Sandbox old = host.live(id);
            try {
                locks.frozen(id, () -> {
                    if (old != null) old.terminate(TerminationReason.USER_REQUEST); // the runtime only: the files stay
                    Workspace ws = driver.workspace(OwnedSandboxes.ref(cur)).orElseThrow(() -> new PaddockException(ErrorCode.WORKSPACE_GONE,
                            "the driver kept no workspace of sandbox " + id + " to restore into"));
                    try (InputStream in = archiveOf(cp)) {
                        ws.replaceFromTar(in, Runnable::run);
                    }
                    Sandbox back = memory.restore(host.openEgress(cur.spec()), cur.fence(), memoryImage(cp));
                    if (cur.state() == SandboxState.SUSPENDED) back.suspend();
                    host.adopt(id, back);
                    return null;
                });
            } catch (Exception e) {
                String reason = "restoring memory checkpoint " + cp.id() + " failed: " + e.getMessage();
                host.fail(cur, ErrorCode.CHECKPOINT_FAILED.wire(), reason);
                throw e instanceof PaddockException pe ? pe : new PaddockException(ErrorCode.CHECKPOINT_FAILED, reason, e);
            }
            host.event(cur, "sandbox.restored", Map.of("checkpoint_id", cp.id(), "type", cp.kind()));
            return host.reload(id);
        });
    }

    /** The raw archive, for download. */
    InputStream data(String tenantId, String checkpointId) throws IOException {
        return archiveOf(find(tenantId, checkpointId));
    }

    /** Deletes a checkpoint of this sandbox: its archive and its record. One of another sandbox is not found. */
    void delete(SandboxRecord r, String checkpointId) {
        Ids.require("cp", checkpointId, "checkpoint id");
        CheckpointRecord cp = host.store().checkpoints().find(checkpointId)
                .filter(c -> c.tenantId().equals(r.tenantId()) && c.sandboxId().equals(r.id()))
                .orElseThrow(() -> PaddockException.notFound("checkpoint", checkpointId));
        locks.withLock(r.id(), () -> {
            deleteFiles(cp);
            return null;
        });
        host.event(r, "sandbox.checkpoint_deleted", Map.of("checkpoint_id", cp.id()));
    }

    /** Every checkpoint of a sandbox, for purge; the caller holds the sandbox's lock. */
    void deleteAll(SandboxRecord r) throws IOException {
        while (true) {
            Page<CheckpointRecord> page = host.store().checkpoints().list(r.id(), PageRequest.first(100));
            if (page.data().isEmpty()) return;
            for (CheckpointRecord cp : page.data()) deleteFiles(cp);
        }
    }

    /** A checkpoint of the tenant; another tenant's is not found. */
    CheckpointRecord find(String tenantId, String checkpointId) {
        Ids.require("cp", checkpointId, "checkpoint id");
        return host.store().checkpoints().find(checkpointId)
                .filter(c -> c.tenantId().equals(tenantId))
                .orElseThrow(() -> PaddockException.notFound("checkpoint", checkpointId));
    }

    private Path archive(String checkpointId) {
        return dir.resolve(checkpointId + ".tar");
    }

    /** The directory a checkpoint's files are in: the one its record names, else (written before records named it) this node's. */
    private Path dirOf(CheckpointRecord cp) {
        return cp.archiveDir() == null ? dir : Path.of(cp.archiveDir());
    }

    /** The checkpoint's workspace archive. */
    InputStream archiveOf(CheckpointRecord cp) throws IOException {
        return Files.newInputStream(dirOf(cp).resolve(cp.id() + ".tar"));
    }

    /** The directory this host keeps archives in (absolute). */
    Path directory() {
        return dir;
    }

    /** True when the checkpoint's archive is in this host's checkpoint directory, which other nodes may share. */
    boolean inThisDirectory(CheckpointRecord cp) {
        return cp.archiveDir() != null && Path.of(cp.archiveDir()).equals(dir);
    }

    MemoryCheckpoints requireMemory(SandboxRecord r) {
        SandboxDriver d = host.driver(r);
        Optional<MemoryCheckpoints> memory = d.memoryCheckpoints();
        if (memory.isEmpty() || !d.conformance().supportsCheckpoint(MemoryCheckpoints.KIND)) {
            throw new UnsupportedCapabilityException(d.id(), "memory checkpoints (saving a sandbox's processes)");
        }
        return memory.get();
    }

    private Sandbox requireLive(SandboxRecord r) {
        Sandbox s = host.live(r.id());
        if (s == null || r.state().isTerminal()) {
            throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + r.id() + " is " + r.state().wireName()
                    + "; a memory checkpoint saves the processes of a live sandbox");
        }
        return s;
    }

    private Path image(String checkpointId) {
        return dir.resolve(checkpointId + MEMORY_SUFFIX);
    }

    /** The saved processes of a memory checkpoint, for a sandbox started from it. */
    Path memoryImage(CheckpointRecord cp) {
        return dirOf(cp).resolve(cp.id() + MEMORY_SUFFIX);
    }

    private static long treeSize(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            long total = 0;
            for (Path p : files.filter(Files::isRegularFile).toList()) total += Files.size(p);
            return total;
        }
    }

    private void requireSupported(SandboxRecord r) {
        SandboxDriver d = host.driver(r);
        if (!d.conformance().supportsCheckpoint("workspace_tar")) {
            throw new UnsupportedCapabilityException(d.id(), "workspace_tar checkpoints");
        }
    }

    /** How much one new checkpoint of {@code tenantId} may hold, and which limit says so. */
    private CheckpointCap cap(String tenantId) {
        long limit = config.maxCheckpointBytes() > 0 ? config.maxCheckpointBytes() : Long.MAX_VALUE;
        if (config.tenantStorageBytes() > 0) {
            long left = config.tenantStorageBytes() - storedBytes.applyAsLong(tenantId);
            if (left <= 0) throw CheckpointCap.quotaExceeded(config.tenantStorageBytes());
            if (left < limit) return new CheckpointCap(left, true, config.tenantStorageBytes());
        }
        return new CheckpointCap(limit, false, config.maxCheckpointBytes());
    }

    /** Runs {@code work} with the sandbox frozen when it runs and its driver can freeze, for a consistent snapshot. */
    void frozenWhile(SandboxRecord r, Callable<Void> work) throws Exception {
        Sandbox s = host.live(r.id());
        boolean freeze = s != null && r.state() == SandboxState.RUNNING && host.driver(r).conformance().supportsSuspendResume();
        locks.frozen(r.id(), () -> {
            if (freeze) s.suspend();
            try {
                return work.call();
            } finally {
                if (freeze) s.resume();
            }
        });
    }

    /** {@link #frozenWhile} for a {@link Workspace.SwapGuard}, which takes no checked exceptions. */
    private void frozenFor(SandboxRecord r, Runnable swap) {
        try {
            frozenWhile(r, () -> {
                swap.run();
                return null;
            });
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw Operations.asPaddock("restore", e);
        }
    }

    /** The archive first: a record without its file would be listed but not restorable, a file without record is an orphan. */
    private void deleteFiles(CheckpointRecord cp) throws IOException {
        Files.deleteIfExists(dirOf(cp).resolve(cp.id() + ".tar"));
        FileTrees.delete(memoryImage(cp));
        try {
            host.store().checkpoints().delete(cp.id());
        } catch (PaddockException e) {
            if (e.type() != ErrorType.NOT_FOUND) throw e;
        }
    }

    /**
     * Archives this node moved into the directory whose record the previous process of this node never stored
     * (killed in between): no record names them, so nothing would ever list or delete them. Only marked ones, which
     * are this node's; none of its writes is in flight while the host starts. A mark whose record cannot be looked up
     * (the store unreachable) stays for the next start.
     */
    private void deleteUnrecorded() throws IOException {
        List<Path> marks;
        try (Stream<Path> files = Files.list(partials)) {
            marks = files.filter(p -> p.getFileName().toString().endsWith(LANDING_SUFFIX)).toList();
        }
        for (Path mark : marks) {
            String name = mark.getFileName().toString();
            String cpId = name.substring(0, name.length() - LANDING_SUFFIX.length());
            try {
                if (host.store().checkpoints().find(cpId).isEmpty()) {
                    Files.deleteIfExists(archive(cpId));
                    FileTrees.delete(image(cpId));
                    log.info("deleted checkpoint archive {} of {}: its record was never stored", cpId, dir);
                }
            } catch (RuntimeException e) {
                log.warn("cannot tell whether checkpoint {} was recorded; kept until the next start: {}", cpId, e.getMessage());
                continue;
            }
            Files.delete(mark);
        }
    }

    /**
     * A checkpoint being written when the previous process of this node died is never listed: its files go at
     * start-up. Only this node's: another node sharing the directory may be writing one right now. A server alone
     * also clears what versions before node-scoped partials left beside the archives.
     */
    private void deletePartials(boolean alone) throws IOException {
        try (Stream<Path> files = Files.list(partials)) {
            for (Path p : files.filter(p -> !p.getFileName().toString().endsWith(LANDING_SUFFIX)).toList()) FileTrees.delete(p);
        }
        if (!alone) return;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(p -> p.getFileName().toString().endsWith(".partial")).toList()) FileTrees.delete(p);
        }
    }

    private static void deleteTreeQuietly(Path root) {
        try {
            FileTrees.delete(root);
        } catch (IOException ignored) {
            // best effort: a partial image is never listed and goes at the next start
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort: a partial checkpoint file is never listed
        }
    }
}
