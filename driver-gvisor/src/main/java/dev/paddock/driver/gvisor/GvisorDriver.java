package dev.paddock.driver.gvisor;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.images.ImageLayout;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.MemoryCheckpoints;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.UnsupportedCapabilityException;
import dev.paddock.core.spi.Workspace;
import dev.paddock.init.EgressFiles;
import dev.paddock.init.InitBinary;
import dev.paddock.init.InitClient;
import dev.paddock.init.SandboxDirs;
import dev.paddock.init.SandboxEtc;
import dev.paddock.init.SandboxLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Each sandbox is one gVisor container (runsc) from an OCI bundle this driver writes: the host's /usr read-only with
 * a reduced /etc, or an image's root filesystem; /workspace and the outputs bound from host directories that outlive
 * it; cgroup limits from the spec; no network but loopback, where init's forwarder leads to the egress proxy. The
 * init agent is the container's pid 1 and serves commands over a unix socket it binds in a host directory
 * ({@code runsc --host-uds=all}): a command costs its own start inside gVisor (~35 ms for {@code true} on ptrace),
 * where {@code runsc exec} adds a runsc process and its setup on top (~65 ms; GvisorBench in the tests measures
 * both), and init also keeps background processes and their output. Sandboxes survive a restart of the host
 * process: runsc's state root and the run directories are under the data directory. Suspend is {@code runsc pause};
 * process-memory checkpoints are {@code runsc checkpoint}/{@code restore} (see {@link GvisorMemoryCheckpoints}).
 */
public final class GvisorDriver implements SandboxDriver {
    public static final String ID = "gvisor";
    private static final Path HOST_ETC = Path.of("/etc");
    private static final Duration QUIESCE_TIMEOUT = Duration.ofSeconds(10);
    static final long MIN_MEMORY_BYTES = 128L << 20;

    private final GvisorConfig config;
    private final Runsc runsc;
    private final Path initBinary;
    private final Path emptyRoot;
    private final GvisorMemoryCheckpoints checkpoints = new GvisorMemoryCheckpoints(this);
    private Path etcBase;
    private long etcStamp;

    public GvisorDriver(GvisorConfig config) {
        List<String> problems = HostCheck.problems(config);
        if (!problems.isEmpty()) {
            throw new PaddockException(ErrorCode.DRIVER_UNAVAILABLE, "the gvisor driver cannot run on this host: " + String.join("; ", problems));
        }
        this.config = config;
        prepareDataDir();
        this.runsc = new Runsc(config.runsc(), config.stateDir().resolve("runsc"), config.platform());
        this.initBinary = InitBinary.install(config.stateDir().resolve("bin"));
        this.emptyRoot = OciBundle.emptyRoot(config.stateDir().resolve("rootfs"));
        etcBase();
    }

    /** What this host lacks for the gVisor driver with {@code config}; empty when it can run sandboxes. */
    public static List<String> checkHost(GvisorConfig config) {
        return HostCheck.problems(config);
    }

