package dev.paddock.host;

import dev.paddock.access.Principal;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.FenceLostException;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.spi.CredentialBinding;
import dev.paddock.core.spi.EgressPort;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.FileWatch;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.ProcessInfo;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.spi.SandboxStatus;
import dev.paddock.core.spi.TerminalHandle;
import dev.paddock.core.spi.TerminalRequest;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.UnsupportedCapabilityException;
import dev.paddock.core.spi.Workspace;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxEvent;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.Store;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime host: owns every sandbox's lifecycle on top of replaceable drivers. It keeps the durable record
 * (state, fence, handle) in the store, talks to the driver, enforces lifetime and idle policy, reaps orphans at
 * start-up, and writes an event for every lifecycle change. All calls are tenant-scoped: a sandbox of another
 * tenant is reported as not found. Kinds of sandbox ({@link SandboxTemplate}), warm pools ({@link WarmPool}),
 * checkpoints ({@link Checkpoints}), egress leases ({@link EgressLeases}) and per-sandbox locks
 * ({@link SandboxLocks}) are parts of their own; this class coordinates them.
 */
public final class RuntimeHost implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RuntimeHost.class);

    private final HostConfig config;
    private final Store store;
    private final Map<String, SandboxDriver> drivers;
    private final Clock clock;
    private final SandboxDriver defaultDriver;
    private final EgressLeases egress;
    private final Templates templates = new Templates();
    private final WarmPools warmPools = new WarmPools();
    private volatile boolean started;
    private volatile String sandboxFreeDriver;
    /** Whose sandboxes this host looks after; a node that rejoins its cluster gets a new one ({@link #rejoin}). */
    private volatile HostOwner owner;
    private volatile String ownerId;
    private final LiveSandboxes live;
    private final CreateRules rules;
    private final SandboxLocks locks = new SandboxLocks();
    private final LiveWatches watches = new LiveWatches();
    private final Operations operations;
    private final OwnedSandboxes owned = new Owned();
    private final Checkpoints checkpoints;
    private final Forks forks;
    private final HandedOver handedOver;
    /** What else a tenant keeps stored beside its checkpoints (skills, files), for the one storage quota. */
    private final List<ToLongFunction<String>> otherStoredBytes = new CopyOnWriteArrayList<>();
    private final SweepPause sweepPause;
    private final ScheduledExecutorService sweeper =
            Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("paddock-sweeper").factory());

    public RuntimeHost(HostConfig config, Store store, Collection<SandboxDriver> drivers, Clock clock) {
        this(config, store, drivers, null, clock);
    }

    /** With {@code egress} null, only network mode {@code none} is available: anything else is refused. */
    public RuntimeHost(HostConfig config, Store store, Collection<SandboxDriver> drivers, EgressPort egress, Clock clock) {
        this(config, store, drivers, egress, clock, HostOwner.alone());
    }

    /** A host that acts on the sandboxes {@code owner} looks after: all of them, or those of its node. */
    public RuntimeHost(HostConfig config, Store store, Collection<SandboxDriver> drivers, EgressPort egress, Clock clock, HostOwner owner) {
        this.owner = owner;
        this.ownerId = owner.ownerId();
        this.config = config;
        this.sweepPause = new SweepPause(config.sweepInterval());
        this.egress = new EgressLeases(egress);
        this.store = store;
        this.clock = clock;
        this.operations = new Operations(config.operationTimeout());
        Map<String, SandboxDriver> byId = new LinkedHashMap<>();
        for (SandboxDriver d : drivers) byId.put(d.id(), d);
        this.drivers = Collections.unmodifiableMap(byId); // keeps the order given: the default driver first
        this.live = new LiveSandboxes(clock);
        this.rules = new CreateRules(config, this.drivers);
        this.defaultDriver = byId.get(config.defaultDriver());
        if (!byId.containsKey(config.defaultDriver())) {
            throw new IllegalArgumentException("default driver '" + config.defaultDriver() + "' is not loaded; loaded: " + byId.keySet());
        }
        this.checkpoints = new Checkpoints(config, owner.nodeId(), owned, locks, this::storedBytes);
        this.forks = new Forks(owned, checkpoints, locks);
        this.handedOver = new HandedOver(owned, checkpoints, locks, operations, templates);
        if (config.warmPoolSize() > 0) addWarmPool(WarmProfile.plain(config.warmPoolSize()));
        RuntimeWatch watch = new RuntimeWatch(owned);
        byId.values().forEach(d -> d.watchRuntimes(watch));
    }

    /** Keeps sandboxes of {@code profile} started on the default driver ahead of demand; call before {@link #start()}. */
    public void addWarmPool(WarmProfile profile) {
        if (started) throw new IllegalStateException("warm pools are added before the host starts");
        // pooled sandboxes serve requests that name no disk limit: they start with the default one
        SandboxRequest t = profile.template();
        Limits limits = rules.withDefaultDisk(t.limits() == null ? Limits.DEFAULT : t.limits(), defaultDriver);
        warmPools.add(new WarmPool(defaultDriver, profile.withTemplate(t.withLimits(limits)), () -> ownerId, egress::open, egress::close));
    }

    /** Adds a kind of sandbox that create requests can name, and its warm pool if it has one; call before {@link #start()}. */
    public void addTemplate(SandboxTemplate template) {
        if (started) throw new IllegalStateException("templates are added before the host starts");
        templates.add(template);
        template.warmProfile().ifPresent(p -> addWarmPool(p.withTemplate(p.template().withTemplate(template.name()))));
    }

    /**
     * Counts what {@code source} says a tenant stores (bytes by tenant id) in the tenant's storage quota
     * ({@code tenantStorageBytes}), beside its checkpoints.
     */
    public void countStoredBytes(ToLongFunction<String> source) {
        otherStoredBytes.add(source);
    }

    /** The bytes a tenant stores on this server: its checkpoints and what {@link #countStoredBytes} added. */
    public long storedBytes(String tenantId) {
        long total = store.checkpoints().totalBytes(tenantId);
        for (ToLongFunction<String> source : otherStoredBytes) total += source.applyAsLong(tenantId);
        return total;
    }

    /** Reaps orphans left by an earlier host, restores what was handed to it, then starts the lifetime/idle sweeper. */
    public void start() {
        started = true;
        new OrphanReaper(owned).reapAll();
        restoreHandedOver();
        warmPools.refill(); // after reaping: the reaper destroys backend sandboxes no record owns
        scheduleSweep(config.sweepInterval().toMillis());
    }

    private void scheduleSweep(long delayMillis) {
        try {
            sweeper.schedule(() -> scheduleSweep(sweepPause.after(sweepSafely())), delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // the host closed
        }
    }

    public String ownerId() { return ownerId; }

    /**
     * Restores the sandboxes another node handed to this one after their node was lost (see {@link HandedOver});
     * a node calls this on every heartbeat. Returns the ids restored.
     */
    public List<String> restoreHandedOver() {
        return handedOver.restoreAll();
    }

    /**
     * Looks after the sandboxes of {@code next}, the new epoch of this host's node, as a restart would: this node's
     * old epoch lost its lease and its sandboxes went to other nodes (failed or restored there). What is attached
     * is let go, every active record of the node is taken over and re-attached or ended, backend sandboxes that no
     * active record owns are destroyed (warm pools' waiting ones excepted), and handed-over sandboxes are restored.
     */
    public synchronized void rejoin(HostOwner next) {
        if (!Objects.equals(next.nodeId(), owner.nodeId())) throw new IllegalArgumentException("a host rejoins as its own node");
        String before = ownerId;
        owner = next;
        ownerId = next.ownerId();
        for (String id : live.ids()) {
            watches.endAll(id);
            egress.close(id); // the reaper opens the listeners of the sandboxes it re-attaches again
        }
        live.clear();
        new OrphanReaper(owned).reapAll(warmPools.waitingIds());
        restoreHandedOver();
        log.info("host {} now looks after node {} as {}", before, next.nodeId(), ownerId);
    }

    /** The drivers this host runs sandboxes on now (a driver that cannot run here is left out). */
    public List<String> runnableDrivers() {
        return drivers.values().stream().filter(d -> d.unavailableReason().isEmpty()).map(SandboxDriver::id).toList();
    }

    /** How many sandboxes are attached to this host. */
    public int attachedCount() {
        return live.size();
    }

    public HostConfig config() { return config; }

    /** Whether the store can serve now (see {@link Store#checkReady}); for the readiness check. */
    public void checkStore() { store.checkReady(); }

    public List<Conformance> drivers() {
        return drivers.values().stream().map(SandboxDriver::conformance).toList();
    }

    /** Every driver this host knows, the default first, with why it cannot run here where it cannot. */
    public List<DriverStatus> driverStatuses() {
        return drivers.values().stream().map(d -> new DriverStatus(d.conformance(), d.unavailableReason().orElse(null))).toList();
    }

    /** A driver's claims and, when it cannot run on this host, the reason (null when it can). */
    public record DriverStatus(Conformance conformance, String unavailableReason) {
        public boolean available() {
            return unavailableReason == null;
        }
    }

    public int liveCount() { return live.size(); }

    /** True when the sandbox is attached to this host (in its live set); says nothing of whether this node still holds its lease. */
    public boolean attached(String id) { return live.get(id) != null; }

    /** Started sandboxes waiting in the warm pools. */
    public int warmCount() { return warmPools.available(); }

    /** The names of the warm pools' profiles. */
    public List<String> warmPoolNames() { return warmPools.names(); }

    /** Started sandboxes waiting in the warm pool of the profile named {@code name}. */
    public int warmCount(String name) { return warmPools.available(name); }

    /** The per-sandbox locks, for tests. */
    SandboxLocks locks() { return locks; }

    /** The host as its sweeper sees it; for tests. */
    OwnedSandboxes owned() { return owned; }

    /** The attached sandbox, or null; for tests. */
    Sandbox liveSandbox(String id) { return live.get(id); }

    // ---------------------------------------------------------------- lifecycle

    /**
     * Creates a sandbox, shaped first by the template it names; the driver reserved for sandbox-free sessions is
     * refused here (see {@link #createSandboxFree}).
     */
    public SandboxRecord create(Principal caller, SandboxRequest request) {
        SandboxRequest shaped = templates.apply(request);
        SandboxDriver driver = rules.driver(shaped.driver());
        if (driver.id().equals(sandboxFreeDriver)) {
            throw new PaddockException(ErrorCode.DRIVER_RESERVED, "driver '" + driver.id() + "' runs commands on the host without isolation and "
                    + "serves only sessions of environments of type 'none' on this server; pick another driver");
        }
        return create(caller, shaped, driver);
    }

    /**
     * Creates a "sandbox" on the driver reserved for sandbox-free sessions ({@link #reserveForSandboxFree}): commands
     * run on the host without isolation. Only the agents layer calls this, for environments of type {@code none}.
     */
    public SandboxRecord createSandboxFree(Principal caller, SandboxRequest request) {
        if (sandboxFreeDriver == null) {
            throw new PaddockException(ErrorCode.SANDBOX_FREE_UNAVAILABLE, "this server has no driver for sandbox-free sessions");
        }
        return create(caller, templates.apply(request).withDriver(sandboxFreeDriver), rules.driver(sandboxFreeDriver));
    }

    /**
     * Reserves a loaded driver for sandbox-free sessions: {@link #create} refuses it, so no API key can pick an
     * unisolated driver for a sandbox of its own; call before {@link #start()}.
     */
    public void reserveForSandboxFree(String driverId) {
        if (started) throw new IllegalStateException("reserve the sandbox-free driver before the host starts");
        if (driverId.equals(config.defaultDriver())) throw new IllegalArgumentException("the default driver cannot be reserved for sandbox-free sessions");
        rules.driver(driverId);
        this.sandboxFreeDriver = driverId;
    }

    /** The limits a sandbox of {@code driver} (null: the default) gets when its request names none; the defaults for an unknown driver. */
    public Limits defaultLimits(String driver) {
        return rules.defaultLimits(driver);
    }

    private SandboxRecord create(Principal caller, SandboxRequest request, SandboxDriver driver) {
        return create(caller, request, driver, null);
    }

    /**
     * A create whose new sandbox is handed to {@code fill} (when not null) before its record says running, so that a
     * crash while it is filled leaves a record still creating, which the restart fails, never a running sandbox with
     * half its files. A fill that fails destroys the sandbox and fails the record.
     */
    private SandboxRecord create(Principal caller, SandboxRequest request, SandboxDriver driver, Consumer<Sandbox> fill) {
        Duration timeout = rules.lifetime(request.timeout());
        Limits limits = rules.limits(request.limits(), driver);
        NetworkPolicy network = request.network() == null ? NetworkPolicy.NONE : request.network();
        egress.require(network, request.credentials() == null ? List.of() : request.credentials());
        // a pooled sandbox's id and fence become the record's
        Optional<WarmPools.Claim> warm = warmPools.claim(driver, request, e -> egress.claim(e, caller.tenantId(), network));
        Fence fence = warm.map(WarmPools.Claim::fence).orElseGet(() -> new Fence(ownerId, 1));
        String id = warm.map(c -> c.entry().spec().sandboxId()).orElseGet(() -> Ids.newId("sbx"));
        Instant now = clock.instant();
        SandboxSpec spec = new SandboxSpec(id, caller.tenantId(), request.image(), request.writableRootfs(),
                warm.isPresent() ? warm.get().entry().spec().limits() : limits, request.env(), request.network(),
                request.credentials(), null, request.template());
        SandboxRecord record = new SandboxRecord(id, caller.tenantId(), driver.id(), SandboxState.CREATING, spec, fence,
                null, timeout, rules.idleSuspendAfter(request), rules.idleTerminateAfter(request), now, now, now, null);
        store.sandboxes().insert(record);
        event(record, "sandbox.creating", Map.of("driver", driver.id(), "warm", warm.isPresent()));
        return start(record, driver, () -> {
            Sandbox sandbox = warm.isPresent() ? warm.get().entry().sandbox()
                    : operations.bounded("create", () -> warmPools.create(driver, egress.open(spec), fence));
            if (fill == null) return sandbox;
            try {
                fill.accept(sandbox);
            } catch (RuntimeException e) {
                try {
                    driver.destroy(sandbox.ref());
                } catch (RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
                throw e;
            }
            return sandbox;
        });
    }

    /** A new sandbox running the processes of a memory checkpoint; see {@link Forks#createFromCheckpoint}. */
    public SandboxRecord createFromCheckpoint(Principal caller, String checkpointId) {
        return forks.createFromCheckpoint(caller, checkpointId);
    }

    /** A new sandbox with the settings and a consistent copy of the workspace of another; see {@link Forks#fork}. */
    public SandboxRecord fork(Principal caller, String id) {
        return forks.fork(caller, id);
    }

    /** A checkpoint named within the tenant; see {@link Forks#snapshot(Principal, String, String, String)}. */
    public CheckpointRecord snapshot(Principal caller, String id, String name, String type) {
        return forks.snapshot(caller, id, name, type);
    }

    public Page<CheckpointRecord> snapshots(Principal caller, PageRequest page) {
        return forks.snapshots(caller, page);
    }

    public CheckpointRecord snapshot(Principal caller, String name) {
        return forks.snapshot(caller, name);
    }

    public void deleteSnapshot(Principal caller, String name) {
        forks.deleteSnapshot(caller, name);
    }

    /** A new sandbox from a snapshot; see {@link Forks#createFromSnapshot}. */
    public SandboxRecord createFromSnapshot(Principal caller, String name) {
        return forks.createFromSnapshot(caller, name);
    }

    private void removeUnfinished(Principal caller, SandboxRecord created) {
        try {
            delete(caller, created.id(), true);
        } catch (RuntimeException cleanup) {
            log.warn("could not remove the unfinished sandbox {}: {}", created.id(), cleanup.getMessage());
        }
    }

    /** {@link #start(SandboxRecord, SandboxDriver, Supplier)} with {@code backend} bounded by the operation timeout. */
    private SandboxRecord startBounded(SandboxRecord record, SandboxDriver driver, String op, Callable<Sandbox> backend) {
        return start(record, driver, () -> operations.bounded(op, backend));
    }

    /** Brings a new record's backend up through {@code backend}; the record runs after, or is failed with the reason. */
    private SandboxRecord start(SandboxRecord record, SandboxDriver driver, Supplier<Sandbox> backend) {
        String id = record.id();
        Sandbox sandbox;
        try {
            sandbox = backend.get();
        } catch (RuntimeException e) {
            egress.close(id);
            String reason = e instanceof PaddockException pe ? pe.getMessage() : "driver failed: " + e.getClass().getSimpleName();
            log.warn("create of {} on {} failed: {}", id, driver.id(), reason);
            transition(record, SandboxState.FAILED, reason);
            event(record, "sandbox.failed", Map.of("reason", reason));
            throw e;
        }
        live.attach(id, sandbox);
        store.sandboxes().setHandle(id, record.fence(), sandbox.ref().handle());
        SandboxRecord running = transition(record, SandboxState.RUNNING, null);
        event(running, "sandbox.running", Map.of());
        templates.created(running);
        return running;
    }

    public SandboxRecord get(Principal caller, String id) {
        return find(caller, id);
    }

    public Page<SandboxRecord> list(Principal caller, PageRequest page, boolean includeEnded) {
        return store.sandboxes().list(caller.tenantId(), page, includeEnded);
    }

    public Optional<SandboxStatus> status(Principal caller, String id) {
        SandboxRecord r = find(caller, id);
        Sandbox s = live.get(r.id());
        if (s == null || r.state().isTerminal()) return Optional.empty();
        return Optional.of(s.inspect());
    }

    public SandboxRecord suspend(Principal caller, String id) {
        return suspend(find(caller, id), "user_request");
    }

    public SandboxRecord resume(Principal caller, String id) {
        return resume(find(caller, id));
    }

    /**
     * Records the node labels a create asked for ({@code placement.node_labels}) with the sandbox, so that a node
     * it is relocated to after a node loss carries them too.
     */
    public void recordPlacement(Principal caller, String id, Map<String, String> nodeLabels) {
        if (nodeLabels == null || nodeLabels.isEmpty()) return;
        SandboxRecord r = find(caller, id);
        store.sandboxes().setNodeLabels(r.id(), r.fence(), nodeLabels);
    }

    /**
     * Changes the network policy of a running (or suspended) sandbox: validated as a create's, effective for new
     * connections at once (open ones are closed), recorded in its spec (a restarted host keeps it) and as a
     * {@code sandbox.network_changed} event with the old and the new policy. Credentials stay as they were bound
     * at the start. Only a sandbox with an egress listener can change (see {@link EgressLeases#change}).
     */
    public SandboxRecord changeNetwork(Principal caller, String id, NetworkPolicy network) {
        Objects.requireNonNull(network, "network");
        SandboxRecord found = find(caller, id);
        return locks.withLock(found.id(), () -> {
            SandboxRecord r = reload(found.id());
            if (r.state().isTerminal() || r.state() == SandboxState.CREATING) {
                throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + r.id() + " is " + r.state().wireName()
                        + "; only a running or suspended sandbox's network can change");
            }
            requireDriverRuns(r);
            SandboxDriver d = driver(r);
            if (!d.conformance().supportsNetworkUpdate()) throw new UnsupportedCapabilityException(d.id(), "changing a running sandbox's network");
            NetworkPolicy before = r.spec().network();
            egress.require(network, r.spec().credentials());
            egress.change(r.id(), network);
            try {
                store.sandboxes().setNetwork(r.id(), r.fence(), network);
            } catch (RuntimeException e) {
                egress.change(r.id(), before); // the record still says the old policy: so does the listener
                throw e;
            }
            SandboxRecord changed = reload(r.id());
            event(changed, "sandbox.network_changed", Map.of("old", networkData(before), "new", networkData(network)));
            return changed;
        });
    }

    private static Map<String, Object> networkData(NetworkPolicy p) {
        return Map.of("type", p.mode().name().toLowerCase(Locale.ROOT), "allowed_hosts", p.allowedHosts(),
                "allow_package_managers", p.allowPackageManagers());
    }

    /** Terminates the sandbox (idempotent); its files are purged too when its kind purges on delete. */
    public SandboxRecord delete(Principal caller, String id) {
        return delete(caller, id, null);
    }

    /**
     * Terminates the sandbox (idempotent), then purges its files when {@code purge} is true, or when it is null and
     * the sandbox's kind purges on delete (a browser sandbox's downloads must not outlive its task).
     */
    public SandboxRecord delete(Principal caller, String id, Boolean purge) {
        SandboxRecord ended = terminate(find(caller, id), TerminationReason.USER_REQUEST);
        if (purge == null ? templates.purgesOnDelete(ended) : purge) purge(ended);
        return ended;
    }

    /**
     * Removes everything in an ended sandbox's workspace and outputs from the host's disk, and its checkpoints
     * (idempotent): for data that must not outlive its task. A sandbox that still runs is a conflict: delete it first.
     */
    public SandboxRecord purge(Principal caller, String id) {
        return purge(find(caller, id));
    }

    private SandboxRecord purge(SandboxRecord r) {
        String id = r.id();
        if (!r.state().isTerminal()) {
            throw new PaddockException(ErrorCode.SANDBOX_RUNNING, "sandbox " + id + " is " + r.state().wireName() + "; delete it before purging its files");
        }
        locks.withLock(id, () -> {
            driver(r).purge(OwnedSandboxes.ref(r));
            checkpoints.deleteAll(r);
            return null;
        });
        log.info("purged the files and checkpoints of {}", id);
        templates.deleted(r, true);
        return r;
    }

    // ---------------------------------------------------------------- exec and processes

    public ExecHandle exec(Principal caller, String id, ExecRequest request, ExecOutput output) {
        SandboxRecord r = find(caller, id);
        ExecHandle h = whileThawed(r, s -> s.exec(request, output));
        return new ExecHandle() {
            @Override public OutputStream stdin() { return h.stdin(); }
            @Override public ExecResult await() throws InterruptedException {
                try {
                    return h.await();
                } catch (PaddockException e) {
                    throw deletedMeanwhile(r.id(), e);
                }
            }
            @Override public ExecResult await(Duration wait) throws InterruptedException {
                try {
                    return h.await(wait);
                } catch (PaddockException e) {
                    throw deletedMeanwhile(r.id(), e);
                }
            }
            @Override public void kill() { h.kill(); }
        };
    }

    /**
     * A call whose sandbox was deleted while it ran loses its backend: that is the delete's doing, a conflict with
     * it (409 {@code sandbox_not_running}), not a backend that died (503 {@code sandbox_unreachable}).
     */
    private PaddockException deletedMeanwhile(String id, PaddockException e) {
        if (e.errorCode() != ErrorCode.SANDBOX_UNREACHABLE) return e;
        SandboxState now = store.sandboxes().find(id).map(SandboxRecord::state).orElse(null);
        if (now != SandboxState.TERMINATING && now != SandboxState.TERMINATED) return e;
        return new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + id + " was deleted while the request ran", e);
    }

    /** Runs a command to completion and returns its result. */
    public ExecResult run(Principal caller, String id, ExecRequest request, ExecOutput output) {
        try (ExecHandle h = exec(caller, id, request, output)) {
            return h.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PaddockException(ErrorCode.INTERRUPTED, "the server is shutting down; retry the command");
        }
    }

    public ProcessInfo startProcess(Principal caller, String id, ExecRequest request) {
        return whileThawed(find(caller, id), s -> s.startProcess(request));
    }

    public List<ProcessInfo> processes(Principal caller, String id) {
        return whileThawed(find(caller, id), Sandbox::processes);
    }

    public byte[] processLogs(Principal caller, String id, long pid, long offset, int maxBytes) {
        return whileThawed(find(caller, id), s -> s.processLogs(pid, offset, maxBytes));
    }

    public void signalProcess(Principal caller, String id, long pid, int signal) {
        whileThawed(find(caller, id), s -> { s.signalProcess(pid, signal); return null; });
    }

    /** Starts a command on a new terminal inside the sandbox (see {@link Sandbox#openTerminal}). */
    public TerminalHandle openTerminal(Principal caller, String id, TerminalRequest request, ExecOutput output) {
        return whileThawed(find(caller, id), s -> s.openTerminal(request, output));
    }

    /** A byte stream to a port on the sandbox's loopback (see {@link Sandbox#connectPort}). */
    public ExecHandle connectPort(Principal caller, String id, int port, ExecOutput output) {
        return whileThawed(find(caller, id), s -> s.connectPort(port, output));
    }

    /** Counts as use of the sandbox, so an idle suspend does not freeze it under a terminal or a forwarded port in use. */
    public void touch(Principal caller, String id) {
        live.touch(find(caller, id).id());
    }

    /**
     * Calls the live sandbox outside any checkpoint's or restore's freeze: a call that arrives while one holds the
     * sandbox frozen waits for it (bounded by the operation timeout) instead of failing as "suspended".
     */
    private <T> T whileThawed(SandboxRecord r, Function<Sandbox, T> call) {
        SandboxRecord cur = resumedIfIdle(r); // before the gate: a resume takes the sandbox's lock, which a checkpoint holds while it waits for the gate
        try {
            return locks.thawed(cur.id(), config.operationTimeout().toMillis(), () -> new PaddockException(ErrorCode.SANDBOX_BUSY,
                            "sandbox " + cur.id() + " stayed frozen by a checkpoint or restore for " + config.operationTimeout().toSeconds() + "s; retry"),
                    () -> call.apply(ready(cur)));
        } catch (PaddockException e) {
            throw deletedMeanwhile(cur.id(), e);
        }
    }

    // ---------------------------------------------------------------- files

    /** The sandbox's workspace; readable also after the sandbox ended, where the driver keeps it on the host. */
    public Workspace workspace(Principal caller, String id) {
        return workspace(find(caller, id));
    }

    private Workspace workspace(SandboxRecord r) {
        live.touch(r.id());
        Sandbox s = live.get(r.id());
        if (s != null && !r.state().isTerminal()) return s.workspace();
        return driver(r).workspace(OwnedSandboxes.ref(r)).orElseThrow(() -> new PaddockException(ErrorCode.WORKSPACE_GONE,
                "sandbox " + r.id() + " is " + r.state().wireName() + " and its driver keeps no workspace after the end"));
    }

    /**
     * Watches a directory of a running (or suspended) sandbox's workspace for changes, where its driver claims
     * {@code file_watch}. Watching is not activity: an idle sandbox is still suspended while a client watches it.
     * The caller closes the watch, and ends it when the sandbox ends ({@link #get}).
     */
    public FileWatch watch(Principal caller, String id, String path, boolean recursive) {
        SandboxRecord r = find(caller, id);
        SandboxDriver d = driver(r);
        if (!d.conformance().supportsFileWatch()) throw new UnsupportedCapabilityException(d.id(), "watching files");
        Sandbox s = live.get(r.id());
        if (s == null || r.state().isTerminal() || r.state() == SandboxState.CREATING) {
            throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + r.id() + " is " + r.state().wireName()
                    + "; only a running or suspended sandbox's files are watched (list an ended one's instead)");
        }
        return watches.register(r.id(), s.workspace().watch(path, recursive));
    }

    /**
     * The sandbox's {@code /mnt/session/outputs}, for reading; also after the sandbox ended where the driver keeps
     * it on the host. Reading it is not activity: collecting results does not keep a sandbox alive.
     */
    public Workspace outputs(Principal caller, String id) {
        SandboxRecord r = find(caller, id);
        Sandbox s = live.get(r.id());
        if (s != null && !r.state().isTerminal()) return s.outputs();
        return driver(r).outputs(OwnedSandboxes.ref(r)).orElseThrow(() -> new PaddockException(ErrorCode.OUTPUTS_GONE,
                "sandbox " + r.id() + " is " + r.state().wireName() + " and its driver keeps no outputs after the end"));
    }

    // ---------------------------------------------------------------- checkpoints (see Checkpoints)

    /** Archives the workspace; see {@link Checkpoints#take}. */
    public CheckpointRecord checkpoint(Principal caller, String id) {
        return checkpoints.take(find(caller, id));
    }

    /** A checkpoint of {@code type}: {@code workspace_tar} (null) or {@code memory}; see {@link Checkpoints#take(SandboxRecord, String)}. */
    public CheckpointRecord checkpoint(Principal caller, String id, String type) {
        return checkpoints.take(find(caller, id), type);
    }

    public Page<CheckpointRecord> checkpoints(Principal caller, String id, PageRequest page) {
        return checkpoints.list(find(caller, id), page);
    }

    public SandboxRecord restore(Principal caller, String id, String checkpointId) {
        return checkpoints.restore(find(caller, id), checkpointId);
    }

    /** The raw checkpoint archive, for download. */
    public InputStream checkpointData(Principal caller, String checkpointId) throws IOException {
        return checkpoints.data(caller.tenantId(), checkpointId);
    }

    /** Deletes a checkpoint: its archive and its record. Another tenant's checkpoint, or one of another sandbox, is not found. */
    public void deleteCheckpoint(Principal caller, String id, String checkpointId) {
        checkpoints.delete(find(caller, id), checkpointId);
    }

    public Page<SandboxEvent> events(Principal caller, String id, PageRequest page) {
        SandboxRecord r = find(caller, id);
        return store.events().list(r.id(), page);
    }

    // ---------------------------------------------------------------- lifecycle moves, also the policy classes'

    private SandboxRecord resume(SandboxRecord record) {
        String id = record.id();
        return locks.withLock(id, () -> {
            SandboxRecord r = reload(id);
            if (r.state() == SandboxState.RUNNING) return r;
            requireState(r, SandboxState.SUSPENDED, "resume");
            live.touch(id);
            SandboxRecord out = freezeOrThaw(r, attached(r), SandboxState.RUNNING, null);
            event(out, "sandbox.resumed", Map.of());
            return out;
        });
    }

    private SandboxRecord suspend(SandboxRecord record, String reason) {
        String id = record.id();
        return locks.withLock(id, () -> {
            SandboxRecord r = reload(id);
            if (r.state() == SandboxState.SUSPENDED) return r;
            requireState(r, SandboxState.RUNNING, "suspend");
            SandboxDriver d = driver(r);
            if (!d.conformance().supportsSuspendResume()) throw new UnsupportedCapabilityException(d.id(), "suspend/resume");
            SandboxRecord out = freezeOrThaw(r, attached(r), SandboxState.SUSPENDED, reason);
            event(out, "sandbox.suspended", Map.of("reason", reason));
            return out;
        });
    }

    private SandboxRecord terminate(SandboxRecord record, TerminationReason reason) {
        String why = reason.name().toLowerCase();
        boolean[] ended = {false};
        SandboxRecord out = locks.withLock(record.id(), () -> {
            SandboxRecord r = reload(record.id());
            if (r.state().isTerminal()) return r;
            if (r.state() != SandboxState.TERMINATING) {
                r = transition(r, SandboxState.TERMINATING, why);
                event(r, "sandbox.terminating", Map.of("reason", why));
            }
            release(r, reason);
            SandboxRecord done = transition(r, SandboxState.TERMINATED, why);
            event(done, "sandbox.terminated", Map.of("reason", why));
            ended[0] = true;
            return done;
        });
        if (ended[0]) templates.deleted(out, false);
        return out;
    }

    private void fail(SandboxRecord record, String code, String reason) {
        boolean[] ended = {false};
        SandboxRecord out = locks.withLock(record.id(), () -> {
            SandboxRecord cur = reload(record.id());
            if (cur.state().isTerminal()) return cur;
            release(cur, TerminationReason.BACKEND_LOST);
            SandboxRecord failed = transition(cur, SandboxState.FAILED, reason);
            event(failed, "sandbox.failed", Map.of("code", code, "reason", reason));
            log.warn("sandbox {} failed: {}", record.id(), reason);
            ended[0] = true;
            return failed;
        });
        if (ended[0]) templates.deleted(out, false);
    }

    /** Detaches the sandbox from this host and ends what is left of it on the backend; the record is the caller's. */
    private void release(SandboxRecord r, TerminationReason reason) {
        Sandbox s = live.detach(r.id());
        watches.endAll(r.id());
        egress.close(r.id());
        try {
            if (s != null) {
                operations.bounded("terminate", () -> { s.terminate(reason); return null; });
            } else if (r.handle() != null) {
                driver(r).destroy(OwnedSandboxes.ref(r));
            }
        } catch (RuntimeException e) {
            log.warn("ending {} on its backend reported: {}", r.id(), e.getMessage());
        }
    }

    /**
     * Freezes ({@code to} suspended) or thaws the backend, then records it. Should the record not be written (a full
     * disk), the backend is put back at once, so record and backend never disagree for long; the sweep's
     * reconciliation catches what this cannot.
     */
    private SandboxRecord freezeOrThaw(SandboxRecord r, Sandbox s, SandboxState to, String reason) {
        boolean freeze = to == SandboxState.SUSPENDED;
        String op = freeze ? "suspend" : "resume";
        operations.bounded(op, () -> { if (freeze) s.suspend(); else s.resume(); return null; });
        try {
            return transition(r, to, reason);
        } catch (RuntimeException e) {
            try {
                if (freeze) s.resume(); else s.suspend();
            } catch (RuntimeException undo) {
                log.warn("could not undo {} of {} after its record was not written ({}); the sweep will reconcile it", op, r.id(), undo.getMessage());
            }
            throw e;
        }
    }

    // ---------------------------------------------------------------- lookups and checks

    /**
     * The one tenant-scoped lookup: every public operation on a sandbox id starts here, so another tenant's sandbox
     * is not found (404, not 403: ids do not leak). Internals that reload a record do so only after this check.
     */
    private SandboxRecord find(Principal caller, String id) {
        Objects.requireNonNull(caller, "caller");
        Ids.require("sbx", id, "sandbox id");
        return store.sandboxes().find(id)
                .filter(r -> r.tenantId().equals(caller.tenantId()))
                .orElseThrow(() -> PaddockException.notFound("sandbox", id));
    }

    /**
     * The current record, which this host must still own: a host whose sandbox was taken over (its fence moved on)
     * must not touch the backend either, so this is checked before acting, not only when the record is written.
     */
    private SandboxRecord reload(String id) {
        SandboxRecord r = store.sandboxes().find(id).orElseThrow(() -> PaddockException.notFound("sandbox", id));
        requireOwned(r);
        return r;
    }

    private void requireOwned(SandboxRecord r) {
        if (!r.state().isTerminal() && !ownerId.equals(r.fence().ownerId())) throw new FenceLostException(r.id());
    }

    /** A live sandbox ready for work; an idle-suspended one is resumed on the way. */
    private Sandbox usable(SandboxRecord r) {
        return ready(resumedIfIdle(r));
    }

    /** The record after an idle suspend was undone: use is activity, and an idle-suspended sandbox resumes by itself. */
    private SandboxRecord resumedIfIdle(SandboxRecord r) {
        live.touch(r.id());
        if (r.state() == SandboxState.SUSPENDED && Sweeper.IDLE_SUSPEND_REASON.equals(r.stateReason())) return resume(r);
        return r;
    }

    private Sandbox ready(SandboxRecord r) {
        if (r.state() == SandboxState.FAILED) {
            throw new PaddockException(ErrorCode.SANDBOX_UNREACHABLE, "sandbox " + r.id() + " failed"
                    + (r.stateReason() == null ? "" : ": " + r.stateReason()) + "; create a new one (its workspace stays readable)");
        }
        requireDriverRuns(r);
        requireOwned(r);
        if (r.state() != SandboxState.RUNNING) {
            String hint = r.state() == SandboxState.SUSPENDED ? "; resume it first" : "";
            throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + r.id() + " is " + r.state().wireName() + hint);
        }
        return attached(r);
    }

    /** A sandbox on a driver this host cannot run is left as it is (see OrphanReaper); its calls say why. */
    private void requireDriverRuns(SandboxRecord r) {
        SandboxDriver d = drivers.get(r.driver());
        if (d != null && d.unavailableReason().isPresent()) {
            throw new PaddockException(ErrorCode.DRIVER_UNAVAILABLE, "sandbox " + r.id() + " runs on driver '" + r.driver()
                    + "', which cannot run on this host: " + d.unavailableReason().get());
        }
    }

    private Sandbox attached(SandboxRecord r) {
        Sandbox s = live.get(r.id());
        if (s == null) {
            throw new PaddockException(ErrorCode.SANDBOX_UNREACHABLE,
                    "sandbox " + r.id() + " is not attached to this host; it is being recovered or was lost");
        }
        return s;
    }

    private static void requireState(SandboxRecord r, SandboxState expected, String op) {
        if (r.state() != expected) {
            throw new PaddockException(ErrorCode.INVALID_STATE,
                    "cannot " + op + " sandbox " + r.id() + ": it is " + r.state().wireName() + ", expected " + expected.wireName());
        }
    }

    private SandboxDriver driver(SandboxRecord r) {
        SandboxDriver d = drivers.get(r.driver());
        if (d == null) {
            throw new PaddockException(ErrorCode.DRIVER_NOT_LOADED,
                    "sandbox " + r.id() + " runs on driver '" + r.driver() + "', which this server has not loaded");
        }
        return d;
    }

    // ---------------------------------------------------------------- records and events

    private SandboxRecord transition(SandboxRecord r, SandboxState to, String reason) {
        return store.sandboxes().transition(r.id(), r.fence(), to, reason);
    }

    private void event(SandboxRecord r, String type, Map<String, Object> data) {
        try {
            store.events().append(r.id(), r.fence(), type, data);
        } catch (FenceLostException e) {
            throw e;
        } catch (RuntimeException e) {
            log.warn("could not record event {} for {}: {}", type, r.id(), e.getMessage());
        }
    }

    /** One sweep; how long it took. */
    private Duration sweepSafely() {
        long t0 = System.nanoTime();
        try {
            new Sweeper(owned).sweep();
        } catch (RuntimeException e) {
            log.warn("sweep failed: {}", e.getMessage());
        }
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
        warmPools.close();
        operations.close();
        live.clear(); // sandboxes keep running: a restarted host re-attaches them
    }

    /** The host as its policy classes and checkpoints see it: the same moves, under the same locks and fences. */
    private final class Owned implements OwnedSandboxes {
        @Override public String ownerId() { return ownerId; }
        @Override public Clock clock() { return clock; }
        @Override public Store store() { return store; }
        @Override public List<SandboxRecord> activeRecords() {
            return new ArrayList<>(owner.nodeId() == null ? store.sandboxes().listActive() : store.sandboxes().listActiveOn(owner.nodeId()));
        }
        @Override public Map<String, SandboxDriver> drivers() { return drivers; }
        @Override public SandboxDriver driver(SandboxRecord r) { return RuntimeHost.this.driver(r); }
        @Override public SandboxRecord reload(String id) { return RuntimeHost.this.reload(id); }
        @Override public Sandbox live(String id) { return live.get(id); }
        @Override public Sandbox usable(SandboxRecord r) { return RuntimeHost.this.usable(r); }
        @Override public Workspace workspace(SandboxRecord r) { return RuntimeHost.this.workspace(r); }
        @Override public SandboxSpec openEgress(SandboxSpec spec) { return egress.open(spec); }
        @Override public void event(SandboxRecord r, String type, Map<String, Object> data) { RuntimeHost.this.event(r, type, data); }
        @Override public SandboxRecord suspend(SandboxRecord r, String reason) { return RuntimeHost.this.suspend(r, reason); }
        @Override public SandboxRecord terminate(SandboxRecord r, TerminationReason reason) { return RuntimeHost.this.terminate(r, reason); }
        @Override public void fail(SandboxRecord r, String code, String reason) { RuntimeHost.this.fail(r, code, reason); }
        @Override public void ifUnlocked(String id, Runnable body) { locks.ifUnlocked(id, body); }
        @Override public SandboxRecord find(Principal caller, String id) { return RuntimeHost.this.find(caller, id); }
        @Override public SandboxDriver loadedDriver(String driverId) { return rules.driver(driverId); }
        @Override public void requireDriverRuns(SandboxRecord r) { RuntimeHost.this.requireDriverRuns(r); }
        @Override public void requireEgress(NetworkPolicy network, List<CredentialBinding> credentials) { egress.require(network, credentials); }
        @Override public SandboxRecord create(Principal caller, SandboxRequest request, SandboxDriver driver, Consumer<Sandbox> fill) {
            return RuntimeHost.this.create(caller, request, driver, fill);
        }
        @Override public SandboxRecord start(SandboxRecord record, SandboxDriver driver, String op, Callable<Sandbox> backend) {
            return startBounded(record, driver, op, backend);
        }
        @Override public void removeUnfinished(Principal caller, SandboxRecord created) { RuntimeHost.this.removeUnfinished(caller, created); }

        @Override public void adopt(String id, Sandbox sandbox) { live.attach(id, sandbox); }
        @Override public Instant lastActivity(SandboxRecord r) { return live.lastActivity(r); }
        @Override public void flushActivity(SandboxRecord r) { live.flush(r, store.sandboxes()); }
    }
}
