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
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Sandboxes on a paired daemon: a {@code paddock runtime pair} process on a machine the server cannot reach (a
 * laptop behind NAT) that holds an outbound WebSocket to the same relay the sandbox tabs use and runs each sandbox
 * with its own local driver (bwrap by default). Ops travel as the tab's {@code sandbox.op} frames; the daemon keeps
 * its sandboxes while it reconnects, and they end with it. It has no route to the server's egress proxy or vault,
 * so its sandboxes have no network.
 */
public final class DaemonDriver extends RelayedDriver {
    public static final String ID = "daemon";

    public DaemonDriver(BrowserVm relay) {
        super(relay, "paddock-daemon-driver-timers");
    }

    @Override
    BrowserVm.Presence presence() {
        return new Presence();
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
        Limits l = spec.limits();
        Map<String, Object> limits = new LinkedHashMap<>();
        limits.put("memory_bytes", l.memoryBytes());
        limits.put("pids", l.pids());
        limits.put("cpus", l.cpus());
        limits.put("disk_bytes", l.diskBytes());
        BrowserRuntime rt = relay.claim(spec.tenantId(), spec.sandboxId(), BrowserRuntime.DAEMON_KIND);
        return bind(rt, spec, Map.of("fresh", true, "limits", limits));
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
}
