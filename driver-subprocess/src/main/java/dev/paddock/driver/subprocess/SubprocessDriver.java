package dev.paddock.driver.subprocess;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.TestMode;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.Workspace;
import dev.paddock.workspace.HostDirWorkspace;
import dev.paddock.workspace.TarLimits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * A driver for tests only: commands run as plain host processes of the Paddock user, with the sandbox's
 * workspace directory ({@code <dataDir>/sandboxes/<id>/workspace}) as their {@code /workspace}. There is NO
 * isolation of any kind (no network policy, no limits), so it refuses to exist unless test mode is on, or an
 * operator allowed sandbox-free sessions, which then are the only thing it serves.
 */
public final class SubprocessDriver implements SandboxDriver {
    public static final String ID = "subprocess";
    private static final Pattern SAFE_ID = Pattern.compile("[A-Za-z0-9_-]{1,128}");

    private static final Conformance CONFORMANCE = new Conformance(
            ID,
            "For tests and sandbox-free sessions only: runs commands as plain host processes in the workspace directory. "
                    + "No isolation, no limits, no network policy; refuses to start unless test mode is on or the operator "
                    + "allowed sandbox-free environments, and then serves only their sessions.",
            Set.of(Conformance.Lane.SUPERVISED, Conformance.Lane.WORKER),
            new Conformance.Lifecycle(Conformance.Lease.HOST_FENCED, Conformance.Support.UNSUPPORTED,
                    Conformance.Support.SUPPORTED, Conformance.OrphanReap.UNAVAILABLE),
            new Conformance.WorkspaceFacts(List.of(Conformance.WorkspaceStrategy.DURABLE_MOUNT), Conformance.Durability.DURABLE),
            new Conformance.Outputs("host_directory"),
            new Conformance.CredentialEgress(Conformance.Enforcement.UNSUPPORTED, List.of()),
            List.of("workspace_tar"),
            new Conformance.PortFacts(
                    List.of("exec", "files", "background_processes", "process_tree_kill", Conformance.FILE_WATCH),
                    List.of("isolation", "network_policy", "cgroup_limits", "suspend_resume", "oom_detection",
                            "reattach_after_restart", "rootfs_images",
                            Conformance.TERMINAL, Conformance.PORT_FORWARD, Conformance.NETWORK_UPDATE)));

    private final Path dataDir;
    private final Map<String, SubprocessSandbox> live = new ConcurrentHashMap<>();

    /** @throws PaddockException {@code test_mode_required} unless test mode is on */
    public SubprocessDriver(Path dataDir) {
        this(dataDir, false);
    }

    /**
     * The driver for sessions of sandbox-free environments (type {@code none}), which an operator allowed on purpose
     * ({@code allow_sandbox_free}); the host reserves it for them ({@code RuntimeHost.reserveForSandboxFree}).
     */
    public static SubprocessDriver forSandboxFreeSessions(Path dataDir) {
        return new SubprocessDriver(dataDir, true);
    }

    private SubprocessDriver(Path dataDir, boolean sandboxFreeAllowed) {
        if (!sandboxFreeAllowed && !TestMode.enabled()) {
            throw new PaddockException(ErrorCode.TEST_MODE_REQUIRED,
                    "the subprocess driver runs agent commands directly on the host without any isolation and exists only "
                            + "for tests; enable test mode (paddock.test-mode=true or PADDOCK_TEST_MODE=1) or pick an isolating driver such as bwrap");
        }
        this.dataDir = dataDir.toAbsolutePath();
    }

    @Override
    public String id() { return ID; }

    @Override
    public Conformance conformance() { return CONFORMANCE; }

    @Override
    public Sandbox create(SandboxSpec spec, Fence fence) {
        if (spec.network().mode() == NetworkPolicy.Mode.LIMITED) {
            throw new PaddockException(ErrorCode.UNSUPPORTED_NETWORK_POLICY,
                    "the subprocess driver cannot enforce a limited network; use an isolating driver");
        }
        Path dir = workspaceDir(spec.sandboxId());
        try {
            Files.createDirectories(dir);
            Files.createDirectories(outputsDir(spec.sandboxId()));
        } catch (IOException e) {
            throw new UncheckedIOException("could not create the workspace of " + spec.sandboxId(), e);
        }
        SandboxRef ref = new SandboxRef(spec.sandboxId(), ID, spec.sandboxId());
        SubprocessSandbox sandbox = new SubprocessSandbox(ref, spec, dir, outputsDir(spec.sandboxId()));
        live.put(spec.sandboxId(), sandbox);
        return sandbox;
    }

    /** Host processes do not survive the host: there is never anything to re-attach to. */
    @Override
    public Optional<Sandbox> attach(SandboxRef ref) {
        return Optional.empty();
    }

    @Override
    public List<SandboxRef> list() {
        return List.of();
    }

    @Override
    public void destroy(SandboxRef ref) {
        SubprocessSandbox sandbox = live.remove(ref.sandboxId());
        if (sandbox != null) sandbox.terminate(TerminationReason.ORPHAN_REAPED);
    }

    @Override
    public Optional<Workspace> workspace(SandboxRef ref) {
        Path dir = workspaceDir(ref.sandboxId());
        if (!Files.isDirectory(dir)) return Optional.empty();
        HostDirWorkspace ws = workspaceAt(dir);
        if (!live.containsKey(ref.sandboxId())) ws.recover(); // an ended sandbox: nothing runs that could see a half swap
        return Optional.of(ws);
    }

    @Override
    public Optional<Workspace> outputs(SandboxRef ref) {
        Path dir = outputsDir(ref.sandboxId());
        return Files.isDirectory(dir) ? Optional.of(outputsAt(dir)) : Optional.empty();
    }

    /** The workspace and outputs share the staging area beside them ({@code sandboxes/<id>/.staging}). */
    static HostDirWorkspace workspaceAt(Path dir) {
        return new HostDirWorkspace(dir, Workspace.ROOT, -1, -1, TarLimits.DEFAULT, dir.resolveSibling(".staging"));
    }

    static HostDirWorkspace outputsAt(Path dir) {
        return new HostDirWorkspace(dir, Workspace.OUTPUTS, -1, -1, TarLimits.DEFAULT, dir.resolveSibling(".staging"));
    }

    @Override
    public void close() {
        live.values().forEach(s -> s.terminate(TerminationReason.HOST_SHUTDOWN));
        live.clear();
    }

    private Path workspaceDir(String sandboxId) {
        if (sandboxId == null || !SAFE_ID.matcher(sandboxId).matches()) {
            throw new PaddockException(ErrorCode.INVALID_SANDBOX_ID, "sandbox id must be 1-128 letters, digits, '_' or '-'");
        }
        return dataDir.resolve("sandboxes").resolve(sandboxId).resolve("workspace");
    }

    /** Host processes cannot see /mnt/session/outputs: commands find this directory in $PADDOCK_OUTPUTS instead. */
    private Path outputsDir(String sandboxId) {
        return workspaceDir(sandboxId).resolveSibling("outputs");
    }
}
