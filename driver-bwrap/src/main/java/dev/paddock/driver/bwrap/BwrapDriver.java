package dev.paddock.driver.bwrap;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.images.ImageLayout;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.UnsupportedCapabilityException;
import dev.paddock.core.spi.Workspace;
import dev.paddock.driver.bwrap.cgroup.CgroupDetector;
import dev.paddock.driver.bwrap.cgroup.CgroupSystem;
import dev.paddock.driver.bwrap.cgroup.SandboxCgroup;
import dev.paddock.driver.bwrap.disk.DiskQuota;
import dev.paddock.driver.bwrap.disk.LoopImageQuota;
import dev.paddock.init.EgressFiles;
import dev.paddock.init.InitBinary;
import dev.paddock.init.SandboxDirs;
import dev.paddock.init.SandboxEtc;
import dev.paddock.init.SandboxLayout;
import dev.paddock.workspace.HostDirWorkspace;
import dev.paddock.workspace.TarLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The default driver: each sandbox is one long-lived bubblewrap process, running as its own unprivileged host uid
 * in its own cgroup, with a small init agent as pid 1 that runs commands on request over a root-only unix socket.
 * Sandboxes survive a restart of the host process and are found again through {@code <dataDir>/run}.
 */
public final class BwrapDriver implements SandboxDriver {
    public static final String ID = "bwrap";
    /** Prepares directories and cgroups of sandboxes being created, alongside the launcher's start. */
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(BwrapDriver.class);
    private static final Executor PREPARE = Executors.newVirtualThreadPerTaskExecutor();
    private static final Path HOST_ETC = Path.of("/etc");

    private final BwrapConfig config;
    private final CgroupSystem cgroups;
    private final Path initBinary;
    private final UidAllocator uids;
    private final boolean overlaySupported;
    /** Null when this host has no way to bound a sandbox's disk; {@link #diskProblem} says why. */
    private final DiskQuota disk;
    /** Ended sandboxes mounted for a read of their files; bounded, so they cannot hold every loop device. */
    EndedMounts endedMounts = new EndedMounts(EndedMounts.DEFAULT_MAX);
    private final String diskProblem;
    /** Where sandboxes with disk images are launched from; null without disk images (nothing then grows). */
    private final LaunchNamespace launchNamespace;
    private Path etcBase;
    private long etcStamp;

    /** The kernel's limits are the host's, not a driver's: said once per process. */
    private static final AtomicBoolean kernelLimitsChecked = new AtomicBoolean();

    public BwrapDriver(BwrapConfig config) {
        List<String> problems = HostCheck.problems(config);
        if (!problems.isEmpty()) {
            throw new PaddockException(ErrorCode.DRIVER_UNAVAILABLE, "the bwrap driver cannot run on this host: " + String.join("; ", problems));
        }
        this.config = config;
        this.cgroups = CgroupDetector.detect(config.cgroupRoot());
        prepareDataDir();
        this.initBinary = InitBinary.install(config.dataDir().resolve("bin"));
        this.uids = new UidAllocator(config.dataDir().resolve("uids"), config.uidBase(), config.uidCount());
        this.overlaySupported = bwrapHelp().contains("--tmp-overlay");
        Optional<String> noLoop = LoopImageQuota.problem();
        this.disk = noLoop.isEmpty() ? new LoopImageQuota(config.dataDir().resolve("disks")) : null;
        this.diskProblem = noLoop.orElse(null);
        this.launchNamespace = disk == null ? null : new LaunchNamespace(initBinary, config.dataDir().resolve("sandboxes"));
        etcBase();
        int freed = uids.reclaimStale(list().stream().map(SandboxRef::sandboxId).collect(Collectors.toSet()));
        if (freed > 0) log.info("freed {} sandbox uid claim(s) left by a process that died mid-create", freed);
        if (!kernelLimitsChecked.getAndSet(true)) {
            KernelLimits.read().shortOf(config.uidCount(), KernelLimits.processesPerSandbox(disk != null)).ifPresent(log::warn);
        }
    }

