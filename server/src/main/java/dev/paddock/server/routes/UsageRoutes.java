package dev.paddock.server.routes;

import dev.paddock.access.Principal;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.http.Auth;
import io.javalin.config.RoutesConfig;
import java.util.Map;
import java.util.TreeMap;

/** What the caller's tenant holds now: its sandboxes that have not ended, by state, and the bytes it stores. Read-only. */
public final class UsageRoutes {
    private final RuntimeHost host;

    public UsageRoutes(RuntimeHost host) {
        this.host = host;
    }

    public record TenantUsage(String type, String tenantId, Sandboxes sandboxes, Storage storage) {}

    /** {@code live}: sandboxes that have not ended; {@code byState}: the same, counted per state. */
    public record Sandboxes(int live, Map<String, Integer> byState) {}

    /** {@code quotaBytes} is null where the server sets no tenant storage quota. */
    public record Storage(long usedBytes, Long quotaBytes) {}

    public void register(RoutesConfig r) {
        r.get("/v1/usage", ctx -> ctx.json(usage(Auth.principal(ctx))));
    }

    private TenantUsage usage(Principal caller) {
        Map<String, Integer> byState = new TreeMap<>();
        int live = 0;
        String after = null;
        do {
            Page<SandboxRecord> page = host.list(caller, new PageRequest(PageRequest.MAX_LIMIT, after, null), false);
            for (SandboxRecord s : page.data()) {
                byState.merge(s.state().wireName(), 1, Integer::sum);
                live++;
            }
            after = page.hasMore() ? page.lastId() : null;
        } while (after != null);
        long quota = host.config().tenantStorageBytes();
        return new TenantUsage("tenant_usage", caller.tenantId(), new Sandboxes(live, byState),
                new Storage(host.storedBytes(caller.tenantId()), quota > 0 ? quota : null));
    }
}
