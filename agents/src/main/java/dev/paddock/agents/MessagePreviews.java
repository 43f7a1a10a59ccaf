package dev.paddock.agents;

import dev.paddock.agents.loop.ModelGateway;
import dev.paddock.core.agents.SessionEventType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The live previews of one model request's text: every text block the model streams becomes one {@code agent.message},
 * announced by an {@code event_start} with the id that event will carry, then filled by {@code event_delta}s of its
 * text. The loop appends the buffered event under that id ({@link #messageId}). A request that ends without its
 * events (an error, an interrupt) leaves its previews to be closed by its {@code span.model_request_end}.
 */
final class MessagePreviews implements ModelGateway.Listener {
    private final EventLog events;
    private final String sessionId;
    /** The announced id of each streamed text block, by its place among the answer's blocks. */
    private final Map<Integer, String> byIndex = new HashMap<>();
    private final List<String> inOrder = new ArrayList<>();
    private boolean closed;

    MessagePreviews(EventLog events, String sessionId) {
        this.events = events;
        this.sessionId = sessionId;
    }

    @Override
    public synchronized void textStarted(int index) {
        if (closed) return;
        String id = events.newId();
        byIndex.put(index, id);
        inOrder.add(id);
        events.preview(sessionId, SessionEventType.AGENT_MESSAGE, new EventLog.Preview("event_start",
                AgentEvents.eventStart(SessionEventType.AGENT_MESSAGE, id)));
    }

    @Override
    public synchronized void textDelta(int index, String text) {
        String id = byIndex.get(index);
        if (closed || id == null || text.isEmpty()) return;
        events.preview(sessionId, SessionEventType.AGENT_MESSAGE, new EventLog.Preview("event_delta", AgentEvents.eventDelta(id, text)));
    }

    /** No previews after this: the request has ended (a stream cut off may still deliver a late fragment). */
    synchronized void close() {
        closed = true;
    }

    /** The id announced for the answer's {@code n}-th text block (from 0), or null when it was not streamed. */
    synchronized String messageId(int n) {
        return n < inOrder.size() ? inOrder.get(n) : null;
    }
}