    /** The shared part of sandbox /etc directories, rebuilt when the host's loader cache changed (a package was installed). */
    private synchronized Path etcBase() {
        long stamp = modified(HOST_ETC.resolve("ld.so.cache"));
        if (etcBase == null || stamp != etcStamp) {
            etcBase = SandboxEtc.base(HOST_ETC, config.dataDir().resolve("etc"));
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

    /** What this host lacks for the bwrap driver with default settings; empty when it can run sandboxes. */
    public static List<String> checkHost() {
        return checkHost(BwrapConfig.defaults(Path.of("/var/lib/paddock")));
    }

    public static List<String> checkHost(BwrapConfig config) {
        return HostCheck.problems(config);
    }

    /** Why this host cannot enforce disk limits ({@code limits.disk}); empty when it can. */
    public Optional<String> diskQuotaProblem() {
        return Optional.ofNullable(diskProblem);
    }

    public String cgroupVersion() {
        return cgroups.version();
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Conformance conformance() {
        return BwrapConformance.RECORD;
    }

    /** The claims of this driver, also where it cannot run (to list it with the reason). */
    public static Conformance conformanceRecord() {
        return BwrapConformance.RECORD;
    }

    @Override
    public Limits limits(Limits requested) {
        return (requested == null ? Limits.DEFAULT : requested).requireCpusOfThisHost();
    }

    @Override
    public Sandbox create(SandboxSpec spec, Fence fence) {
        SandboxPaths paths = SandboxPaths.of(config.dataDir(), spec.sandboxId());
        if (fence == null) throw new PaddockException(ErrorCode.FENCE_REQUIRED, "creating a sandbox needs the fence of its owner");
        boolean egress = spec.network().mode() != NetworkPolicy.Mode.NONE;
        if (egress && spec.egress() == null) {
            // fail closed: without the proxy's socket there is no enforced way out, so no network at all
            throw new UnsupportedCapabilityException(ID, "network mode " + spec.network().mode().name().toLowerCase()
                    + " without the egress proxy (the runtime host opens it); use network mode none");
        }
        BwrapArgs.Root root = resolveRoot(spec);
        spec.env().forEach(SandboxLayout::checkEnv);
        SandboxDirs.claimRunDir(ID, paths.sandboxId(), paths.runDir());
        int uid = allocateUid(paths);
        SandboxMeta meta = new SandboxMeta(spec.sandboxId(), uid, uid, spec.image(), Instant.now(), fence, Map.of());
        SandboxCgroup cgroup = null;
        SandboxLauncher launcher = null;
        String hostname = spec.sandboxId().length() > 63 ? spec.sandboxId().substring(0, 63) : spec.sandboxId();
        try {
            EgressFiles egressFiles = egress ? EgressFiles.of(spec.egress(), paths.egressFiles()) : null;
            BwrapArgs.Egress way = egress ? new BwrapArgs.Egress(egressFiles.socketDir(), egressFiles.socketName(), egressFiles.caBundle(),
                    hasSystemBundle(root), egressFiles.env()) : null;
            List<String> args = BwrapArgs.build(config.bwrap(), initBinary, paths.workspace(), hostname, root, spec.env(), way);
            List<String> ownMounts = launchNamespace == null ? List.of() : launchNamespace.launchArgs(paths.sandboxDir()).orElse(List.of());
            // starting a process from the JVM takes milliseconds: the launcher starts while the disk, the cgroups and the
            // files are made here, and waits (cgroups not joined yet) until proceed() says they are ready
            CompletableFuture<SandboxLauncher> starting = CompletableFuture.supplyAsync(() -> SandboxLauncher.start(initBinary, paths, uid, uid,
                    cgroups.open(spec.sandboxId()).selfJoinFiles(), ownMounts, args), PREPARE);
            try {
                // before anything is written under the sandbox's directory: the disk is mounted over it
                prepareDisk(paths, spec.limits().diskBytes());
                cgroup = cgroups.create(spec.sandboxId(), spec.limits());
                meta = new SandboxMeta(spec.sandboxId(), uid, uid, spec.image(), meta.createdAt(), fence, cgroup.dirs());
                makeWorkspace(paths, uid);
                if (root instanceof BwrapArgs.Root.Host) SandboxEtc.writeOwn(paths.etc(), uid, hostname);
                if (egress) egressFiles.write(spec.egress(), uid);
            } catch (RuntimeException setup) {
                try {
                    launcher = started(starting); // to be aborted below
                } catch (RuntimeException alsoLauncher) {
                    setup.addSuppressed(alsoLauncher);
                }
                throw setup;
            }
            launcher = started(starting);
            launcher.proceed();
            // written while bwrap sets up; a host that dies before this line leaves a run dir that destroy() handles
            meta.write(paths.meta());
            awaitLaunch(launcher, paths);
            return new BwrapSandbox(this, paths, meta, cgroup);
        } catch (RuntimeException e) {
            if (launcher != null) launcher.abort();
            if (cgroup != null) cleanUp(paths, cgroup, meta);
            else { unmountDisk(paths); deleteRunDir(paths); uids.release(uid, spec.sandboxId()); }
            throw e;
        }
    }

    /** The launcher once its process started; throws what kept it from starting. */
    private static SandboxLauncher started(CompletableFuture<SandboxLauncher> starting) {
        try {
            return starting.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : PaddockException.internal("cannot start the sandbox: " + e.getCause(), e.getCause());
        }
    }

    /**
     * Gives the sandbox a filesystem of {@code bytes} (its workspace and outputs) mounted over its directory, or
     * mounts the one it already has; fails closed when a limit is asked for and this host cannot enforce it.
     */
    private void prepareDisk(SandboxPaths paths, long bytes) {
        if (bytes > 0 && disk == null) {
            throw new PaddockException(ErrorCode.DISK_QUOTA_UNAVAILABLE,
                    "this host cannot enforce limits.disk: " + diskProblem + "; create the sandbox without limits.disk");
        }
        if (disk == null) return;
        try {
            Files.createDirectories(paths.sandboxDir());
        } catch (IOException e) {
            throw PaddockException.internal("cannot prepare the directory of sandbox " + paths.sandboxId() + ": " + e.getMessage(), e);
        }
        if (!disk.ensureMounted(paths.sandboxId(), paths.sandboxDir()) && bytes > 0) {
            disk.create(paths.sandboxId(), paths.sandboxDir(), bytes);
        }
    }

    /** Mounts the sandbox's own filesystem again when it has one that is not mounted (after a host reboot). */
    private boolean mountDisk(SandboxPaths paths) {
        return disk != null && disk.ensureMounted(paths.sandboxId(), paths.sandboxDir());
    }

    /**
     * Mounts an ended sandbox's filesystem for a read of its files, and unmounts the least recently read ones beyond
     * {@link EndedMounts}' bound (a later read mounts them again).
     */
    private void mountForRead(SandboxPaths paths) {
        // one step, so a concurrent read of the sandbox being evicted either keeps it or mounts it again
        synchronized (endedMounts) {
            if (!mountDisk(paths) || Files.exists(paths.runDir(), LinkOption.NOFOLLOW_LINKS)) return;
            for (SandboxPaths evicted : endedMounts.read(paths)) unmountDisk(evicted);
        }
    }

    private void unmountDisk(SandboxPaths paths) {
        if (disk == null) return;
        try {
            disk.unmount(paths.sandboxId(), paths.sandboxDir());
        } catch (RuntimeException e) {
            // the files stay where they are; the next read mounts again, purge retries
        }
    }

    private int allocateUid(SandboxPaths paths) {
        try {
            return uids.allocate(paths.sandboxId());
        } catch (RuntimeException e) {
            deleteRunDir(paths);
            throw e;
        }
    }

    /** Returns once init serves; a failure carries the end of the sandbox's log. */
    private void awaitLaunch(SandboxLauncher launcher, SandboxPaths paths) {
        try {
            launcher.await(config.startTimeout());
        } catch (PaddockException e) {
            String log = "";
            try {
                log = new String(Files.readAllBytes(paths.log()), StandardCharsets.UTF_8).trim();
            } catch (IOException ignored) { }
            if (log.isEmpty()) throw e;
            String message = e.getMessage() + "; sandbox log: " + Text.clip(log.substring(Math.max(0, log.length() - 400)), 400);
            throw e.errorCode() == ErrorCode.SANDBOX_START_FAILED ? StartFailure.of(message) : new PaddockException(e.errorCode(), message, e);
        }
    }

    /** Whether the root has a system CA bundle to mount the egress bundle over (a mount needs an existing file). */
    private static boolean hasSystemBundle(BwrapArgs.Root root) {
        return switch (root) {
            case BwrapArgs.Root.Host h -> Files.isRegularFile(h.etcBase().resolve("ssl/certs/ca-certificates.crt"), LinkOption.NOFOLLOW_LINKS);
            // inside an image only a regular file (no symlink that bwrap would resolve elsewhere) is replaced
            case BwrapArgs.Root.Image i -> Files.isRegularFile(i.rootfs().resolve("etc/ssl/certs/ca-certificates.crt"), LinkOption.NOFOLLOW_LINKS);
        };
    }

    private BwrapArgs.Root resolveRoot(SandboxSpec spec) {
        if (spec.image() == null) {
            if (spec.writableRootfs()) throw new UnsupportedCapabilityException(ID, "a writable root without an image (name an image)");
            return new BwrapArgs.Root.Host(etcBase(), SandboxPaths.of(config.dataDir(), spec.sandboxId()).etc());
        }
        Path rootfs = ImageLayout.inDataDir(config.dataDir()).rootfs(spec.image());
        if (!Files.isDirectory(rootfs)) {
            throw new PaddockException(ErrorCode.NOT_FOUND, "image '" + spec.image() + "' does not exist: expected a root filesystem at " + rootfs);
        }
        if (spec.writableRootfs() && !overlaySupported) {
            throw new UnsupportedCapabilityException(ID, "a writable root filesystem with this bubblewrap (needs bubblewrap 0.9 or later for --tmp-overlay)");
        }
        for (String dir : List.of("workspace", "proc", "dev", "tmp")) {
            if (!spec.writableRootfs() && !Files.isDirectory(rootfs.resolve(dir))) {
                throw new PaddockException(ErrorCode.INVALID_IMAGE, "image '" + spec.image() + "' has no /" + dir + " directory; add it to " + rootfs);
            }
        }
        return new BwrapArgs.Root.Image(rootfs, spec.writableRootfs());
    }

    @Override
    public Optional<Sandbox> attach(SandboxRef ref) {
        if (ref == null || !SandboxPaths.isSafeId(ref.sandboxId())) return Optional.empty();
        SandboxPaths paths = SandboxPaths.of(config.dataDir(), ref.sandboxId());
        Optional<SandboxMeta> meta = SandboxMeta.read(paths.meta());
        if (meta.isEmpty()) return Optional.empty();
        SandboxCgroup cgroup = cgroupOf(meta.get());
        if (!cgroup.exists()) return Optional.empty();
        try {
            mountDisk(paths);
        } catch (PaddockException e) {
            return Optional.empty();
        }
        BwrapSandbox sandbox = new BwrapSandbox(this, paths, meta.get(), cgroup);
        // a host that died inside a restore's swap left the sandbox frozen: finish the swap before anyone thaws it
        recoverWorkspace(paths, meta.get().uid(), meta.get().gid());
        if (cgroup.frozen()) return cgroup.pids() > 0 ? Optional.of(sandbox) : Optional.empty();
        try {
            sandbox.init().ping(Duration.ofSeconds(2));
            return Optional.of(sandbox);
        } catch (PaddockException e) {
            return Optional.empty();
        }
    }

    @Override
    public List<SandboxRef> list() {
        return SandboxDirs.list(ID, config.dataDir());
    }

    @Override
    public void destroy(SandboxRef ref) {
        if (ref == null || !SandboxPaths.isSafeId(ref.sandboxId())) return;
        SandboxPaths paths = SandboxPaths.of(config.dataDir(), ref.sandboxId());
        Optional<SandboxMeta> meta = SandboxMeta.read(paths.meta());
        SandboxCgroup cgroup = meta.map(this::cgroupOf).orElseGet(() -> cgroups.open(ref.sandboxId()));
        if (meta.isPresent()) {
            cleanUp(paths, cgroup, meta.get());
        } else {
            cgroup.killAll();
            cgroup.remove();
            SandboxEtc.delete(paths.etc());
            unmountDisk(paths);
            deleteRunDir(paths);
        }
    }

    /**
     * Deletes everything the sandbox kept on the host: its filesystem image (unmounted first), its workspace and
     * outputs and its directory. Only for a sandbox that no longer runs.
     */
    @Override
    public void purge(SandboxRef ref) {
        if (ref == null || !SandboxPaths.isSafeId(ref.sandboxId())) return;
        SandboxPaths paths = SandboxPaths.of(config.dataDir(), ref.sandboxId());
        if (Files.exists(paths.runDir(), LinkOption.NOFOLLOW_LINKS)) {
            throw new PaddockException(ErrorCode.SANDBOX_RUNNING, "sandbox " + ref.sandboxId() + " still runs on this host; delete it before purging its files");
        }
        endedMounts.forget(ref.sandboxId());
        if (disk != null) disk.delete(ref.sandboxId(), paths.sandboxDir());
        // without an image the files are emptied through the race-safe workspace code first, then the tree goes
        SandboxDriver.super.purge(ref);
        SandboxDirs.deleteTree(paths.sandboxDir());
    }

    @Override
    public Optional<Workspace> workspace(SandboxRef ref) {
        if (ref == null || !SandboxPaths.isSafeId(ref.sandboxId())) return Optional.empty();
        SandboxPaths paths = SandboxPaths.of(config.dataDir(), ref.sandboxId());
        mountForRead(paths);
        Path ws = paths.workspace();
        if (!Files.isDirectory(ws, LinkOption.NOFOLLOW_LINKS)) return Optional.empty();
        try {
            int uid = (Integer) Files.getAttribute(ws, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            int gid = (Integer) Files.getAttribute(ws, "unix:gid", LinkOption.NOFOLLOW_LINKS);
            HostDirWorkspace workspace = openWorkspace(paths, uid, gid);
            if (!Files.exists(paths.runDir(), LinkOption.NOFOLLOW_LINKS)) workspace.recover(); // ended: nothing runs in it
            return Optional.of(workspace);
        } catch (IOException e) {
            throw PaddockException.internal("cannot read the owner of " + ws + ": " + e.getMessage(), e);
        }
    }

    HostDirWorkspace openWorkspace(SandboxPaths paths, int uid, int gid) {
        return new HostDirWorkspace(paths.workspace(), Workspace.ROOT, uid, gid, TarLimits.DEFAULT, paths.staging());
    }

    private void recoverWorkspace(SandboxPaths paths, int uid, int gid) {
        if (!Files.isDirectory(paths.workspace(), LinkOption.NOFOLLOW_LINKS)) return;
        try {
            openWorkspace(paths, uid, gid).recover();
        } catch (PaddockException e) {
            // the files stay as they are; the next restore recovers first
        }
    }

    @Override
    public Optional<Workspace> outputs(SandboxRef ref) {
        if (ref == null || !SandboxPaths.isSafeId(ref.sandboxId())) return Optional.empty();
        SandboxPaths paths = SandboxPaths.of(config.dataDir(), ref.sandboxId());
        mountForRead(paths);
        Path dir = paths.outputs();
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) return Optional.empty();
        try {
            int uid = (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            int gid = (Integer) Files.getAttribute(dir, "unix:gid", LinkOption.NOFOLLOW_LINKS);
            return Optional.of(openOutputs(paths, uid, gid));
        } catch (IOException e) {
            throw PaddockException.internal("cannot read the owner of " + dir + ": " + e.getMessage(), e);
        }
    }

    Workspace openOutputs(SandboxPaths paths, int uid, int gid) {
        return new HostDirWorkspace(paths.outputs(), Workspace.OUTPUTS, uid, gid, TarLimits.DEFAULT, paths.staging());
    }

    /**
     * Unmounts the ended sandboxes mounted for reads and ends the launch namespace; running sandboxes keep their disks
     * and namespaces (they outlive this process).
     */
    @Override
    public void close() {
        for (SandboxPaths paths : endedMounts.drain()) unmountDisk(paths);
        if (launchNamespace != null) launchNamespace.close();
    }

    /** Kills everything of a sandbox, removes its cgroup and run directory and frees its uid; keeps the workspace. */
    void release(SandboxPaths paths, SandboxMeta meta) {
        cleanUp(paths, cgroupOf(meta), meta);
    }

    /** The groups recorded at creation: this process's own cgroup (and so the default parent) may have changed. */
    private SandboxCgroup cgroupOf(SandboxMeta meta) {
        try {
            return meta.cgroupDirs().isEmpty() ? cgroups.open(meta.sandboxId()) : cgroups.restore(meta.cgroupDirs());
        } catch (IllegalArgumentException e) {
            return cgroups.open(meta.sandboxId());
        }
    }

    private void cleanUp(SandboxPaths paths, SandboxCgroup cgroup, SandboxMeta meta) {
        cgroup.killAll();
        cgroup.remove();
        SandboxEtc.delete(paths.etc());
        EgressFiles.delete(paths.egressFiles());
        unmountDisk(paths);
        deleteRunDir(paths);
        uids.release(meta.uid(), meta.sandboxId());
    }

    private void prepareDataDir() {
        Path data = config.dataDir();
        // sandbox uids must be able to reach their workspace and the init binary, nothing else
        SandboxDirs.makeDirs("rwx--x--x", data, data.resolve("bin"), data.resolve("sandboxes"));
        SandboxDirs.makeDirs("rwx------", data.resolve("run"), data.resolve("uids"), data.resolve("disks"));
    }

    private static void makeWorkspace(SandboxPaths paths, int uid) {
        try {
            Files.createDirectories(paths.sandboxDir());
            Files.setPosixFilePermissions(paths.sandboxDir(), PosixFilePermissions.fromString("rwx--x--x"));
        } catch (IOException e) {
            throw PaddockException.internal("cannot prepare the directory of sandbox " + paths.sandboxId() + ": " + e.getMessage(), e);
        }
        makeOwnedDir(paths, paths.workspace(), uid);
        makeOwnedDir(paths, paths.outputs(), uid);
    }

    /** A directory only the sandbox's uid can reach; a kept one (earlier run) is handed to the new uid. */
    private static void makeOwnedDir(SandboxPaths paths, Path ws, int uid) {
        try {
            if (Files.isSymbolicLink(ws)) throw PaddockException.internal(ws + " is a symlink; refusing to use it", null);
            if (Files.exists(ws, LinkOption.NOFOLLOW_LINKS)) {
                // a kept workspace may belong to an earlier uid: hand the whole tree to the new one (not following links)
                try (Stream<Path> tree = Files.walk(ws)) {
                    for (Path p : (Iterable<Path>) tree::iterator) chown(p, uid);
                }
                Files.setPosixFilePermissions(ws, PosixFilePermissions.fromString("rwx------"));
            } else {
                // a fresh workspace is empty: one directory to create and hand over, nothing to walk
                Files.createDirectory(ws, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                chown(ws, uid);
            }
        } catch (IOException e) {
            throw PaddockException.internal("cannot prepare " + ws.getFileName() + " of sandbox " + paths.sandboxId() + ": " + e.getMessage(), e);
        }
    }

    private static void chown(Path p, int uid) throws IOException {
        Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", uid, LinkOption.NOFOLLOW_LINKS);
    }

    private static void deleteRunDir(SandboxPaths paths) {
        SandboxDirs.deleteTree(paths.runDir());
    }


    private String bwrapHelp() {
        try {
            Process p = new ProcessBuilder(config.bwrap().toString(), "--help").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            return out;
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
