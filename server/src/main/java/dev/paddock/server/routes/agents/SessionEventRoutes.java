package dev.paddock.server.routes.agents;

import dev.paddock.agents.Cursors;
import dev.paddock.agents.EventIntake;
import dev.paddock.agents.EventLog;
import dev.paddock.agents.ListResult;
import dev.paddock.agents.SessionService;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionEventType;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import dev.paddock.server.http.ApiJson;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Params;
import dev.paddock.server.http.SseStream;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A session's events: send, list (oldest first unless {@code order=desc}), and stream as Server-Sent Events. A
 * stream carries events appended after it opened; with {@code Last-Event-ID} (or {@code ?after_id=}) it first
 * replays the events after that one, so a client that lost its connection resumes without gaps or repeats. With
 * {@code event_deltas} it also carries live previews ({@code event_start}, {@code event_delta}, without an SSE id)
 * of the requested event types while they are produced.
 */
final class SessionEventRoutes {
    /** How often the stream looks whether its subscription ended (a dropped slow reader, a deleted session). */
    private static final Duration POLL = Duration.ofMillis(200);
    /** The event types a stream may ask previews of ({@code event_deltas}). */
    private static final Set<String> PREVIEWABLE = Set.of("agent.message", "agent.thinking");

    private final SessionService sessions;
    private final EventIntake intake;
    private final EventLog events;
    private final AgentBodies bodies;
    private final ApiJson json;

    SessionEventRoutes(SessionService sessions, EventIntake intake, EventLog events, AgentBodies bodies, ApiJson json) {
        this.sessions = sessions;
        this.intake = intake;
        this.events = events;
        this.bodies = bodies;
        this.json = json;
    }

    void register(RoutesConfig r) {
        r.post(SessionRoutes.SESSION + "/events", ctx -> ctx.json(intake.send(Auth.principal(ctx), ctx.pathParam("session_id"), bodies.json(ctx),
                blankToNull(ctx.header("anthropic-worker-id")))));
        r.get(SessionRoutes.SESSION + "/events", this::list);
        r.get(SessionRoutes.SESSION + "/events/stream", this::stream);
    }

    private void list(Context ctx) {
        Resource session = sessions.find(Auth.principal(ctx), ctx.pathParam("session_id"));
        PageRequest page = AgentBodies.page(ctx);
        String order = Params.optional(ctx, "order", "asc");
        if (!order.equals("asc") && !order.equals("desc")) throw new PaddockException(ErrorCode.INVALID_PARAMETER, "order must be asc or desc");
        for (String cursor : Arrays.asList(page.afterId(), page.beforeId())) {
            // as the stream and a sandbox's events answer it: a cursor of another session (or tenant) is no cursor here
            if (cursor != null && events.find(session.id(), cursor).isEmpty()) {
                throw new PaddockException(ErrorCode.INVALID_CURSOR, "cursor '" + Text.clip(cursor, 60) + "' is not an event of session " + session.id());
            }
        }
        Page<SessionEvent> rows = events.list(session.id(), page, order.equals("desc"));
        AgentBodies.list(ctx, ListResultFactory.of(rows.map(EventLog::wire), page));
    }

    private void stream(Context ctx) {
        Resource session = sessions.find(Auth.principal(ctx), ctx.pathParam("session_id"));
        String header = ctx.header("Last-Event-ID");
        boolean fromHeader = header != null && !header.isBlank();
        String resumeFrom = fromHeader ? header : ctx.queryParam("after_id");
        long seq = Long.MAX_VALUE;
        if (resumeFrom != null && !resumeFrom.isBlank()) {
            String id = resumeFrom.strip();
            seq = events.find(session.id(), id).map(SessionEvent::seq).orElseThrow(() -> new PaddockException(ErrorCode.INVALID_CURSOR,
                    (fromHeader ? "Last-Event-ID" : "after_id") + " '" + Text.clip(id, 60) + "' is not an event of session " + session.id()));
        }
        Set<String> previewed = new HashSet<>(AgentBodies.many(ctx, "event_deltas"));
        for (String type : previewed) {
            if (!PREVIEWABLE.contains(type)) {
                throw new PaddockException(ErrorCode.INVALID_PARAMETER, "event_deltas must be among " + new TreeSet<>(PREVIEWABLE) + ", got '"
                        + Text.clip(type, 40) + "'");
            }
        }
        // Subscribe before replaying, so nothing appended in between is missed; duplicates are dropped by seq.
        try (EventLog.Subscription sub = events.subscribe(session.id(), previewed)) {
            SseStream out = SseStream.open(ctx, "stream open");
            long sent = seq;
            if (seq != Long.MAX_VALUE) {
                while (true) {
                    List<SessionEvent> batch = events.after(session.id(), sent, 500);
                    for (SessionEvent e : batch) sent = write(out, e);
                    if (batch.size() < 500) break;
                }
            }
            while (!sub.ended()) {
                EventLog.Item item = out.next(sub.queue(), POLL);
                if (item instanceof EventLog.Preview preview) {
                    out.event(preview.type(), json.write(preview.wire()));
                    continue;
                }
                if (!(item instanceof EventLog.Logged(SessionEvent e)) || (sent != Long.MAX_VALUE && e.seq() <= sent)) continue;
                sent = write(out, e);
                if (e.is(SessionEventType.SESSION_DELETED)) return;
            }
        } catch (SseStream.ClientGone e) {
            // the client went away; its subscription closes with this block
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private long write(SseStream out, SessionEvent e) throws SseStream.ClientGone {
        out.event(e.id(), e.type(), json.write(EventLog.wire(e)));
        return e.seq();
    }

    /** Lists built from already-mapped pages. */
    static final class ListResultFactory {
        static ListResult of(Page<Map<String, Object>> page, PageRequest request) {
            return new ListResult(page.data(), Cursors.next(page, request), Cursors.prev(page, request),
                    page.hasMore(), page.firstId(), page.lastId());
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