    /** The claims of this driver, also where it cannot run (so the host can list it as unavailable). */
    public static Conformance conformanceRecord() {
        return GvisorConformance.RECORD;
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Conformance conformance() {
        return GvisorConformance.RECORD;
    }

    /**
     * runsc applies memory, pids and cpu through cgroups. The memory limit covers gVisor's own kernel too, so below
     * {@link #MIN_MEMORY_BYTES} a sandbox would not start; that and a disk limit it cannot enforce are refused.
     */
    @Override
    public Limits limits(Limits requested) {
        Limits limits = requested == null ? Limits.DEFAULT : requested;
        if (limits.memoryBytes() < MIN_MEMORY_BYTES) {
            throw new PaddockException(ErrorCode.MEMORY_LIMIT_UNAVAILABLE, "a gvisor sandbox needs at least "
                    + (MIN_MEMORY_BYTES >> 20) + " MiB of memory (its kernel runs inside the limit); asked for " + (limits.memoryBytes() >> 20) + " MiB");
        }
        if (limits.diskBytes() > 0) {
            throw new PaddockException(ErrorCode.DISK_QUOTA_UNAVAILABLE,
                    "the gvisor driver cannot enforce limits.disk (no per-sandbox filesystem); create the sandbox without limits.disk");
        }
        return limits.requireCpusOfThisHost();
    }

    @Override
    public Optional<MemoryCheckpoints> memoryCheckpoints() {
        return Optional.of(checkpoints);
    }

    Runsc runsc() {
        return runsc;
    }

    @Override
    public Sandbox create(SandboxSpec spec, Fence fence) {
        return start(spec, fence, null);
    }

    /** Creates the sandbox's runtime: a fresh container, or one restored from {@code imageDir} when it is not null. */
    GvisorSandbox start(SandboxSpec spec, Fence fence, Path imageDir) {
        SandboxDirs paths = SandboxDirs.of(ID, config.stateDir(), spec.sandboxId());
        if (fence == null) throw new PaddockException(ErrorCode.FENCE_REQUIRED, "creating a sandbox needs the fence of its owner");
        limits(spec.limits());
        boolean egress = spec.network().mode() != NetworkPolicy.Mode.NONE;
        if (egress && spec.egress() == null) {
            // fail closed: without the proxy's socket there is no enforced way out, so no network at all
            throw new UnsupportedCapabilityException(ID, "network mode " + spec.network().mode().name().toLowerCase()
                    + " without the egress proxy (the runtime host opens it); use network mode none");
        }
        OciBundle.Root root = resolveRoot(spec, paths);
        spec.env().forEach(SandboxLayout::checkEnv);
        boolean overlay = root instanceof OciBundle.Root.Image i && i.writable();
        SandboxDirs.claimRunDir(ID, paths.sandboxId(), paths.runDir());
        GvisorMeta meta = new GvisorMeta(spec.sandboxId(), spec.image(), overlay, Instant.now(), fence);
        String hostname = spec.sandboxId().length() > 63 ? spec.sandboxId().substring(0, 63) : spec.sandboxId();
        try {
            makeSandboxDir(paths);
            makeOwnedDir(paths, paths.workspace());
            makeOwnedDir(paths, paths.outputs());
            makeOwnedDir(paths, paths.controlDir());
            if (root instanceof OciBundle.Root.Host) SandboxEtc.writeOwn(paths.etc(), OciBundle.SANDBOX_UID, hostname);
            OciBundle.Egress way = egress ? egressWay(spec, paths, root) : null;
            OciBundle.write(paths, initBinary, hostname, root, spec.env(), spec.limits(), way);
            // before runsc starts: a host that dies meanwhile leaves a run dir that destroy() handles
            meta.write(paths.meta());
            if (imageDir == null) {
                runsc.run(spec.sandboxId(), paths.runDir(), paths.log(), overlay, config.startTimeout());
            } else {
                runsc.restore(spec.sandboxId(), paths.runDir(), imageDir, paths.log(), overlay, config.startTimeout());
                // init was quiesced when saved: it binds its socket again (see paddock-init.c)
                runsc.signalInit(spec.sandboxId(), "USR1", overlay);
            }
            awaitInit(paths, config.startTimeout());
            return new GvisorSandbox(this, paths, meta, false);
        } catch (RuntimeException e) {
            cleanUp(paths, overlay);
            throw e;
        }
    }

    /** Returns once init answers on its socket; a failure carries the end of the container's log. */
    void awaitInit(SandboxDirs paths, Duration timeout) {
        InitClient init = new InitClient(paths.socket());
        long deadline = System.nanoTime() + timeout.toNanos();
        PaddockException last = null;
        while (System.nanoTime() < deadline) {
            if (Files.exists(paths.socket(), LinkOption.NOFOLLOW_LINKS)) {
                try {
                    init.ping(Duration.ofSeconds(1));
                    return;
                } catch (PaddockException e) {
                    last = e;
                }
            }
            pause(5);
        }
        throw new PaddockException(ErrorCode.SANDBOX_START_TIMEOUT, "the sandbox's init did not answer within " + timeout.toMillis() + " ms"
                + (last == null ? "" : " (" + last.getMessage() + ")") + "; sandbox log: " + Runsc.tail(paths.log()), last);
    }

    /**
     * Has init close every host socket (runsc cannot save a sandbox holding one) and waits for its report. A sandbox
     * whose init does not report in time is told to serve again and the checkpoint is refused.
     */
    void quiesce(SandboxDirs paths, boolean overlay) {
        runsc.signalInit(paths.sandboxId(), "USR2", overlay);
        long deadline = System.nanoTime() + QUIESCE_TIMEOUT.toNanos();
        while (!Files.exists(paths.socket().resolveSibling(SandboxLayout.CONTROL_SOCKET + ".quiesced"), LinkOption.NOFOLLOW_LINKS)) {
            if (System.nanoTime() > deadline) {
                serveAgain(paths, overlay);
                throw PaddockException.internal("the init agent of sandbox " + paths.sandboxId() + " did not close its host sockets within "
                        + QUIESCE_TIMEOUT.toSeconds() + " s; nothing was saved", null);
            }
            pause(2);
        }
    }

    /** Starts a live sandbox's stopped container again from {@code imageDir}, with its bundle; returns once init serves. */
    void restoreInPlace(SandboxDirs paths, GvisorMeta meta, Path imageDir) {
        runsc.delete(paths.sandboxId(), meta.overlay());
        runsc.restore(paths.sandboxId(), paths.runDir(), imageDir, paths.log(), meta.overlay(), config.startTimeout());
        serveAgain(paths, meta.overlay());
    }

    /** Undoes {@link #quiesce}: init binds its socket again; returns once it answers. */
    void serveAgain(SandboxDirs paths, boolean overlay) {
        runsc.signalInit(paths.sandboxId(), "USR1", overlay);
        awaitInit(paths, config.startTimeout());
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PaddockException(ErrorCode.SANDBOX_START_FAILED, "interrupted while waiting for the sandbox", e);
        }
    }

