package dev.paddock.host;

import dev.paddock.core.spi.RuntimeListener;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.SandboxRecord;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records what drivers report about a sandbox's runtime (a browser tab closed or reopened): the sandbox stays
 * {@code running} (it comes back with its runtime and its workspace), its {@code state_reason} says
 * {@value #RUNTIME_DISCONNECTED} while the runtime is gone, and each change is an event
 * ({@code sandbox.runtime_lost}, {@code sandbox.runtime_restored}). Only this host's own sandboxes are touched;
 * every write is compare-and-set, so a report that races a terminate changes nothing.
 */
final class RuntimeWatch implements RuntimeListener {
    private static final Logger log = LoggerFactory.getLogger(RuntimeWatch.class);
    static final String RUNTIME_DISCONNECTED = "runtime_disconnected";

    private final OwnedSandboxes host;

    RuntimeWatch(OwnedSandboxes host) {
        this.host = host;
    }

    @Override
    public void runtimeLost(String sandboxId, String detail) {
        replace(sandboxId, null, RUNTIME_DISCONNECTED, "sandbox.runtime_lost", "reason", detail);
    }

    @Override
    public void runtimeRestored(String sandboxId, String detail) {
        replace(sandboxId, RUNTIME_DISCONNECTED, null, "sandbox.runtime_restored", "runtime_id", detail);
    }

    private void replace(String sandboxId, String from, String to, String event, String key, String detail) {
        try {
            SandboxRecord r = host.store().sandboxes().find(sandboxId).orElse(null);
            if (r == null || !host.ownerId().equals(r.fence().ownerId())) return;
            host.store().sandboxes().replaceReason(sandboxId, r.fence(), SandboxState.RUNNING, from, to)
                    .ifPresent(updated -> {
                        host.event(updated, event, Map.of(key, detail == null ? "" : detail));
                        log.info("sandbox {}: {} ({})", sandboxId, event, detail);
                    });
        } catch (RuntimeException e) {
            log.warn("could not record {} for {}: {}", event, sandboxId, e.getMessage());
        }
    }
}
