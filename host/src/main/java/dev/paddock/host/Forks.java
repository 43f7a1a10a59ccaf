package dev.paddock.host;

import dev.paddock.access.Principal;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.MemoryCheckpoints;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.spi.UnsupportedCapabilityException;
import dev.paddock.core.spi.Workspace;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxRecord;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * New sandboxes made from others: forks of a running sandbox, and sandboxes started from a memory checkpoint or a
 * snapshot (a checkpoint named within the tenant), with the snapshots themselves. Each new sandbox has the settings
 * of its source and counts like any create; one whose files could not be brought in is deleted and purged.
 */
final class Forks {
    private static final Pattern SNAPSHOT_NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

    private final OwnedSandboxes host;
    private final Checkpoints checkpoints;
    private final SandboxLocks locks;

    Forks(OwnedSandboxes host, Checkpoints checkpoints, SandboxLocks locks) {
        this.host = host;
        this.checkpoints = checkpoints;
        this.locks = locks;
    }

    /**
     * A new sandbox running the processes of memory checkpoint {@code checkpointId} (a fork): the settings of the
     * checkpoint's sandbox (driver, image, limits, environment, network, credentials, timeouts), a workspace holding
     * the checkpoint's files, and the saved processes going on from where they were. The original is not touched.
     */
    SandboxRecord createFromCheckpoint(Principal caller, String checkpointId) {
        CheckpointRecord cp = checkpoints.find(caller.tenantId(), checkpointId);
        if (!cp.kind().equals(MemoryCheckpoints.KIND)) {
            throw new PaddockException(ErrorCode.INVALID_CHECKPOINT_TYPE, "checkpoint " + cp.id() + " is a " + cp.kind()
                    + " checkpoint: only memory checkpoints start a new sandbox; restore it into a sandbox instead");
        }
        SandboxRecord source = host.store().sandboxes().find(cp.sandboxId()).orElseThrow(() -> PaddockException.notFound("sandbox", cp.sandboxId()));
        SandboxDriver driver = host.loadedDriver(source.driver());
        MemoryCheckpoints memory = checkpoints.requireMemory(source);
        SandboxSpec from = source.spec();
        host.requireEgress(from.network(), from.credentials());
        String id = Ids.newId("sbx");
        Fence fence = new Fence(host.ownerId(), 1);
        Instant now = host.clock().instant();
        SandboxSpec spec = new SandboxSpec(id, caller.tenantId(), from.image(), from.writableRootfs(), from.limits(), from.env(),
                from.network(), from.credentials(), null, from.template());
        SandboxRecord record = new SandboxRecord(id, caller.tenantId(), driver.id(), SandboxState.CREATING, spec, fence, null,
                source.timeout(), source.idleSuspendAfter(), source.idleTerminateAfter(), now, now, now, null);
        host.store().sandboxes().insert(record);
        host.event(record, "sandbox.creating", Map.of("driver", driver.id(), "from_checkpoint", cp.id()));
        return host.start(record, driver, "create", () -> {
            try (InputStream files = checkpoints.archiveOf(cp)) {
                memory.forkWorkspace(id).importTar(Workspace.ROOT, files);
            }
            return memory.restore(host.openEgress(spec), fence, checkpoints.memoryImage(cp));
        });
    }