    private static OciBundle.Egress egressWay(SandboxSpec spec, SandboxDirs paths, OciBundle.Root root) {
        EgressFiles files = EgressFiles.prepare(spec.egress(), paths.egressFiles(), OciBundle.SANDBOX_UID);
        return new OciBundle.Egress(files.socketDir(), files.socketName(), files.caBundle(), hasSystemBundle(root), files.env());
    }

    /** Whether the root has a system CA bundle to mount the egress bundle over (a mount needs an existing file). */
    private static boolean hasSystemBundle(OciBundle.Root root) {
        return switch (root) {
            case OciBundle.Root.Host h -> Files.isRegularFile(h.etcBase().resolve("ssl/certs/ca-certificates.crt"), LinkOption.NOFOLLOW_LINKS);
            case OciBundle.Root.Image i -> Files.isRegularFile(i.rootfs().resolve("etc/ssl/certs/ca-certificates.crt"), LinkOption.NOFOLLOW_LINKS);
        };
    }

    private OciBundle.Root resolveRoot(SandboxSpec spec, SandboxDirs paths) {
        if (spec.image() == null) {
            if (spec.writableRootfs()) throw new UnsupportedCapabilityException(ID, "a writable root without an image (name an image)");
            return new OciBundle.Root.Host(emptyRoot, etcBase(), paths.etc());
        }
        Path rootfs = ImageLayout.inDataDir(config.dataDir()).rootfs(spec.image());
        if (!Files.isDirectory(rootfs)) {
            throw new PaddockException(ErrorCode.NOT_FOUND, "image '" + spec.image() + "' does not exist: expected a root filesystem at " + rootfs);
        }
        for (String dir : List.of("workspace", "proc", "dev", "tmp")) {
            if (!spec.writableRootfs() && !Files.isDirectory(rootfs.resolve(dir), LinkOption.NOFOLLOW_LINKS)) {
                throw new PaddockException(ErrorCode.INVALID_IMAGE, "image '" + spec.image() + "' has no /" + dir + " directory; add it to " + rootfs);
            }
        }
        return new OciBundle.Root.Image(rootfs, spec.writableRootfs());
    }

    /** The shared part of sandbox /etc directories, rebuilt when the host's loader cache changed (a package was installed). */
    private synchronized Path etcBase() {
        long stamp = modified(HOST_ETC.resolve("ld.so.cache"));
        if (etcBase == null || stamp != etcStamp) {
            etcBase = SandboxEtc.base(HOST_ETC, config.stateDir().resolve("etc"));
            etcStamp = stamp;
        }
        return etcBase;
    }

    private static long modified(Path p) {
        try {
            return Files.getLastModifiedTime(p).toMillis();
        } catch (IOException e) {
            return -1;
        }
    }

    @Override
    public Optional<Sandbox> attach(SandboxRef ref) {
        if (ref == null || !SandboxDirs.isSafeId(ref.sandboxId())) return Optional.empty();
        SandboxDirs paths = SandboxDirs.of(ID, config.stateDir(), ref.sandboxId());
        Optional<GvisorMeta> meta = GvisorMeta.read(paths.meta());
        if (meta.isEmpty()) return Optional.empty();
        Optional<Runsc.State> state = runsc.state(ref.sandboxId(), meta.get().overlay());
        if (state.isEmpty()) return Optional.empty();
        if (state.get().paused()) return Optional.of(new GvisorSandbox(this, paths, meta.get(), true));
        if (!state.get().running()) return Optional.empty();
        try {
            new InitClient(paths.socket()).ping(Duration.ofSeconds(2));
            return Optional.of(new GvisorSandbox(this, paths, meta.get(), false));
        } catch (PaddockException e) {
            return Optional.empty();
        }
    }

    @Override
    public List<SandboxRef> list() {
        return SandboxDirs.list(ID, config.stateDir());
    }

