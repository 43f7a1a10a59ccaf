package dev.paddock.driver.browservm;

import dev.paddock.core.spi.RuntimeListener;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.Workspace;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the two drivers over the relay share: sandboxes run by a paired runtime the server cannot reach (a tab or a
 * daemon), kept in this process only, bound with a {@code bind} op, and reported lost or restored to the host as their
 * runtime goes and comes back (each driver's {@link BrowserVm.Presence} decides when).
 */
abstract sealed class RelayedDriver implements SandboxDriver permits BrowserVmDriver, DaemonDriver {
    private static final Logger log = LoggerFactory.getLogger(RelayedDriver.class);
    final BrowserVm relay;
    final Map<String, BrowserVmSandbox> sandboxes = new ConcurrentHashMap<>();
    final ScheduledExecutorService timers;
    private final BrowserVm.Presence presence;
    private volatile RuntimeListener listener;

    RelayedDriver(BrowserVm relay, String timerThread) {
        this.relay = relay;
        this.timers = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name(timerThread).factory());
        this.presence = presence();
        relay.watch(presence);
    }

    /** How this driver follows its runtimes' comings and goings. */
    abstract BrowserVm.Presence presence();

    /** Binds a fresh sandbox on {@code rt} with {@code args}; the runtime is freed again if the bind fails. */
    final BrowserVmSandbox bind(BrowserRuntime rt, SandboxSpec spec, Map<String, Object> args) {
        try {
            relay.call(rt, spec.sandboxId(), "bind", args, null, 1 << 16);
        } catch (RuntimeException e) {
            rt.unbind(spec.sandboxId());
            throw e;
        }
        BrowserVmSandbox s = new BrowserVmSandbox(id(), relay, rt, spec, timers);
        sandboxes.put(spec.sandboxId(), s);
        return s;
    }

    @Override
    public final void watchRuntimes(RuntimeListener listener) {
        this.listener = listener;
    }

    @Override
    public final Optional<Sandbox> attach(SandboxRef ref) {
        BrowserVmSandbox s = sandboxes.get(ref.sandboxId());
        return s == null || s.terminated() ? Optional.empty() : Optional.of(s);
    }

    @Override
    public final List<SandboxRef> list() {
        return sandboxes.values().stream().filter(s -> !s.terminated()).map(BrowserVmSandbox::ref).toList();
    }

    @Override
    public final void destroy(SandboxRef ref) {
        BrowserVmSandbox s = sandboxes.remove(ref.sandboxId());
        if (s != null) s.terminate(TerminationReason.ORPHAN_REAPED);
        else if (ref.handle() != null) relay.runtimeOf(ref.handle()).ifPresent(rt -> rt.unbind(ref.sandboxId()));
    }

    /** The workspace lives with the runtime and ends with the sandbox: nothing of it is kept on the server. */
    @Override
    public final Optional<Workspace> workspace(SandboxRef ref) {
        return Optional.empty();
    }

    @Override
    public final void close() {
        relay.unwatch(presence);
        timers.shutdownNow();
    }

    /** Tells the host; a failure only means its record lags, and the sandbox's ops still fail or work as the runtime does. */
    final void tell(Consumer<RuntimeListener> call) {
        RuntimeListener l = listener;
        if (l == null) return;
        try {
            call.accept(l);
        } catch (RuntimeException e) {
            log.warn("the host could not record a runtime change: {}", e.getMessage());
        }
    }
}