    /**
     * A new sandbox with the settings of a running or suspended one (driver, image, limits, environment, network,
     * credentials, lifetime) and a copy of its workspace, taken while the source is frozen (so the copy is
     * consistent) and streamed into the new workspace before the record is returned. Where the driver has memory
     * checkpoints and the source runs, its processes come along too: a memory checkpoint of the source (counted in
     * the tenant's storage while it exists) starts the new sandbox and is deleted after.
     */
    SandboxRecord fork(Principal caller, String id) {
        SandboxRecord source = host.find(caller, id);
        if (source.state() != SandboxState.RUNNING && source.state() != SandboxState.SUSPENDED) {
            throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + source.id() + " is " + source.state().wireName()
                    + "; only a running or suspended sandbox is forked (start a new one from a snapshot instead)");
        }
        host.requireDriverRuns(source);
        SandboxDriver driver = host.driver(source);
        if (!driver.conformance().supportsCheckpoint(Checkpoints.WORKSPACE_TAR)) {
            throw new UnsupportedCapabilityException(driver.id(), "forking a sandbox (its workspace cannot be copied: no workspace_tar)");
        }
        SandboxRecord forked = source.state() == SandboxState.RUNNING && driver.conformance().supportsCheckpoint(MemoryCheckpoints.KIND)
                ? forkWithMemory(caller, source) : forkFiles(caller, source, driver);
        host.event(source, "sandbox.forked", Map.of("sandbox_id", forked.id()));
        host.event(forked, "sandbox.forked_from", Map.of("sandbox_id", source.id()));
        return forked;
    }

    private SandboxRecord forkWithMemory(Principal caller, SandboxRecord source) {
        CheckpointRecord cp = checkpoints.take(source, MemoryCheckpoints.KIND);
        try {
            return createFromCheckpoint(caller, cp.id());
        } finally {
            checkpoints.delete(source, cp.id());
        }
    }

    /** The copy is made while the new record still says creating: a crash meanwhile never leaves half a workspace running. */
    private SandboxRecord forkFiles(Principal caller, SandboxRecord source, SandboxDriver driver) {
        return createFilled(caller, settingsOf(source, driver), driver, forked -> locks.withLock(source.id(), () -> {
            SandboxRecord cur = host.reload(source.id());
            try {
                checkpoints.frozenWhile(cur, () -> {
                    WorkspaceCopy.copy(host.workspace(cur), forked.workspace());
                    return null;
                });
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw Operations.asPaddock("fork", e);
            }
            return null;
        }));
    }

    /** A create filled before it runs; one whose filling fails is ended (failed, with the reason) and its files purged. */
    private SandboxRecord createFilled(Principal caller, SandboxRequest request, SandboxDriver driver, Consumer<Sandbox> fill) {
        AtomicReference<String> made = new AtomicReference<>();
        try {
            return host.create(caller, request, driver, sandbox -> {
                made.set(sandbox.ref().sandboxId());
                fill.accept(sandbox);
            });
        } catch (RuntimeException e) {
            if (made.get() != null) host.removeUnfinished(caller, host.reload(made.get()));
            throw e;
        }
    }

    // ---------------------------------------------------------------- snapshots: named checkpoints of a tenant

    /**
     * A snapshot: a checkpoint of {@code type} ({@code workspace_tar}, the default, or {@code memory}) of sandbox
     * {@code id}, named {@code name} within the tenant. It is stored, counted and limited as every checkpoint (the
     * storage quota, max_checkpoint_size) and goes with the sandbox's checkpoints when the sandbox is purged.
     */
    CheckpointRecord snapshot(Principal caller, String id, String name, String type) {
        requireSnapshotName(name);
        if (host.store().checkpoints().findByName(caller.tenantId(), name).isPresent()) {
            throw new PaddockException(ErrorCode.DUPLICATE_NAME, "a snapshot named '" + name + "' already exists; delete it or pick another name");
        }
        return checkpoints.take(host.find(caller, id), type, name);
    }

    Page<CheckpointRecord> snapshots(Principal caller, PageRequest page) {
        return host.store().checkpoints().listNamed(caller.tenantId(), page);
    }

    CheckpointRecord snapshot(Principal caller, String name) {
        requireSnapshotName(name);
        return host.store().checkpoints().findByName(caller.tenantId(), name).orElseThrow(() -> PaddockException.notFound("snapshot", name));
    }

    void deleteSnapshot(Principal caller, String name) {
        CheckpointRecord cp = snapshot(caller, name);
        SandboxRecord source = host.store().sandboxes().find(cp.sandboxId()).orElseThrow(() -> PaddockException.notFound("snapshot", name));
        checkpoints.delete(source, cp.id());
    }

    /**
     * A new sandbox from snapshot {@code name}: the settings of the snapshot's sandbox, a workspace holding its files
     * and, for a memory snapshot, its processes going on from where they were. A failed import deletes the new sandbox.
     */
    SandboxRecord createFromSnapshot(Principal caller, String name) {
        CheckpointRecord cp = snapshot(caller, name);
        if (cp.kind().equals(MemoryCheckpoints.KIND)) return createFromCheckpoint(caller, cp.id());
        SandboxRecord source = host.store().sandboxes().find(cp.sandboxId()).orElseThrow(() -> PaddockException.notFound("snapshot", name));
        SandboxDriver driver = host.loadedDriver(source.driver());
        // the files are imported while the new record still says creating, as a fork's are
        SandboxRecord created = createFilled(caller, settingsOf(source, driver), driver, sandbox -> {
            try (InputStream files = checkpoints.archiveOf(cp)) {
                sandbox.workspace().importTar(Workspace.ROOT, files);
            } catch (IOException | RuntimeException e) {
                throw Operations.asPaddock("create from snapshot", e);
            }
        });
        host.event(created, "sandbox.restored", Map.of("checkpoint_id", cp.id(), "snapshot", name));
        return created;
    }

    private static void requireSnapshotName(String name) {
        if (name == null || !SNAPSHOT_NAME.matcher(name).matches()) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'name' must be 1-64 characters of a-z 0-9 . _ - starting with a letter or digit, got '"
                    + Text.clip(String.valueOf(name), 70) + "'");
        }
    }

    /** A request for a new sandbox with the settings of {@code source}, already shaped by its template. */
    private static SandboxRequest settingsOf(SandboxRecord source, SandboxDriver driver) {
        SandboxSpec s = source.spec();
        return new SandboxRequest(driver.id(), s.image(), s.writableRootfs(), s.limits(), s.env(), s.network(),
                source.timeout(), source.idleSuspendAfter(), source.idleTerminateAfter(), s.credentials(), s.template(), Map.of());
    }
}
