package dev.paddock.server.routes;

import dev.paddock.access.Principal;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.FileChange;
import dev.paddock.core.spi.FileWatch;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.spi.Workspace;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.http.ApiJson;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Params;
import dev.paddock.server.http.SseStream;
import dev.paddock.server.http.Streams;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * {@code GET /v1/sandboxes/{id}/files/watch}: changes under a directory of the workspace as Server-Sent Events, one
 * event per changed path ({@code created}, {@code modified}, {@code deleted}, or {@code overflow} when some were left
 * out), until the sandbox ends, the directory goes, or the client leaves. Each watch holds kernel resources of the
 * server's user, so the server keeps at most {@value #MAX_WATCHES} open at once, and at most
 * {@value #MAX_WATCHES_PER_TENANT} of them for one tenant, so that no tenant can take every slot.
 */
public final class FileWatchRoutes {
    static final int MAX_WATCHES = 32;
    public static final int MAX_WATCHES_PER_TENANT = 8;
    private final RuntimeHost host;
    private final ApiJson json;
    private final Semaphore slots = new Semaphore(MAX_WATCHES);
    private final Map<String, Integer> perTenant = new ConcurrentHashMap<>();

    public FileWatchRoutes(RuntimeHost host, ApiJson json) {
        this.host = host;
        this.json = json;
    }

    public void register(RoutesConfig r) {
        r.get(SandboxRoutes.SANDBOX + "/files/watch", this::watch);
    }

    /** One changed path, as the event's data. */
    record ChangeView(String type, String path) {}

    private void watch(Context ctx) {
        Principal p = Auth.principal(ctx);
        String id = SandboxRoutes.id(ctx);
        String path = Params.optional(ctx, "path", Workspace.ROOT);
        boolean recursive = Params.bool(ctx, "recursive", false);
        host.get(p, id); // another tenant's sandbox is not found, whatever else the request says
        String accept = ctx.header("Accept");
        if (accept == null || !accept.contains("text/event-stream")) {
            throw new PaddockException(ErrorCode.NOT_ACCEPTABLE, "a watch answers Server-Sent Events only, until the sandbox ends: send Accept: text/event-stream");
        }
        takeTenantSlot(p.tenantId());
        if (!slots.tryAcquire()) {
            releaseTenantSlot(p.tenantId());
            throw new PaddockException(ErrorCode.TOO_MANY_WATCHES, MAX_WATCHES + " file watches are open on this server; close one and retry");
        }
        try (FileWatch watch = host.watch(p, id, path, recursive)) { // refused before the stream opens: a plain JSON error
            SseStream out = SseStream.open(ctx, "watching");
            while (true) {
                List<FileChange> changes = watch.next(SseStream.KEEPALIVE);
                if (!changes.isEmpty()) {
                    out.events(changes.stream().map(c -> new SseStream.Event(null, c.kind().wireName(),
                            json.write(new ChangeView(c.kind().wireName(), c.path())))).toList());
                }
                SandboxState state = host.get(p, id).state();
                boolean sandboxEnded = state != SandboxState.RUNNING && state != SandboxState.SUSPENDED;
                if (sandboxEnded || watch.ended()) {
                    out.end("end", json.write(Map.of("reason", sandboxEnded ? "sandbox_ended" : "directory_gone")));
                    return;
                }
                out.keepAlive();
            }
        } catch (SseStream.ClientGone e) {
            // the client went away: the watch is closed on the way out
        } catch (PaddockException e) {
            if (!ctx.res().isCommitted()) throw e;
            Streams.abort(ctx, e);
        } finally {
            slots.release();
            releaseTenantSlot(p.tenantId());
        }
    }

    private void takeTenantSlot(String tenant) {
        boolean[] taken = {false};
        perTenant.compute(tenant, (t, n) -> {
            int open = n == null ? 0 : n;
            if (open >= MAX_WATCHES_PER_TENANT) return n;
            taken[0] = true;
            return open + 1;
        });
        if (!taken[0]) {
            throw new PaddockException(ErrorCode.TOO_MANY_WATCHES, "this tenant has " + MAX_WATCHES_PER_TENANT
                    + " file watches open on this server; close one and retry");
        }
    }

    private void releaseTenantSlot(String tenant) {
        perTenant.computeIfPresent(tenant, (t, n) -> n <= 1 ? null : n - 1);
    }
}