    @Override
    public void destroy(SandboxRef ref) {
        if (ref == null || !SandboxDirs.isSafeId(ref.sandboxId())) return;
        SandboxDirs paths = SandboxDirs.of(ID, config.stateDir(), ref.sandboxId());
        cleanUp(paths, GvisorMeta.read(paths.meta()).map(GvisorMeta::overlay).orElse(false));
    }

    /** Removes an ended sandbox's workspace, outputs and directory from the host for good. */
    @Override
    public void purge(SandboxRef ref) {
        if (ref == null || !SandboxDirs.isSafeId(ref.sandboxId())) return;
        SandboxDirs paths = SandboxDirs.of(ID, config.stateDir(), ref.sandboxId());
        if (paths.running()) {
            throw new PaddockException(ErrorCode.SANDBOX_RUNNING, "sandbox " + ref.sandboxId() + " still runs on this host; delete it before purging its files");
        }
        // the files are emptied through the race-safe workspace code first, then the tree goes
        SandboxDriver.super.purge(ref);
        SandboxDirs.deleteTree(paths.sandboxDir());
    }

    @Override
    public Optional<Workspace> workspace(SandboxRef ref) {
        return SandboxDirs.of(ID, config.stateDir(), ref).flatMap(d -> d.keptWorkspace(OciBundle.SANDBOX_UID));
    }

    @Override
    public Optional<Workspace> outputs(SandboxRef ref) {
        return SandboxDirs.of(ID, config.stateDir(), ref).flatMap(d -> d.keptOutputs(OciBundle.SANDBOX_UID));
    }

    /** The empty workspace of a sandbox about to be restored under a new id (see GvisorMemoryCheckpoints#forkWorkspace). */
    Workspace newWorkspace(String sandboxId) {
        SandboxDirs paths = SandboxDirs.of(ID, config.stateDir(), sandboxId);
        if (paths.running()) {
            throw new PaddockException(ErrorCode.SANDBOX_EXISTS, "a gvisor sandbox with id " + sandboxId + " already runs; fork into another id");
        }
        makeSandboxDir(paths);
        makeOwnedDir(paths, paths.workspace());
        return paths.openWorkspace(OciBundle.SANDBOX_UID);
    }

    SandboxDirs paths(String sandboxId) {
        return SandboxDirs.of(ID, config.stateDir(), sandboxId);
    }

    /** Ends a sandbox's container and removes its run directory; keeps its workspace and outputs. */
    void release(SandboxDirs paths, GvisorMeta meta) {
        cleanUp(paths, meta.overlay());
    }

    private void cleanUp(SandboxDirs paths, boolean overlay) {
        runsc.deleteForce(paths.sandboxId(), overlay);
        ContainerCgroups.killAndRemove(OciBundle.cgroupsPath(paths.sandboxId()));
        SandboxEtc.delete(paths.etc());
        EgressFiles.delete(paths.egressFiles());
        SandboxDirs.deleteTree(paths.runDir());
    }

    private void prepareDataDir() {
        Path data = config.stateDir();
        // the sandbox processes reach their files through gVisor's gofer (root): nothing here is for other host users
        SandboxDirs.makeDirs("rwxr-xr-x", data.resolve("bin"), data.resolve("rootfs"));
        SandboxDirs.makeDirs("rwx------", data.resolve("run"), data.resolve("runsc"), data.resolve("sandboxes"));
    }

    private static void makeSandboxDir(SandboxDirs paths) {
        try {
            Files.createDirectories(paths.sandboxDir());
            Files.setPosixFilePermissions(paths.sandboxDir(), PosixFilePermissions.fromString("rwx------"));
        } catch (IOException e) {
            throw PaddockException.internal("cannot prepare the directory of sandbox " + paths.sandboxId() + ": " + e.getMessage(), e);
        }
    }

    /** A directory of the sandbox uid; a kept one (an earlier run, a restore) is handed to it whole, links not followed. */
    private static void makeOwnedDir(SandboxDirs paths, Path dir) {
        try {
            if (Files.isSymbolicLink(dir)) throw PaddockException.internal(dir + " is a symlink; refusing to use it", null);
            if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                try (Stream<Path> tree = Files.walk(dir)) {
                    for (Path p : (Iterable<Path>) tree::iterator) chown(p);
                }
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            } else {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                chown(dir);
            }
        } catch (IOException | UncheckedIOException e) {
            throw PaddockException.internal("cannot prepare " + dir.getFileName() + " of sandbox " + paths.sandboxId() + ": " + e.getMessage(), e);
        }
    }

    private static void chown(Path p) throws IOException {
        Files.setAttribute(p, "unix:uid", OciBundle.SANDBOX_UID, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", OciBundle.SANDBOX_UID, LinkOption.NOFOLLOW_LINKS);
    }

}
