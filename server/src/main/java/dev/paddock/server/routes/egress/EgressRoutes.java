package dev.paddock.server.routes.egress;

import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.egress.EgressAuditEntry;
import dev.paddock.core.egress.EgressAuditLog;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import dev.paddock.access.Principal;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.RouteContext;
import dev.paddock.server.RouteModule;
import dev.paddock.server.http.ApiJson;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Params;
import dev.paddock.server.http.SseStream;
import dev.paddock.server.http.Streams;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A sandbox's egress audit log, oldest first: a page of JSON, or with {@code Accept: text/event-stream} a stream
 * of {@code egress} events that follows new records until the sandbox has ended (resumable with
 * {@code Last-Event-ID} or {@code after_id}). Kept and readable after the sandbox terminated.
 */
public final class EgressRoutes implements RouteModule {
    private static final Duration POLL = Duration.ofMillis(250);
    private static final int BATCH = 200;

    private final RuntimeHost host;
    private final EgressAuditLog log;
    private ApiJson json; // the server's, given at registration

    public EgressRoutes(RuntimeHost host, EgressAuditLog log) {
        this.host = host;
        this.log = log;
    }

    @Override
    public void register(RouteContext context) {
        RoutesConfig r = context.routes();
        json = context.json();
        r.get("/v1/sandboxes/{id}/egress", this::egress);
    }

    private void egress(Context ctx) {
        Principal p = Auth.principal(ctx);
        String id = Params.pathId(ctx, "id", "sbx", "sandbox id");
        host.get(p, id); // tenant check: another tenant's sandbox is not found
        String accept = ctx.header("Accept");
        if (accept != null && accept.contains("text/event-stream")) {
            stream(ctx, p, id);
            return;
        }
        ctx.json(Views.ListPage.of(log.list(id, Params.page(ctx, "egr")), EgressViews.EgressRecord::of));
    }

    private void stream(Context ctx, Principal p, String id) {
        String cursor = ctx.header("Last-Event-ID");
        if (cursor == null || cursor.isBlank()) cursor = Params.page(ctx, "egr").afterId();
        else cursor = Ids.require("egr", cursor.strip(), "Last-Event-ID");
        log.list(id, new PageRequest(1, cursor, null)); // an unknown cursor is a 400 before the stream opens
        try {
            SseStream out = SseStream.open(ctx, "stream open");
            while (true) {
                boolean ended = host.get(p, id).state().isTerminal();
                Page<EgressAuditEntry> page = log.list(id, new PageRequest(BATCH, cursor, null));
                List<SseStream.Event> events = new ArrayList<>();
                for (EgressAuditEntry e : page.data()) {
                    events.add(new SseStream.Event(e.id(), "egress", json.write(EgressViews.EgressRecord.of(e))));
                    cursor = e.id();
                }
                if (!events.isEmpty()) out.events(events);
                if (page.hasMore()) continue;
                if (ended) {
                    // read after the sandbox ended: nothing more can arrive
                    out.end("end", "{}".getBytes(StandardCharsets.UTF_8));
                    return;
                }
                out.keepAlive();
                Thread.sleep(POLL);
            }
        } catch (SseStream.ClientGone e) {
            // the client went away
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (PaddockException e) {
            Streams.abort(ctx, e);
        }
    }
}
