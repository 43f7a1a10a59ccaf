package dev.paddock.driver.browservm;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
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
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxSpec;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sandboxes that live in a WASM Linux VM (v86 by default) inside a browser tab the user keeps open. The tab is an
 * unreachable, hostile execution host: it pairs with a one-time code, holds a WebSocket to the server, and runs the
 * ops sent down it. One sandbox per tab at a time; no network inside the VM; nothing survives the server's restart.
 */
public final class BrowserVmDriver extends RelayedDriver {
    private static final Logger log = LoggerFactory.getLogger(BrowserVmDriver.class);
    public static final String ID = "browser-vm";

    private final VmResources resources;

    public BrowserVmDriver(BrowserVm vm) {
        super(vm, "paddock-browser-vm-timers");
        this.resources = VmResources.of(relay.config().assetsDir());
    }

    @Override
    BrowserVm.Presence presence() {
        return new Presence();
    }

    /** The VM's fixed resources: a request for other limits is refused, and a sandbox reports these. */
    @Override
    public Limits limits(Limits requested) {
        return resources.check(requested);
    }

    public BrowserVm runtimeService() { return relay; }

    @Override
    public String id() { return ID; }

    @Override
    public Conformance conformance() {
        return new Conformance(ID,
                "a 32-bit Linux VM (v86, WASM) in the user's own browser tab, reached over the tab's WebSocket relay",
                Set.of(Lane.SUPERVISED),
                new Lifecycle(Lease.PROVIDER_ONLY, Support.UNSUPPORTED, Support.SUPPORTED, OrphanReap.UNAVAILABLE),
                new WorkspaceFacts(List.of(WorkspaceStrategy.RETAINED_RUNTIME), Durability.BEST_EFFORT),
                new Outputs("unavailable"),
                new CredentialEgress(Enforcement.UNSUPPORTED, List.of()),
                List.of(),
                new PortFacts(List.of("exec", "files", "opfs_workspace_mirror", "saved_vm_state"),
                        List.of("network", "raw_tcp", "bind_mounts", "background_processes", "interactive_stdin",
                                "suspend_resume", "memory_limits", "cpu_limits", "pids_limits",
                                Conformance.TERMINAL, Conformance.PORT_FORWARD, Conformance.NETWORK_UPDATE, Conformance.FILE_WATCH)));
    }

    @Override
    public Sandbox create(SandboxSpec spec, Fence fence) {
        if (spec.network().mode() != NetworkPolicy.Mode.NONE) {
            throw new PaddockException(ErrorCode.NETWORK_UNSUPPORTED,
                    "the browser-vm driver has no network inside the VM (no raw TCP from a tab); create the sandbox with network none");
        }
        if (spec.image() != null) {
            throw new PaddockException(ErrorCode.IMAGE_UNSUPPORTED, "the browser-vm driver runs its own built-in Linux image; leave image empty");
        }
        resources.check(spec.limits());
        BrowserRuntime rt = relay.claim(spec.tenantId(), spec.sandboxId());
        return bind(rt, spec, Map.of("fresh", true));
    }

    /**
     * A sandbox outlives its tab. When the tab's socket goes and no tab comes back within the reconnect grace, the
     * host hears that the runtime is lost (its record says so). When the same tab reconnects (a reload), or a new tab
     * of the same tenant says hello offering the sandbox's OPFS mirror (the user reopened the sandbox tab), the
     * sandbox moves to that tab, which restores /workspace from the mirror, and the host hears it is back.
     */
    private final class Presence implements BrowserVm.Presence {
        @Override
        public void offline(BrowserRuntime rt, String why) {
            if (rt.daemon()) return; // the daemon driver's
            String id = rt.sandboxId();
            BrowserVmSandbox s = id == null ? null : sandboxes.get(id);
            if (s == null || s.runtime() != rt) return;
            timers.schedule(() -> {
                if (!rt.online() && s.runtime() == rt && s.markLost()) tell(l -> l.runtimeLost(id, why));
            }, relay.config().reconnectGrace().toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public void online(BrowserRuntime rt, Frames.Hello hello) {
            if (rt.daemon()) return; // the daemon driver's
            String bound = rt.sandboxId();
            if (bound != null) {
                BrowserVmSandbox s = sandboxes.get(bound);
                if (s != null && s.runtime() == rt) timers.execute(() -> restored(s, rt));
                return;
            }
            for (String id : hello.mirrors()) {
                BrowserVmSandbox s = sandboxes.get(id);
                if (s != null && adopt(s, rt)) return;
            }
        }
    }

    /**
     * Moves a sandbox whose tab is gone to {@code rt}, a tab of the same tenant with no sandbox; the old runtime is
     * retired (its token stops working, so a stale tab cannot serve the sandbox too). Only then is the new tab told
     * to bind it from its mirror, off the relay thread (the answer comes back on that thread).
     */
    private boolean adopt(BrowserVmSandbox s, BrowserRuntime rt) {
        BrowserRuntime old = s.runtime();
        if (s.terminated() || old == rt || old.online() || !s.tenantId().equals(rt.tenantId())) return false;
        if (!rt.bind(s.id())) return false;
        old.unbind(s.id());
        s.moveTo(rt);
        relay.retire(old);
        log.info("sandbox {} moves from runtime {} to runtime {}", s.id(), old.id(), rt.id());
        Thread.ofVirtual().name("paddock-browser-vm-adopt").start(() -> {
            try {
                relay.call(rt, s.id(), "bind", Map.of("fresh", false), null, 1 << 16);
                timers.execute(() -> restored(s, rt));
            } catch (PaddockException e) {
                log.info("runtime {} could not take sandbox {} back from its mirror ({})", rt.id(), s.id(), e.code());
            } catch (RuntimeException e) {
                log.warn("adopting sandbox {} failed", s.id(), e);
            }
        });
        return true;
    }

    private void restored(BrowserVmSandbox s, BrowserRuntime rt) {
        if (s.runtime() == rt && rt.online() && s.markRestored()) tell(l -> l.runtimeRestored(s.id(), rt.id()));
    }
}
