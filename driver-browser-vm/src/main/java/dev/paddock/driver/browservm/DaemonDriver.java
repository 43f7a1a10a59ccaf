package dev.paddock.driver.browservm;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.conformance.Conformance.CredentialEgress;
import dev.paddock.core.conformance.Conformance.Durability;
import dev.paddock.core.conformance.Conformance.Enforcement;
import dev.paddock.core.conformance.Conformance.Lane;
import dev.paddock.core.conformance.Conformance.Lease;
import dev.paddock.core.conformance.Conformance.Lifecycle;
import dev.paddock.core.conformance.Conformance.OrphanReap;
import dev.paddock.core.conformance.Conformance.Outputs;
import dev.paddock.core.conformance.Conformance.PortFacts;
import dev.paddock.core.conformance.Conformance.Support;
import dev.paddock.core.conformance.Conformance.WorkspaceFacts;
import dev.paddock.core.conformance.Conformance.WorkspaceStrategy;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.RuntimeListener;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.Workspace;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Sandboxes on a paired daemon: a {@code paddock runtime pair} process on a machine the server cannot reach (a
 * laptop behind NAT) that holds an outbound WebSocket to the same relay the sandbox tabs use and runs each sandbox
 * with its own local driver (bwrap by default). Ops travel as the tab's {@code sandbox.op} frames; the daemon keeps
 * its sandboxes while it reconnects, and they end with it. It has no route to the server's egress proxy or vault,
 * so its sandboxes have no network.
 */
public final class DaemonDriver implements SandboxDriver {
    public static final String ID = "daemon";

    private final BrowserVm relay;
    private final Presence presence = new Presence();
    private volatile RuntimeListener listener;
    private final Map<String, BrowserVmSandbox> sandboxes = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timers =
            Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("paddock-daemon-driver-timers").factory());

    public DaemonDriver(BrowserVm relay) {
        this.relay = relay;
        relay.watch(presence);
    }

    @Override
    public String id() { return ID; }

    public static Conformance conformanceRecord() {
        return new Conformance(ID,
                "a paired daemon (paddock runtime pair) on a machine the server cannot reach, over an outbound WebSocket relay;"
                        + " each sandbox runs under the daemon's own local driver (bwrap by default)",
                Set.of(Lane.SUPERVISED),
                new Lifecycle(Lease.PROVIDER_ONLY, Support.UNSUPPORTED, Support.SUPPORTED, OrphanReap.UNAVAILABLE),
                new WorkspaceFacts(List.of(WorkspaceStrategy.RETAINED_RUNTIME), Durability.BEST_EFFORT),
                new Outputs("unavailable"),
                new CredentialEgress(Enforcement.UNSUPPORTED, List.of()),
                List.of("workspace_tar"),
                new PortFacts(List.of("exec", "files", "workspace_tar", "local_driver_isolation", "outbound_relay"),
                        List.of("network", "credential_injection", "background_processes", "interactive_stdin",
                                "suspend_resume", "process_memory_checkpoint", "survives_daemon_restart")));
    }

    @Override
    public Conformance conformance() { return conformanceRecord(); }

    @Override
    public void watchRuntimes(RuntimeListener listener) {
        this.listener = listener;
    }

    /** The daemon's local driver enforces the limits; the request's are passed to it as they are. */
    @Override
    public Limits limits(Limits requested) {
        return requested == null ? Limits.DEFAULT : requested;
    }

    @Override
    public Sandbox create(SandboxSpec spec, Fence fence) {
        if (spec.network().mode() != NetworkPolicy.Mode.NONE) {
            throw new PaddockException(ErrorCode.NETWORK_UNSUPPORTED, "a paired daemon's sandboxes have no network: the server's egress"
                    + " proxy and its secrets do not reach the daemon's machine; create the sandbox with network none");
        }
        if (spec.image() != null || spec.writableRootfs()) {
            throw new PaddockException(ErrorCode.IMAGE_UNSUPPORTED, "a paired daemon runs sandboxes on its machine's own system directories; leave image empty");
        }
        BrowserRuntime rt = relay.claim(spec.tenantId(), spec.sandboxId(), BrowserRuntime.DAEMON_KIND);
        try {
            Limits l = spec.limits();
            Map<String, Object> limits = new LinkedHashMap<>();
            limits.put("memory_bytes", l.memoryBytes());
            limits.put("pids", l.pids());
            limits.put("cpus", l.cpus());
            limits.put("disk_bytes", l.diskBytes());
            relay.call(rt, spec.sandboxId(), "bind", Map.of("fresh", true, "limits", limits), null, 1 << 16);
        } catch (RuntimeException e) {
            rt.unbind(spec.sandboxId());
            throw e;
        }
        BrowserVmSandbox s = new BrowserVmSandbox(ID, relay, rt, spec, timers);
        sandboxes.put(spec.sandboxId(), s);
        return s;
    }

    @Override
    public Optional<Sandbox> attach(SandboxRef ref) {
        BrowserVmSandbox s = sandboxes.get(ref.sandboxId());
        return s == null || s.terminated() ? Optional.empty() : Optional.of(s);
    }

    @Override
    public List<SandboxRef> list() {
        return sandboxes.values().stream().filter(s -> !s.terminated()).map(BrowserVmSandbox::ref).toList();
    }

    @Override
    public void destroy(SandboxRef ref) {
        BrowserVmSandbox s = sandboxes.remove(ref.sandboxId());
        if (s != null) s.terminate(TerminationReason.ORPHAN_REAPED);
        else if (ref.handle() != null) relay.runtimeOf(ref.handle()).ifPresent(rt -> rt.unbind(ref.sandboxId()));
    }

    /** The workspace lives on the daemon's machine and ends with the sandbox: nothing is kept on the server. */
    @Override
    public Optional<Workspace> workspace(SandboxRef ref) {
        return Optional.empty();
    }

    @Override
    public void close() {
        relay.unwatch(presence);
        timers.shutdownNow();
    }

    /**
     * A daemon that loses its socket keeps its sandboxes and reconnects with its token: the host hears the runtime is
     * lost only when it is not back within the reconnect grace, and that it is back at its next hello.
     */
    private final class Presence implements BrowserVm.Presence {
        @Override
        public void offline(BrowserRuntime rt, String why) {
            if (!rt.daemon()) return;
            for (String id : rt.sandboxIds()) {
                BrowserVmSandbox s = sandboxes.get(id);
                if (s == null || s.runtime() != rt) continue;
                timers.schedule(() -> {
                    if (!rt.online() && s.markLost()) tell(l -> l.runtimeLost(id, why));
                }, relay.config().reconnectGrace().toMillis(), TimeUnit.MILLISECONDS);
            }
        }

        @Override
        public void online(BrowserRuntime rt, Frames.Hello hello) {
            if (!rt.daemon()) return;
            for (String id : rt.sandboxIds()) {
                BrowserVmSandbox s = sandboxes.get(id);
                if (s != null && s.runtime() == rt) {
                    timers.execute(() -> {
                        if (rt.online() && s.markRestored()) tell(l -> l.runtimeRestored(id, rt.id()));
                    });
                }
            }
        }
    }

    private void tell(Consumer<RuntimeListener> call) {
        RuntimeListener l = listener;
        if (l == null) return;
        try {
            call.accept(l);
        } catch (RuntimeException e) {
            // the record lags; the sandbox's ops still fail or work as the runtime does
        }
    }
}
