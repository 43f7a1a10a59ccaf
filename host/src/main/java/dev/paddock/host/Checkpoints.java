package dev.paddock.host;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.ErrorType;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxState;
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
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code workspace_tar} checkpoints: an archive of the workspace in {@code <data-dir>/checkpoints} (the directory
 * 0700, each archive 0600), written as {@code .tar.partial} and renamed when complete, with its record in the store.
 * A checkpoint is taken, and a restore swapped in, while the sandbox is frozen (when its driver can freeze) behind the
 * sandbox's freeze gate, so calls into it wait instead of seeing it suspended. Archives stop at the server's maximum
 * and at what is left of the tenant's storage quota ({@link CheckpointCap}); one tenant's are taken one at a time.
 * Every method takes a record the host already found for the caller: tenant scoping is the host's.
 */
final class Checkpoints {
    private static final FileAttribute<?> PRIVATE_FILE = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private final HostConfig config;
    private final OwnedSandboxes host;
    private final SandboxLocks locks;
    private final Path dir;

    /** Makes the directory private and deletes what a dead host left half-written. */
    Checkpoints(HostConfig config, OwnedSandboxes host, SandboxLocks locks) {
        this.config = config;
        this.host = host;
        this.locks = locks;
        this.dir = config.checkpointsDir();
        try {
            Files.createDirectories(dir);
            // every tenant's workspace archives: the server's user alone may read them
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            deletePartials();
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
        requireSupported(r);
        String id = r.id();
        return locks.withLock(id, () -> locks.withLock("tenant-storage:" + r.tenantId(), () -> {
            SandboxRecord cur = host.reload(id);
            Workspace ws = host.workspace(cur);
            String cpId = Ids.newId("cp");
            Path target = archive(cpId);
            Path tmp = dir.resolve(cpId + ".tar.partial");
            CheckpointCap cap = cap(r.tenantId());
            try {
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                frozenWhile(cur, () -> {
                    try (OutputStream out = new DigestOutputStream(cap.bound(Files.newOutputStream(Files.createFile(tmp, PRIVATE_FILE))), sha)) {
                        ws.exportTar(Workspace.ROOT, out);
                    }
                    return null;
                });
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
                CheckpointRecord cp = new CheckpointRecord(cpId, id, r.tenantId(), "workspace_tar", Files.size(target),
                        HexFormat.of().formatHex(sha.digest()), host.clock().instant());
                host.store().checkpoints().insert(cp);
                host.event(cur, "sandbox.checkpointed", Map.of("checkpoint_id", cpId, "size_bytes", cp.sizeBytes()));
                return cp;
            } catch (Exception e) {
                deleteQuietly(tmp);
                throw cap.explain(e).orElseGet(() -> Operations.asPaddock("checkpoint", e));
            }
        }));
    }

    Page<CheckpointRecord> list(SandboxRecord r, PageRequest page) {
        return host.store().checkpoints().list(r.id(), page);
    }

    /** Replaces the running sandbox's workspace with the checkpoint's, all or nothing where the workspace can stage it. */
    SandboxRecord restore(SandboxRecord r, String checkpointId) {
        requireSupported(r);
        CheckpointRecord cp = find(r.tenantId(), checkpointId);
        String id = r.id();
        return locks.withLock(id, () -> {
            SandboxRecord cur = host.reload(id);
            if (cur.state().isTerminal()) {
                throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + id + " is " + cur.state().wireName() + "; restore into a running sandbox");
            }
            Workspace ws = host.usable(cur).workspace();
            // unpacked beside the workspace while the sandbox runs; frozen only for the swap (all or nothing)
            try (InputStream in = Files.newInputStream(archive(cp.id()))) {
                ws.replaceFromTar(in, swap -> frozenFor(cur, swap));
            }
            host.event(cur, "sandbox.restored", Map.of("checkpoint_id", cp.id()));
            return host.reload(id);
        });
    }

    /** The raw archive, for download. */
    InputStream data(String tenantId, String checkpointId) throws IOException {
        return Files.newInputStream(archive(find(tenantId, checkpointId).id()));
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

    private CheckpointRecord find(String tenantId, String checkpointId) {
        return host.store().checkpoints().find(checkpointId)
                .filter(c -> c.tenantId().equals(tenantId))
                .orElseThrow(() -> PaddockException.notFound("checkpoint", checkpointId));
    }

    private Path archive(String checkpointId) {
        return dir.resolve(checkpointId + ".tar");
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
            long left = config.tenantStorageBytes() - host.store().checkpoints().totalBytes(tenantId);
            if (left <= 0) throw CheckpointCap.quotaExceeded(config.tenantStorageBytes());
            if (left < limit) return new CheckpointCap(left, true, config.tenantStorageBytes());
        }
        return new CheckpointCap(limit, false, config.maxCheckpointBytes());
    }

    /** Runs {@code work} with the sandbox frozen when it runs and its driver can freeze, for a consistent snapshot. */
    private void frozenWhile(SandboxRecord r, Callable<Void> work) throws Exception {
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
        Files.deleteIfExists(archive(cp.id()));
        try {
            host.store().checkpoints().delete(cp.id());
        } catch (PaddockException e) {
            if (e.type() != ErrorType.NOT_FOUND) throw e;
        }
    }

    /** A checkpoint being written when the previous host process died is never listed: its file goes at start-up. */
    private void deletePartials() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(p -> p.getFileName().toString().endsWith(".tar.partial")).toList()) Files.deleteIfExists(p);
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
