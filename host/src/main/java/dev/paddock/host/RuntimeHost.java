package dev.paddock.host;

import dev.paddock.access.Principal;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.ErrorType;
import dev.paddock.core.FenceLostException;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.EgressPort;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.ProcessInfo;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.spi.SandboxStatus;
import dev.paddock.core.spi.TerminationReason;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime host: owns every sandbox's lifecycle on top of replaceable drivers. It keeps the durable record
 * (state, fence, handle) in the store, talks to the driver, enforces lifetime and idle policy, reaps orphans at
 * start-up, and writes an event for every lifecycle change. All calls are tenant-scoped: a sandbox of another
 * tenant is reported as not found.
 */
public final class RuntimeHost implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RuntimeHost.class);
    /** Reason recorded when the idle policy suspended a sandbox; such a sandbox resumes by itself on use. */
    static final String IDLE_SUSPEND_REASON = "idle";
    private static final java.util.Set<java.nio.file.attribute.PosixFilePermission> PRIVATE_DIR =
            java.nio.file.attribute.PosixFilePermissions.fromString("rwx------");
    private static final java.nio.file.attribute.FileAttribute<?> PRIVATE_FILE =
            java.nio.file.attribute.PosixFilePermissions.asFileAttribute(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));

    private final HostConfig config;
    private final Store store;
    private final Map<String, SandboxDriver> drivers;
    private final Clock clock;
    private final EgressPort egress;
    private final SandboxDriver defaultDriver;
    private final List<WarmPool> warmPools = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean started;
    private volatile String sandboxFreeDriver;
    private final String ownerId = Ids.newId("host");
    private final Map<String, Sandbox> live = new ConcurrentHashMap<>();
    private final Map<String, Instant> activity = new ConcurrentHashMap<>();
    private final Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();
    /** Held for writing while a checkpoint or restore keeps the sandbox frozen; calls into it wait on the read side. */
    private final Map<String, java.util.concurrent.locks.ReentrantReadWriteLock> freezeGates = new ConcurrentHashMap<>();
    private final ExecutorService operations = Executors.newVirtualThreadPerTaskExecutor();
    private final ScheduledExecutorService sweeper =
            Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("paddock-sweeper").factory());

    public RuntimeHost(HostConfig config, Store store, Collection<SandboxDriver> drivers, Clock clock) {
        this(config, store, drivers, null, clock);
    }

    /** With {@code egress} null, only network mode {@code none} is available: anything else is refused. */
    public RuntimeHost(HostConfig config, Store store, Collection<SandboxDriver> drivers, EgressPort egress, Clock clock) {
        this.config = config;
        this.egress = egress;
        this.store = store;
        this.clock = clock;
        Map<String, SandboxDriver> byId = new LinkedHashMap<>();
        for (SandboxDriver d : drivers) byId.put(d.id(), d);
        this.drivers = java.util.Collections.unmodifiableMap(byId); // keeps the order given: the default driver first
        this.defaultDriver = byId.get(config.defaultDriver());
        if (!byId.containsKey(config.defaultDriver())) {
            throw new IllegalArgumentException("default driver '" + config.defaultDriver() + "' is not loaded; loaded: " + byId.keySet());
        }
        try {
            Files.createDirectories(config.checkpointsDir());
            // every tenant's workspace archives: the server's user alone may read them
            Files.setPosixFilePermissions(config.checkpointsDir(), PRIVATE_DIR);
            deletePartialCheckpoints();
        } catch (IOException e) {
            throw new IllegalStateException("cannot create " + config.checkpointsDir(), e);
        }
        if (config.warmPoolSize() > 0) addWarmPool(WarmProfile.plain(config.warmPoolSize()));
        RuntimeWatch watch = new RuntimeWatch(this);
        byId.values().forEach(d -> d.watchRuntimes(watch));
    }

    /** Keeps sandboxes of {@code profile} started on the default driver ahead of demand; call before {@link #start()}. */
    public void addWarmPool(WarmProfile profile) {
        if (started) throw new IllegalStateException("warm pools are added before the host starts");
        // pooled sandboxes serve requests that name no disk limit: they start with the default one
        SandboxRequest t = profile.template();
        Limits limits = withDefaultDisk(t.limits() == null ? Limits.DEFAULT : t.limits(), defaultDriver);
        warmPools.add(new WarmPool(defaultDriver, profile.withTemplate(t.withLimits(limits)), ownerId, this::withEgress, this::closeEgress));
    }

    /** Reaps orphans left by an earlier host, then starts the lifetime/idle sweeper. */
    public void start() {
        started = true;
        new OrphanReaper(this).reapAll();
        warmPools.forEach(WarmPool::refillAsync); // after reaping: the reaper destroys backend sandboxes no record owns
        long every = config.sweepInterval().toMillis();
        sweeper.scheduleWithFixedDelay(this::sweepSafely, every, every, TimeUnit.MILLISECONDS);
    }

    public String ownerId() { return ownerId; }

    public HostConfig config() { return config; }

    public List<Conformance> drivers() {
        return drivers.values().stream().map(SandboxDriver::conformance).toList();
    }

    public int liveCount() { return live.size(); }

    /** Started sandboxes waiting in the warm pools. */
    public int warmCount() { return warmPools.stream().mapToInt(WarmPool::available).sum(); }

    /** The names of the warm pools' profiles. */
    public List<String> warmPoolNames() { return warmPools.stream().map(WarmPool::name).toList(); }

    /** Started sandboxes waiting in the warm pool of the profile named {@code name}. */
    public int warmCount(String name) {
        return warmPools.stream().filter(w -> w.name().equals(name)).mapToInt(WarmPool::available).sum();
    }

    // ---------------------------------------------------------------- lifecycle

    /** Creates a sandbox; the driver reserved for sandbox-free sessions is refused here (see {@link #createSandboxFree}). */
    public SandboxRecord create(Principal caller, SandboxRequest request) {
        SandboxDriver driver = driverFor(request.driver());
        if (driver.id().equals(sandboxFreeDriver)) {
            throw new PaddockException(ErrorCode.DRIVER_RESERVED, "driver '" + driver.id() + "' runs commands on the host without isolation and "
                    + "serves only sessions of environments of type 'none' on this server; pick another driver");
        }
        return create(caller, request, driver);
    }

    /**
     * Creates a "sandbox" on the driver reserved for sandbox-free sessions ({@link #reserveForSandboxFree}): commands
     * run on the host without isolation. Only the agents layer calls this, for environments of type {@code none}.
     */
    public SandboxRecord createSandboxFree(Principal caller, SandboxRequest request) {
        if (sandboxFreeDriver == null) {
            throw new PaddockException(ErrorCode.SANDBOX_FREE_UNAVAILABLE, "this server has no driver for sandbox-free sessions");
        }
        return create(caller, request.withDriver(sandboxFreeDriver), driverFor(sandboxFreeDriver));
    }

    /**
     * Reserves a loaded driver for sandbox-free sessions: {@link #create} refuses it, so no API key can pick an
     * unisolated driver for a sandbox of its own; call before {@link #start()}.
     */
    public void reserveForSandboxFree(String driverId) {
        if (started) throw new IllegalStateException("reserve the sandbox-free driver before the host starts");
        if (driverId.equals(config.defaultDriver())) throw new IllegalArgumentException("the default driver cannot be reserved for sandbox-free sessions");
        driverFor(driverId);
        this.sandboxFreeDriver = driverId;
    }

    /** The limits a sandbox of {@code driver} (null: the default) gets when its request names none; the defaults for an unknown driver. */
    public Limits defaultLimits(String driver) {
        SandboxDriver d = drivers.get(driver == null || driver.isBlank() ? config.defaultDriver() : driver);
        return d == null ? Limits.DEFAULT : d.limits(null);
    }

    private SandboxRecord create(Principal caller, SandboxRequest request, SandboxDriver driver) {
        Duration timeout = lifetime(request.timeout());
        // the driver refuses, before any record, what it cannot enforce, and fills in its own defaults
        Limits limits = diskLimits(driver.limits(request.limits()), driver);
        NetworkPolicy network = request.network() == null ? NetworkPolicy.NONE : request.network();
        requireEgressFor(network, request.credentials() == null ? List.of() : request.credentials());
        Optional<WarmPool.Entry> warm = Optional.empty();
        Fence claimed = null;
        for (WarmPool pool : warmPools) {
            if (!pool.fits(driver, request)) continue;
            warm = pool.claim(e -> claimEgress(e, caller.tenantId(), network));
            if (warm.isPresent()) {
                claimed = pool.fence();
                break;
            }
        }
        Fence fence = claimed != null ? claimed : new Fence(ownerId, 1);
        String id = warm.map(e -> e.spec().sandboxId()).orElseGet(() -> Ids.newId("sbx"));
        Instant now = clock.instant();
        SandboxSpec spec = new SandboxSpec(id, caller.tenantId(), request.image(), request.writableRootfs(),
                warm.isPresent() ? warm.get().spec().limits() : limits, request.env(), request.network(),
                request.credentials(), null);
        SandboxRecord record = new SandboxRecord(id, caller.tenantId(), driver.id(), SandboxState.CREATING, spec, fence,
                null, timeout, orDefault(request.idleSuspendAfter(), config.defaultIdleSuspendAfter()),
                orDefault(request.idleTerminateAfter(), config.defaultIdleTerminateAfter()), now, now, now, null);
        store.sandboxes().insert(record);
        event(record, "sandbox.creating", Map.of("driver", driver.id(), "warm", warm.isPresent()));
        Sandbox sandbox;
        try {
            if (warm.isPresent()) {
                sandbox = warm.get().sandbox();
            } else {
                SandboxSpec wired = withEgress(spec);
                sandbox = bounded("create", () -> createOnBackend(driver, wired, fence));
            }
        } catch (RuntimeException e) {
            closeEgress(id);
            String reason = e instanceof PaddockException pe ? pe.getMessage() : "driver failed: " + e.getClass().getSimpleName();
            log.warn("create of {} on {} failed: {}", id, driver.id(), reason);
            transition(record, SandboxState.FAILED, reason);
            event(record, "sandbox.failed", Map.of("reason", reason));
            throw e;
        }
        live.put(id, sandbox);
        activity.put(id, now);
        store.sandboxes().setHandle(id, fence, sandbox.ref().handle());
        SandboxRecord running = transition(record, SandboxState.RUNNING, null);
        event(running, "sandbox.running", Map.of());
        return running;
    }

    /** Creates on the driver; when it is out of capacity, pooled sandboxes that nobody claimed yet give theirs up first. */
    private Sandbox createOnBackend(SandboxDriver driver, SandboxSpec spec, Fence fence) {
        while (true) {
            try {
                return driver.create(spec, fence);
            } catch (dev.paddock.core.spi.CapacityExhaustedException full) {
                boolean yielded = warmPools.stream().filter(p -> p.driverId().equals(driver.id())).anyMatch(WarmPool::yieldOne);
                if (!yielded) throw full;
            }
        }
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

    private SandboxRecord resume(SandboxRecord record) {
        String id = record.id();
        return withLock(id, () -> {
            SandboxRecord r = reload(id);
            if (r.state() == SandboxState.RUNNING) return r;
            requireState(r, SandboxState.SUSPENDED, "resume");
            activity.put(id, clock.instant());
            SandboxRecord out = freezeOrThaw(r, attached(r), SandboxState.RUNNING, null);
            event(out, "sandbox.resumed", Map.of());
            return out;
        });
    }

    /** Terminates the sandbox (idempotent); its workspace stays readable. */
    public SandboxRecord delete(Principal caller, String id) {
        return terminate(find(caller, id), TerminationReason.USER_REQUEST);
    }

    /**
     * Removes everything in an ended sandbox's workspace and outputs from the host's disk (idempotent): for data that
     * must not outlive its task. A sandbox that still runs is a conflict: delete it first.
     */
    public SandboxRecord purge(Principal caller, String id) {
        SandboxRecord r = find(caller, id);
        if (!r.state().isTerminal()) {
            throw new PaddockException(ErrorCode.SANDBOX_RUNNING, "sandbox " + id + " is " + r.state().wireName() + "; delete it before purging its files");
        }
        withLock(id, () -> {
            driver(r).purge(ref(r));
            deleteCheckpoints(r);
            return null;
        });
        log.info("purged the files and checkpoints of {}", id);
        return r;
    }

    // ---------------------------------------------------------------- exec and processes

    public ExecHandle exec(Principal caller, String id, ExecRequest request, ExecOutput output) {
        return whileThawed(find(caller, id), s -> s.exec(request, output));
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

    /**
     * Calls the live sandbox outside any checkpoint's or restore's freeze: a call that arrives while one holds the
     * sandbox frozen waits for it (bounded by the operation timeout) instead of failing as "suspended".
     */
    private <T> T whileThawed(SandboxRecord r, java.util.function.Function<Sandbox, T> call) {
        r = resumedIfIdle(r); // before the gate: a resume takes the sandbox's lock, which a checkpoint holds while it waits for the gate
        java.util.concurrent.locks.Lock gate = freezeGate(r.id()).readLock();
        try {
            if (!gate.tryLock(config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                throw new PaddockException(ErrorCode.SANDBOX_BUSY, "sandbox " + r.id() + " stayed frozen by a checkpoint or restore for "
                        + config.operationTimeout().toSeconds() + "s; retry");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PaddockException(ErrorCode.INTERRUPTED, "the server is shutting down; retry");
        }
        try {
            return call.apply(ready(r));
        } finally {
            gate.unlock();
        }
    }

    java.util.concurrent.locks.ReentrantReadWriteLock freezeGate(String id) {
        return freezeGates.computeIfAbsent(id, k -> new java.util.concurrent.locks.ReentrantReadWriteLock(true));
    }

    // ---------------------------------------------------------------- files

    /** The sandbox's workspace; readable also after the sandbox ended, where the driver keeps it on the host. */
    public Workspace workspace(Principal caller, String id) {
        SandboxRecord r = find(caller, id);
        noteActivity(r.id());
        Sandbox s = live.get(r.id());
        if (s != null && !r.state().isTerminal()) return s.workspace();
        return driver(r).workspace(ref(r)).orElseThrow(() -> new PaddockException(ErrorCode.WORKSPACE_GONE,
                "sandbox " + r.id() + " is " + r.state().wireName() + " and its driver keeps no workspace after the end"));
    }

    /**
     * The sandbox's {@code /mnt/session/outputs}, for reading; also after the sandbox ended where the driver keeps
     * it on the host. Reading it is not activity: collecting results does not keep a sandbox alive.
     */
    public Workspace outputs(Principal caller, String id) {
        SandboxRecord r = find(caller, id);
        Sandbox s = live.get(r.id());
        if (s != null && !r.state().isTerminal()) return s.outputs();
        return driver(r).outputs(ref(r)).orElseThrow(() -> new PaddockException(ErrorCode.OUTPUTS_GONE,
                "sandbox " + r.id() + " is " + r.state().wireName() + " and its driver keeps no outputs after the end"));
    }

    // ---------------------------------------------------------------- checkpoints

    /**
     * Archives the workspace into {@code <data-dir>/checkpoints} (0600). The archive may not grow past
     * {@code maxCheckpointBytes} nor past what is left of the tenant's {@code tenantStorageBytes}: writing stops there,
     * the partial file is deleted and the call fails with {@code checkpoint_too_large} or {@code storage_quota_exceeded}.
     * One tenant's checkpoints are taken one at a time, so two cannot both fit into the same remaining quota.
     */
    public CheckpointRecord checkpoint(Principal caller, String id) {
        SandboxRecord r = find(caller, id);
        requireCheckpoints(r);
        return withLock(id, () -> withLock("tenant-storage:" + r.tenantId(), () -> {
            SandboxRecord cur = reload(id);
            Workspace ws = workspace(caller, id);
            String cpId = Ids.newId("cp");
            Path target = config.checkpointsDir().resolve(cpId + ".tar");
            Path tmp = config.checkpointsDir().resolve(cpId + ".tar.partial");
            CheckpointCap cap = checkpointCap(r.tenantId());
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
                        HexFormat.of().formatHex(sha.digest()), clock.instant());
                store.checkpoints().insert(cp);
                event(cur, "sandbox.checkpointed", Map.of("checkpoint_id", cpId, "size_bytes", cp.sizeBytes()));
                return cp;
            } catch (Exception e) {
                deleteQuietly(tmp);
                throw cap.explain(e).orElseGet(() -> asPaddock("checkpoint", e));
            }
        }));
    }

    /** How much one new checkpoint of {@code tenantId} may hold, and which limit says so. */
    private CheckpointCap checkpointCap(String tenantId) {
        long limit = config.maxCheckpointBytes() > 0 ? config.maxCheckpointBytes() : Long.MAX_VALUE;
        if (config.tenantStorageBytes() > 0) {
            long left = config.tenantStorageBytes() - store.checkpoints().totalBytes(tenantId);
            if (left <= 0) throw CheckpointCap.quotaExceeded(config.tenantStorageBytes());
            if (left < limit) return new CheckpointCap(left, true, config.tenantStorageBytes());
        }
        return new CheckpointCap(limit, false, config.maxCheckpointBytes());
    }

    /**
     * Deletes a checkpoint: its archive and its record. Another tenant's checkpoint, or one of another sandbox, is
     * not found.
     */
    public void deleteCheckpoint(Principal caller, String id, String checkpointId) {
        SandboxRecord r = find(caller, id);
        Ids.require("cp", checkpointId, "checkpoint id");
        CheckpointRecord cp = store.checkpoints().find(checkpointId)
                .filter(c -> c.tenantId().equals(caller.tenantId()) && c.sandboxId().equals(r.id()))
                .orElseThrow(() -> PaddockException.notFound("checkpoint", checkpointId));
        withLock(id, () -> {
            deleteCheckpointFiles(cp);
            return null;
        });
        event(r, "sandbox.checkpoint_deleted", Map.of("checkpoint_id", cp.id()));
    }

    /** The archive first: a record without its file would be listed but not restorable, a file without record is an orphan. */
    private void deleteCheckpointFiles(CheckpointRecord cp) throws IOException {
        Files.deleteIfExists(config.checkpointsDir().resolve(cp.id() + ".tar"));
        try {
            store.checkpoints().delete(cp.id());
        } catch (PaddockException e) {
            if (e.type() != ErrorType.NOT_FOUND) throw e;
        }
    }

    /** Every checkpoint of a sandbox, for purge. */
    private void deleteCheckpoints(SandboxRecord r) throws IOException {
        while (true) {
            Page<CheckpointRecord> page = store.checkpoints().list(r.id(), PageRequest.first(100));
            if (page.data().isEmpty()) return;
            for (CheckpointRecord cp : page.data()) deleteCheckpointFiles(cp);
        }
    }

    /** The request's limits with the default disk limit filled in, refused past the maximum or where it is not enforced. */
    private Limits diskLimits(Limits asked, SandboxDriver driver) {
        Limits limits = withDefaultDisk(asked, driver);
        if (limits.diskBytes() > 0 && !driver.conformance().supportsDiskLimits()) {
            throw new PaddockException(ErrorCode.DISK_QUOTA_UNAVAILABLE, "driver '" + driver.id()
                    + "' does not enforce limits.disk; create the sandbox without it or on a driver that does");
        }
        if (config.maxDiskBytes() > 0 && limits.diskBytes() > config.maxDiskBytes()) {
            throw new PaddockException(ErrorCode.INVALID_LIMITS, "limits.disk of " + limits.diskBytes() + " bytes exceeds this server's maximum of "
                    + config.maxDiskBytes() + " bytes");
        }
        return limits;
    }

    private Limits withDefaultDisk(Limits asked, SandboxDriver driver) {
        if (asked.diskBytes() > 0 || config.defaultDiskBytes() == 0 || !driver.conformance().supportsDiskLimits()) return asked;
        return asked.withDisk(config.defaultDiskBytes());
    }

    public Page<CheckpointRecord> checkpoints(Principal caller, String id, PageRequest page) {
        SandboxRecord r = find(caller, id);
        return store.checkpoints().list(r.id(), page);
    }

    public SandboxRecord restore(Principal caller, String id, String checkpointId) {
        SandboxRecord r = find(caller, id);
        requireCheckpoints(r);
        CheckpointRecord cp = store.checkpoints().find(checkpointId)
                .filter(c -> c.tenantId().equals(caller.tenantId()))
                .orElseThrow(() -> PaddockException.notFound("checkpoint", checkpointId));
        return withLock(id, () -> {
            SandboxRecord cur = reload(id);
            if (cur.state().isTerminal()) {
                throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + id + " is " + cur.state().wireName() + "; restore into a running sandbox");
            }
            Workspace ws = usable(cur).workspace();
            Path file = config.checkpointsDir().resolve(cp.id() + ".tar");
            // unpacked beside the workspace while the sandbox runs; frozen only for the swap (all or nothing)
            try (InputStream in = Files.newInputStream(file)) {
                ws.replaceFromTar(in, swap -> frozenFor(cur, swap));
            }
            event(cur, "sandbox.restored", Map.of("checkpoint_id", cp.id()));
            return reload(id);
        });
    }

    /** The raw checkpoint archive, for download. */
    public InputStream checkpointData(Principal caller, String checkpointId) throws IOException {
        CheckpointRecord cp = store.checkpoints().find(checkpointId)
                .filter(c -> c.tenantId().equals(caller.tenantId()))
                .orElseThrow(() -> PaddockException.notFound("checkpoint", checkpointId));
        return Files.newInputStream(config.checkpointsDir().resolve(cp.id() + ".tar"));
    }

    public Page<SandboxEvent> events(Principal caller, String id, PageRequest page) {
        SandboxRecord r = find(caller, id);
        return store.events().list(r.id(), page);
    }

    // ---------------------------------------------------------------- internals shared with the reaper and sweeper

    SandboxRecord suspend(SandboxRecord record, String reason) {
        String id = record.id();
        return withLock(id, () -> {
            SandboxRecord r = reload(id);
            if (r.state() == SandboxState.SUSPENDED) return r;
            requireState(r, SandboxState.RUNNING, "suspend");
            SandboxDriver d = driver(r);
            if (!d.conformance().supportsSuspendResume()) {
                throw new dev.paddock.core.spi.UnsupportedCapabilityException(d.id(), "suspend/resume");
            }
            SandboxRecord out = freezeOrThaw(r, attached(r), SandboxState.SUSPENDED, reason);
            event(out, "sandbox.suspended", Map.of("reason", reason));
            return out;
        });
    }

    SandboxRecord terminate(SandboxRecord record, TerminationReason reason) {
        String id = record.id();
        return withLock(id, () -> {
            SandboxRecord r = reload(id);
            if (r.state().isTerminal()) return r;
            if (r.state() != SandboxState.TERMINATING) {
                r = transition(r, SandboxState.TERMINATING, reason.name().toLowerCase());
                event(r, "sandbox.terminating", Map.of("reason", reason.name().toLowerCase()));
            }
            release(r, reason);
            SandboxRecord out = transition(r, SandboxState.TERMINATED, reason.name().toLowerCase());
            event(out, "sandbox.terminated", Map.of("reason", reason.name().toLowerCase()));
            return out;
        });
    }

    /** Detaches the sandbox from this host and ends what is left of it on the backend; the record is the caller's. */
    private void release(SandboxRecord r, TerminationReason reason) {
        Sandbox s = live.remove(r.id());
        activity.remove(r.id());
        closeEgress(r.id());
        try {
            if (s != null) {
                bounded("terminate", () -> { s.terminate(reason); return null; });
            } else if (r.handle() != null) {
                driver(r).destroy(ref(r));
            }
        } catch (RuntimeException e) {
            log.warn("ending {} on its backend reported: {}", r.id(), e.getMessage());
        }
    }

    Store store() { return store; }

    /** The attached sandbox, or null. */
    Sandbox liveSandbox(String id) { return live.get(id); }

    /** Runs {@code body} under the sandbox's lock when no operation holds it; otherwise does nothing. */
    void ifUnlocked(String id, Runnable body) {
        ReentrantLock lock = lock(id);
        if (!lock.tryLock()) return;
        try {
            body.run();
        } finally {
            lock.unlock();
        }
    }

    /** Marks a sandbox whose backend is gone as failed, with the reason, and releases what is left of it. */
    void fail(SandboxRecord r, String code, String reason) {
        withLock(r.id(), () -> {
            SandboxRecord cur = reload(r.id());
            if (cur.state().isTerminal()) return cur;
            release(cur, TerminationReason.BACKEND_LOST);
            SandboxRecord out = transition(cur, SandboxState.FAILED, reason);
            event(out, "sandbox.failed", Map.of("code", code, "reason", reason));
            log.warn("sandbox {} failed: {}", r.id(), reason);
            return out;
        });
    }

    Map<String, SandboxDriver> driverMap() { return drivers; }

    void adopt(String id, Sandbox sandbox) {
        live.put(id, sandbox);
        activity.put(id, clock.instant());
    }

    Clock clock() { return clock; }

    SandboxRecord transition(SandboxRecord r, SandboxState to, String reason) {
        return store.sandboxes().transition(r.id(), r.fence(), to, reason);
    }

    void event(SandboxRecord r, String type, Map<String, Object> data) {
        try {
            store.events().append(r.id(), r.fence(), type, data);
        } catch (FenceLostException e) {
            throw e;
        } catch (RuntimeException e) {
            log.warn("could not record event {} for {}: {}", type, r.id(), e.getMessage());
        }
    }

    SandboxDriver driver(SandboxRecord r) {
        SandboxDriver d = drivers.get(r.driver());
        if (d == null) {
            throw new PaddockException(ErrorCode.DRIVER_NOT_LOADED,
                    "sandbox " + r.id() + " runs on driver '" + r.driver() + "', which this server has not loaded");
        }
        return d;
    }

    static SandboxRef ref(SandboxRecord r) {
        return new SandboxRef(r.id(), r.driver(), r.handle());
    }

    Instant lastActivity(SandboxRecord r) {
        Instant mem = activity.get(r.id());
        return mem != null && mem.isAfter(r.lastActivityAt()) ? mem : r.lastActivityAt();
    }

    private void sweepSafely() {
        try {
            new Sweeper(this).sweep();
        } catch (RuntimeException e) {
            log.warn("sweep failed: {}", e.getMessage());
        }
    }

    /** Persists in-memory activity marks (kept in memory so an exec does not pay a database write). */
    void flushActivity(SandboxRecord r) {
        Instant mem = activity.get(r.id());
        if (mem != null && mem.isAfter(r.lastActivityAt())) {
            try {
                store.sandboxes().touch(r.id(), r.fence(), mem);
            } catch (RuntimeException e) {
                log.debug("touch of {} failed: {}", r.id(), e.getMessage());
            }
        }
    }

    /**
     * The one tenant-scoped lookup: every public operation on a sandbox id starts here, so another tenant's sandbox
     * is not found (404, not 403: ids do not leak). Internals that reload a record do so only after this check.
     */
    private SandboxRecord find(Principal caller, String id) {
        java.util.Objects.requireNonNull(caller, "caller");
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
        if (!r.state().isTerminal() && !ownerId.equals(r.fence().ownerId())) {
            throw new FenceLostException(r.id());
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
        bounded(op, () -> { if (freeze) s.suspend(); else s.resume(); return null; });
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

    /** A live sandbox ready for work; an idle-suspended one is resumed on the way. */
    private Sandbox usable(SandboxRecord r) {
        return ready(resumedIfIdle(r));
    }

    private SandboxRecord resumedIfIdle(SandboxRecord r) {
        noteActivity(r.id());
        if (r.state() == SandboxState.SUSPENDED && IDLE_SUSPEND_REASON.equals(r.stateReason())) return resume(r);
        return r;
    }

    private Sandbox ready(SandboxRecord r) {
        if (r.state() == SandboxState.FAILED) {
            throw new PaddockException(ErrorCode.SANDBOX_UNREACHABLE, "sandbox " + r.id() + " failed"
                    + (r.stateReason() == null ? "" : ": " + r.stateReason()) + "; create a new one (its workspace stays readable)");
        }
        requireOwned(r);
        if (r.state() != SandboxState.RUNNING) {
            String hint = r.state() == SandboxState.SUSPENDED ? "; resume it first" : "";
            throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + r.id() + " is " + r.state().wireName() + hint);
        }
        return attached(r);
    }

    private Sandbox attached(SandboxRecord r) {
        Sandbox s = live.get(r.id());
        if (s == null) {
            throw new PaddockException(ErrorCode.SANDBOX_UNREACHABLE,
                    "sandbox " + r.id() + " is not attached to this host; it is being recovered or was lost");
        }
        return s;
    }

    private void noteActivity(String id) {
        activity.put(id, clock.instant());
    }

    private void requireState(SandboxRecord r, SandboxState expected, String op) {
        if (r.state() != expected) {
            throw new PaddockException(ErrorCode.INVALID_STATE,
                    "cannot " + op + " sandbox " + r.id() + ": it is " + r.state().wireName() + ", expected " + expected.wireName());
        }
    }

    private void requireCheckpoints(SandboxRecord r) {
        SandboxDriver d = driver(r);
        if (!d.conformance().supportsCheckpoint("workspace_tar")) {
            throw new dev.paddock.core.spi.UnsupportedCapabilityException(d.id(), "workspace_tar checkpoints");
        }
    }

    /** Runs {@code work} with the sandbox frozen when it runs and its driver can freeze, for a consistent snapshot. */
    private void frozenWhile(SandboxRecord r, Callable<Void> work) throws Exception {
        Sandbox s = live.get(r.id());
        boolean freeze = s != null && r.state() == SandboxState.RUNNING && driver(r).conformance().supportsSuspendResume();
        java.util.concurrent.locks.Lock gate = freezeGate(r.id()).writeLock();
        gate.lock();
        try {
            if (freeze) s.suspend();
            try {
                work.call();
            } finally {
                if (freeze) s.resume();
            }
        } finally {
            gate.unlock();
        }
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
            throw asPaddock("restore", e);
        }
    }

    /** A checkpoint being written when the previous host process died is never listed: its file goes at start-up. */
    private void deletePartialCheckpoints() throws IOException {
        try (java.util.stream.Stream<Path> files = Files.list(config.checkpointsDir())) {
            for (Path p : files.filter(p -> p.getFileName().toString().endsWith(".tar.partial")).toList()) Files.deleteIfExists(p);
        }
    }

    /** Fails closed: a sandbox that may reach the network needs the egress proxy; there is no unfenced way out. */
    private void requireEgressFor(NetworkPolicy network, List<dev.paddock.core.spi.CredentialBinding> credentials) {
        if (network.mode() != NetworkPolicy.Mode.NONE && egress == null) {
            throw new PaddockException(ErrorCode.EGRESS_UNAVAILABLE, "network mode '"
                    + network.mode().name().toLowerCase() + "' needs the egress proxy, which this server does not run; use network type none");
        }
        if (!credentials.isEmpty() && network.mode() == NetworkPolicy.Mode.NONE) {
            throw new PaddockException(ErrorCode.CREDENTIALS_NEED_NETWORK, "credentials are placed by the egress proxy: give the sandbox a network policy (limited or unrestricted) that reaches their hosts");
        }
    }

    /** A claimed pooled sandbox waited with the pool's network policy: from now on it has the request's. */
    private void claimEgress(WarmPool.Entry e, String tenantId, NetworkPolicy wanted) {
        if (e.spec().network().mode() == NetworkPolicy.Mode.NONE) return;
        egress.reopen(tenantId, e.spec().sandboxId(), wanted);
    }

    /** Opens the sandbox's egress listener when its policy lets it out (again after a restart: it is idempotent). */
    SandboxSpec withEgress(SandboxSpec spec) {
        if (spec.network().mode() == NetworkPolicy.Mode.NONE || egress == null) return spec;
        return spec.withEgress(egress.open(spec.tenantId(), spec.sandboxId(), spec.network(), spec.credentials()));
    }

    private void closeEgress(String sandboxId) {
        if (egress == null) return;
        try {
            egress.close(sandboxId);
        } catch (RuntimeException e) {
            log.warn("closing the egress listener of {} failed: {}", sandboxId, e.getMessage());
        }
    }

    private SandboxDriver driverFor(String name) {
        String id = name == null || name.isBlank() ? config.defaultDriver() : name;
        SandboxDriver d = drivers.get(id);
        if (d == null) {
            throw new PaddockException(ErrorCode.UNKNOWN_DRIVER, "driver '" + id + "' is not available; available: " + drivers.keySet());
        }
        return d;
    }

    private Duration lifetime(Duration requested) {
        Duration t = requested == null ? config.defaultTimeout() : requested;
        if (t != null && (t.isNegative() || t.isZero())) {
            throw new PaddockException(ErrorCode.INVALID_TIMEOUT, "timeout must be positive");
        }
        if (t != null && config.maxTimeout() != null && t.compareTo(config.maxTimeout()) > 0) {
            throw new PaddockException(ErrorCode.INVALID_TIMEOUT, "timeout " + t.toSeconds() + "s exceeds this server's maximum of "
                    + config.maxTimeout().toSeconds() + "s");
        }
        return t;
    }

    private static Duration orDefault(Duration d, Duration fallback) {
        return d != null ? d : fallback;
    }

    private ReentrantLock lock(String id) {
        return locks.computeIfAbsent(id, k -> new ReentrantLock());
    }

    private <T> T withLock(String id, Callable<T> body) {
        ReentrantLock lock = lock(id);
        lock.lock();
        try {
            return body.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw asPaddock("operation", e);
        } finally {
            lock.unlock();
        }
    }

    /** Runs a driver call under the per-operation timeout. */
    private <T> T bounded(String op, Callable<T> call) {
        Future<T> f = operations.submit(call);
        try {
            return f.get(config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new PaddockException(ErrorCode.OPERATION_TIMEOUT,
                    op + " did not finish within " + config.operationTimeout().toSeconds() + "s");
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException re) throw re;
            throw asPaddock(op, c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PaddockException(ErrorCode.INTERRUPTED, op + " was interrupted; retry");
        }
    }

    private static PaddockException asPaddock(String op, Throwable e) {
        if (e instanceof PaddockException pe) return pe;
        return PaddockException.internal(op + " failed: " + e.getClass().getSimpleName(), e);
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort: a partial checkpoint file is never listed
        }
    }

    List<SandboxRecord> activeRecords() {
        return new ArrayList<>(store.sandboxes().listActive());
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
        warmPools.forEach(WarmPool::close); // pooled sandboxes have no record: end them rather than leave them to the reaper
        operations.shutdownNow();
        // Sandboxes keep running: a restarted host re-attaches them. Only the in-memory handles go.
        live.clear();
    }
}
