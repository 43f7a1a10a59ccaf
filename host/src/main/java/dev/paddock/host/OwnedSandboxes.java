package dev.paddock.host;

import dev.paddock.access.Principal;
import dev.paddock.core.spi.CredentialBinding;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.Workspace;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.Store;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * The host as its policy classes see it ({@link Sweeper}, {@link OrphanReaper}, {@link Reconciler},
 * {@link RuntimeWatch}, {@link Checkpoints}, {@link Forks}): records and backends of the sandboxes this host owns, and the
 * lifecycle moves they may make, each under the sandbox's lock and fenced like a caller's.
 */
interface OwnedSandboxes {
    String ownerId();

    Clock clock();

    Store store();

    /** Every sandbox the store calls active, this host's or not. */
    List<SandboxRecord> activeRecords();

    Map<String, SandboxDriver> drivers();

    /** The record's driver; {@code driver_not_loaded} when this server has not loaded it. */
    SandboxDriver driver(SandboxRecord r);

    /** The current record, which this host must still own ({@code fence_lost} otherwise). */
    SandboxRecord reload(String id);

    /** The attached sandbox, or null. */
    Sandbox live(String id);

    /** The attached sandbox ready for work (an idle-suspended one is resumed on the way); refused when it is not running. */
    Sandbox usable(SandboxRecord r);

    /** The sandbox's workspace, also after it ended where its driver keeps it ({@code workspace_gone} otherwise). */
    Workspace workspace(SandboxRecord r);

    /** A re-attached sandbox becomes this host's. */
    void adopt(String id, Sandbox sandbox);

    /** Opens the sandbox's egress listener when its policy lets it out (idempotent). */
    SandboxSpec openEgress(SandboxSpec spec);

    void event(SandboxRecord r, String type, Map<String, Object> data);

    Instant lastActivity(SandboxRecord r);

    /** Persists the activity kept in memory. */
    void flushActivity(SandboxRecord r);

    SandboxRecord suspend(SandboxRecord r, String reason);

    SandboxRecord terminate(SandboxRecord r, TerminationReason reason);

    /** Marks a sandbox whose backend is gone as failed, with the reason, and releases what is left of it. */
    void fail(SandboxRecord r, String code, String reason);

    /** Runs {@code body} under the sandbox's lock when no operation holds it; otherwise does nothing. */
    void ifUnlocked(String id, Runnable body);

    // ---------------------------------------------------------------- what new sandboxes made from others need (Forks)

    /** The tenant-scoped lookup of a caller's sandbox (another tenant's is not found). */
    SandboxRecord find(Principal caller, String id);

    /** A loaded driver by id ({@code driver_not_loaded} otherwise) that can run here. */
    SandboxDriver loadedDriver(String driverId);

    /** Refuses a sandbox whose driver cannot run on this host ({@code driver_unavailable}). */
    void requireDriverRuns(SandboxRecord r);

    /** Refuses a network or credentials this host's egress cannot serve. */
    void requireEgress(NetworkPolicy network, List<CredentialBinding> credentials);

    /**
     * Creates a sandbox as the API does (already shaped by its template), counted like any create; {@code fill}
     * (when not null) gets the new sandbox before its record says running.
     */
    SandboxRecord create(Principal caller, SandboxRequest request, SandboxDriver driver, Consumer<Sandbox> fill);

    /**
     * Brings an inserted record's backend up through {@code backend} (bounded by the operation timeout, named
     * {@code op}); the record runs after, or is failed with the reason.
     */
    SandboxRecord start(SandboxRecord record, SandboxDriver driver, String op, Callable<Sandbox> backend);

    /** Deletes and purges a new sandbox whose files could not be brought in (best effort). */
    void removeUnfinished(Principal caller, SandboxRecord created);

    static SandboxRef ref(SandboxRecord r) {
        return new SandboxRef(r.id(), r.driver(), r.handle());
    }
}
