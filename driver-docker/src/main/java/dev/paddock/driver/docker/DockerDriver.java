package dev.paddock.driver.docker;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
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
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Runs each sandbox as a Docker container, talking to the Docker Engine API on its unix socket directly (the
 * documented HTTP API over the JDK's unix-domain {@code SocketChannel}, see {@link EngineHttp}). A client library
 * was weighed and not taken: docker-java's core brings Guava, BouncyCastle, commons-io/lang and Jackson 2 (tens of
 * megabytes) for the dozen calls used here, while the API is stable, versioned and small; a direct call also costs
 * one local connection and no client-side pooling or reflection.
 *
 * <p>The container's pid 1 is the init agent, which serves exec, files and background processes on a socket in a
 * bound per-sandbox host directory; so commands run without {@code docker exec}'s round trips through the engine.
 * The container has network mode {@code none}: its only way out is init's forwarder on its loopback, relaying to the
 * egress proxy's bound socket, so credential egress is enforced. Every sandbox runs as one unprivileged uid
 * ({@link DockerConfig#uid()}) that owns its workspace, with all capabilities dropped, no new privileges, the
 * engine's default seccomp profile (runc) and a read-only root unless a writable one is asked for. Under runsc
 * (gVisor) a memory overrun ends the whole sandbox, since gVisor's kernel is in the container's memory cgroup. Pause and
 * unpause are suspend and resume. Labels name the data directory, sandbox and fence, so a restarted host lists and
 * re-attaches its containers and reaps orphans. No image is ever pulled: the host root and Paddock images are
 * imported from local files, other images must already be in the engine.
 */
public final class DockerDriver implements SandboxDriver {
    public static final String ID = "docker";
    static final String LABEL_DRIVER = "dev.paddock.driver";
    static final String LABEL_DATA_DIR = "dev.paddock.data-dir";
    static final String LABEL_SANDBOX = "dev.paddock.sandbox";
    static final String LABEL_FENCE_OWNER = "dev.paddock.fence-owner";
    static final String LABEL_FENCE_GENERATION = "dev.paddock.fence-generation";
    static final String LABEL_IMAGE = "dev.paddock.image";
    static final String LABEL_CREATED = "dev.paddock.created-at";
    private static final Path HOST_ETC = Path.of("/etc");
    private static final Duration PING = Duration.ofSeconds(2);

    private final DockerConfig config;
    private final DockerEngine engine;
    private final RootImages images;
    private final Path initBinary;
    private final String namePrefix;
    private final int engineCpus;
    private Path etcBase;
    private long etcStamp;

    public DockerDriver(DockerConfig config) {
        List<String> problems = HostCheck.problems(config);
        if (!problems.isEmpty()) {
            throw new PaddockException(ErrorCode.DRIVER_UNAVAILABLE, "the docker driver cannot run on this host: " + String.join("; ", problems));
        }
        this.config = config;
        this.engine = DockerEngine.connect(config.dockerHost(), HostCheck.PING);
        this.engineCpus = engine.info().path("NCPU").asInt(Runtime.getRuntime().availableProcessors());
        prepareDataDir();
        this.initBinary = InitBinary.install(config.dataDir().resolve("bin"));
        this.images = new RootImages(engine, config.dataDir());
        this.namePrefix = "paddock-" + sha256(config.dataDir().toString()).substring(0, 10) + "-";
    }

    /** What this host lacks for the Docker driver with {@code config}; empty when it can run sandboxes. */
    public static List<String> checkHost(DockerConfig config) {
        return HostCheck.problems(config);
    }

    /** The claims of every Docker driver, readable without an engine (to list the driver where it cannot run). */
    public static Conformance conformanceRecord() {
        return DockerConformance.RECORD;
    }

    public DockerConfig config() {
        return config;
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Conformance conformance() {
        return DockerConformance.record(config.runtime());
    }

    @Override
    public Limits limits(Limits requested) {
        Limits limits = requested == null ? Limits.DEFAULT : requested;
        if (limits.diskBytes() > 0) {
            throw new PaddockException(ErrorCode.DISK_QUOTA_UNAVAILABLE, "the docker driver cannot enforce limits.disk: the workspace and outputs"
                    + " are host directories bound into the container; create the sandbox without limits.disk");
        }
        return limits.requireCpusWithin(engineCpus, "the Docker engine's host");
    }

    @Override
    public Sandbox create(SandboxSpec spec, Fence fence) {
        if (fence == null) throw new PaddockException(ErrorCode.FENCE_REQUIRED, "creating a sandbox needs the fence of its owner");
        SandboxDirs paths = SandboxDirs.of(ID, config.stateDir(), spec.sandboxId());
        boolean egress = spec.network().mode() != NetworkPolicy.Mode.NONE;
        if (egress && spec.egress() == null) {
            // fail closed: without the proxy's socket there is no enforced way out, so no network at all
            throw new UnsupportedCapabilityException(ID, "network mode " + spec.network().mode().name().toLowerCase()
                    + " without the egress proxy (the runtime host opens it); use network mode none");
        }
        Limits limits = limits(spec.limits());
        if (spec.image() == null && spec.writableRootfs()) {
            throw new UnsupportedCapabilityException(ID, "a writable root without an image (name an image)");
        }
        String hostname = spec.sandboxId().length() > 63 ? spec.sandboxId().substring(0, 63) : spec.sandboxId();
        Map<String, String> labels = labels(spec, fence);
        ContainerConfig.environment(spec.env(), null); // checks the names and values before anything is made
        RootImages.Root root = images.resolve(spec.image());
        SandboxDirs.claimRunDir(ID, paths.sandboxId(), paths.runDir());
        String containerId = null;
        try {
            makeSandboxDirs(paths);
            ContainerConfig.HostEtc etc = null;
            if (root instanceof RootImages.Root.Host) {
                SandboxEtc.writeOwn(paths.etc(), config.uid(), hostname);
                etc = new ContainerConfig.HostEtc(etcBase(), paths.etc());
            }
            EgressFiles egressFiles = egress ? EgressFiles.prepare(spec.egress(), paths.egressFiles(), config.uid()) : null;
            containerId = engine.create(containerName(spec.sandboxId()), ContainerConfig.build(root, spec.writableRootfs(), etc, config, paths,
                    initBinary, hostname, limits, spec.env(), egressFiles, labels));
            engine.start(containerId);
            awaitInit(containerId, paths);
            DockerEngine.Container c = engine.inspect(containerId).orElseThrow(() -> startFailed(paths, "the container vanished while starting"));
            return new DockerSandbox(this, paths, c);
        } catch (RuntimeException e) {
            if (containerId != null) {
                try {
                    engine.remove(containerId);
                } catch (RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
            }
            releaseFiles(paths);
            throw e;
        }
    }

    private Map<String, String> labels(SandboxSpec spec, Fence fence) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(LABEL_DRIVER, ID);
        labels.put(LABEL_DATA_DIR, config.dataDir().toString());
        labels.put(LABEL_SANDBOX, spec.sandboxId());
        labels.put(LABEL_FENCE_OWNER, fence.ownerId());
        labels.put(LABEL_FENCE_GENERATION, Long.toString(fence.generation()));
        if (spec.image() != null) labels.put(LABEL_IMAGE, spec.image());
        labels.put(LABEL_CREATED, Instant.now().toString());
        return labels;
    }

    /** Returns once init answers on its socket; fails with the container's own output when it stopped or never answered. */
    private void awaitInit(String containerId, SandboxDirs paths) {
        InitClient init = new InitClient(paths.socket());
        long deadline = System.nanoTime() + config.startTimeout().toNanos();
        long nextStateCheck = System.nanoTime() + Duration.ofMillis(200).toNanos();
        while (true) {
            if (Files.exists(paths.socket(), LinkOption.NOFOLLOW_LINKS)) {
                try {
                    init.ping(PING);
                    return;
                } catch (PaddockException notYet) {
                    // bound but not accepting yet
                }
            }
            long now = System.nanoTime();
            if (now > deadline) {
                throw new PaddockException(ErrorCode.SANDBOX_START_TIMEOUT, "sandbox " + paths.sandboxId() + " did not start: init did not answer within "
                        + config.startTimeout().toSeconds() + " s; the host is busy" + logOf(containerId));
            }
            if (now > nextStateCheck) {
                nextStateCheck = now + Duration.ofMillis(200).toNanos();
                Optional<DockerEngine.Container> c = engine.inspect(containerId);
                if (c.isEmpty() || !c.get().running()) {
                    String error = c.map(DockerEngine.Container::error).filter(s -> !s.isEmpty()).map(s -> ": " + s).orElse("");
                    throw startFailed(paths, "the container stopped while starting" + error + logOf(containerId));
                }
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw startFailed(paths, "interrupted while waiting for init");
            }
        }
    }

    private String logOf(String containerId) {
        try {
            String log = engine.logTail(containerId);
            return log.isEmpty() ? "" : "; container output: " + log;
        } catch (PaddockException e) {
            return "";
        }
    }

    private static PaddockException startFailed(SandboxDirs paths, String why) {
        return new PaddockException(ErrorCode.SANDBOX_START_FAILED, "sandbox " + paths.sandboxId() + " did not start: " + why);
    }

    @Override
    public Optional<Sandbox> attach(SandboxRef ref) {
        if (ref == null || !SandboxDirs.isSafeId(ref.sandboxId())) return Optional.empty();
        SandboxDirs paths = SandboxDirs.of(ID, config.stateDir(), ref.sandboxId());
        Optional<DockerEngine.Container> found = engine.inspect(containerName(ref.sandboxId()));
        if (found.isEmpty() || !ours(found.get()) || !found.get().running()) return Optional.empty();
        DockerEngine.Container c = found.get();
        recoverWorkspace(paths);
        if (c.paused()) return Optional.of(new DockerSandbox(this, paths, c));
        try {
            new InitClient(paths.socket()).ping(PING);
            return Optional.of(new DockerSandbox(this, paths, c));
        } catch (PaddockException e) {
            return Optional.empty();
        }
    }

    /** Containers of this data directory, and run directories a host that died mid-create left without one. */
    @Override
    public List<SandboxRef> list() {
        TreeSet<String> ids = new TreeSet<>();
        for (DockerEngine.Container c : engine.list(LABEL_DATA_DIR, config.dataDir().toString())) {
            String id = c.labels().get(LABEL_SANDBOX);
            if (SandboxDirs.isSafeId(id) && ID.equals(c.labels().get(LABEL_DRIVER))) ids.add(id);
        }
        SandboxDirs.list(ID, config.stateDir()).forEach(ref -> ids.add(ref.sandboxId()));
        return ids.stream().map(id -> new SandboxRef(id, ID, id)).toList();
    }

    @Override
    public void destroy(SandboxRef ref) {
        if (ref == null || !SandboxDirs.isSafeId(ref.sandboxId())) return;
        release(SandboxDirs.of(ID, config.stateDir(), ref.sandboxId()));
    }

    /** Removes the container (killing what runs in it) and the files only a live sandbox needs; keeps the workspace. */
    void release(SandboxDirs paths) {
        Optional<DockerEngine.Container> c = engine.inspect(containerName(paths.sandboxId()));
        if (c.isPresent() && ours(c.get())) {
            // a paused container cannot take the kill under every runtime (runsc): thaw it first, then it dies at once
            if (c.get().paused()) {
                try {
                    engine.unpause(c.get().id());
                } catch (PaddockException stale) {
                    // the engine's paused flag lags behind its own unpause: the container runs already
                }
            }
            engine.remove(c.get().id());
        }
        releaseFiles(paths);
    }

    private static void releaseFiles(SandboxDirs paths) {
        SandboxEtc.delete(paths.etc());
        EgressFiles.delete(paths.egressFiles());
        SandboxDirs.deleteTree(paths.runDir());
    }

    @Override
    public void purge(SandboxRef ref) {
        if (ref == null || !SandboxDirs.isSafeId(ref.sandboxId())) return;
        SandboxDirs paths = SandboxDirs.of(ID, config.stateDir(), ref.sandboxId());
        if (paths.running() || engine.inspect(containerName(ref.sandboxId())).filter(this::ours).isPresent()) {
            throw new PaddockException(ErrorCode.SANDBOX_RUNNING, "sandbox " + ref.sandboxId() + " still runs on this host; delete it before purging its files");
        }
        SandboxDriver.super.purge(ref);
        SandboxDirs.deleteTree(paths.sandboxDir());
    }

    @Override
    public Optional<Workspace> workspace(SandboxRef ref) {
        return SandboxDirs.of(ID, config.stateDir(), ref).flatMap(d -> d.keptWorkspace(config.uid()));
    }

    @Override
    public Optional<Workspace> outputs(SandboxRef ref) {
        return SandboxDirs.of(ID, config.stateDir(), ref).flatMap(d -> d.keptOutputs(config.uid()));
    }

    DockerEngine engine() {
        return engine;
    }

    private void recoverWorkspace(SandboxDirs paths) {
        if (!Files.isDirectory(paths.workspace(), LinkOption.NOFOLLOW_LINKS)) return;
        try {
            paths.openWorkspace(config.uid()).recover();
        } catch (PaddockException e) {
            // the files stay as they are; the next restore recovers first
        }
    }

    /** Only containers this driver made on this data directory are touched. */
    private boolean ours(DockerEngine.Container c) {
        return ID.equals(c.labels().get(LABEL_DRIVER)) && config.dataDir().toString().equals(c.labels().get(LABEL_DATA_DIR));
    }

    /** Unique per data directory, so several installations (and test runs) share one engine. */
    String containerName(String sandboxId) {
        return namePrefix + sandboxId;
    }

    /** The shared part of host-root /etc directories, rebuilt when the host's loader cache changed (a package was installed). */
    private synchronized Path etcBase() {
        long stamp = modified(HOST_ETC.resolve("ld.so.cache"));
        if (etcBase == null || stamp != etcStamp || !Files.isDirectory(etcBase)) {
            etcBase = SandboxEtc.base(HOST_ETC, config.stateDir().resolve("etc"));
            etcStamp = stamp;
            addEngineMountPoints(etcBase);
        }
        return etcBase;
    }

    /**
     * The engine mounts its own hostname and resolv.conf files into every container's /etc; on a read-only /etc they
     * need files to be mounted over ({@code hosts} is already there, a link to the sandbox's own).
     */
    private static void addEngineMountPoints(Path base) {
        for (String name : List.of("hostname", "resolv.conf")) {
            Path file = base.resolve(name);
            try {
                if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
                }
            } catch (FileAlreadyExistsException raced) {
                // another driver instance on this data directory made it
            } catch (IOException e) {
                throw PaddockException.internal("cannot prepare " + file + ": " + e.getMessage(), e);
            }
        }
    }

    private static long modified(Path p) {
        try {
            return Files.getLastModifiedTime(p).toMillis();
        } catch (IOException e) {
            return -1;
        }
    }

    private void prepareDataDir() {
        // sandbox processes reach nothing here by path (everything they use is bound into the container)
        SandboxDirs.makeDirs("rwx--x--x", config.dataDir().resolve("bin"), config.stateDir(), config.stateDir().resolve("sandboxes"));
        SandboxDirs.makeDirs("rwx------", config.stateDir().resolve("run"));
    }

    /** The workspace, outputs and control directory, owned by the sandbox uid; a kept workspace is handed over whole. */
    private void makeSandboxDirs(SandboxDirs paths) {
        try {
            Files.createDirectories(paths.sandboxDir());
            Files.setPosixFilePermissions(paths.sandboxDir(), PosixFilePermissions.fromString("rwx--x--x"));
            makeOwnedDir(paths.workspace());
            makeOwnedDir(paths.outputs());
            makeOwnedDir(paths.controlDir());
        } catch (IOException | UncheckedIOException e) {
            throw PaddockException.internal("cannot prepare the directories of sandbox " + paths.sandboxId() + ": " + e.getMessage(), e);
        }
    }

    private void makeOwnedDir(Path dir) throws IOException {
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
    }

    private void chown(Path p) throws IOException {
        Files.setAttribute(p, "unix:uid", config.uid(), LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", config.uid(), LinkOption.NOFOLLOW_LINKS);
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
