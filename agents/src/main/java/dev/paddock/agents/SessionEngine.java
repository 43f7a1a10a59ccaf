package dev.paddock.agents;

import dev.paddock.agents.AgentEvents.ModelUsage;
import dev.paddock.agents.AgentEvents.StopReason;
import dev.paddock.agents.loop.Block;
import dev.paddock.agents.loop.History;
import dev.paddock.agents.loop.ModelGateway;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.agents.Session;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionEventType;
import dev.paddock.core.agents.ToolResultEvent;
import dev.paddock.toolset.ToolResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent loop (supervised lane). Woken by user events, it reads the conversation from the session's
 * {@link HistoryProjection} (kept per session, advanced by new events only), settles the last turn's tool calls
 * (runs them in the session's sandbox, or waits for a self-hosted worker's results), asks the model for the next turn and records every step as events, until the model ends its turn or
 * needs the user; then the session is idle again with a stop reason. One loop per session runs at a time.
 */
public final class SessionEngine implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SessionEngine.class);
    /** How long close() waits for running loops to record their interruption before the store goes away. */
    private static final Duration SETTLE_ON_CLOSE = Duration.ofSeconds(10);

    private final ResourceStore store;
    private final EventLog events;
    private final SessionSandboxes sandboxes;
    private final Supplier<ModelGateway> model;
    private final AgentsConfig config;
    private final Clock clock;
    private final Map<String, Run> runs = new ConcurrentHashMap<>();
    private final Set<Thread> loops = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public SessionEngine(ResourceStore store, EventLog events, SessionSandboxes sandboxes, Supplier<ModelGateway> model, AgentsConfig config, Clock clock) {
        this.store = store;
        this.events = events;
        this.sandboxes = sandboxes;
        this.model = model;
        this.config = config;
        this.clock = clock;
    }

    /** One session's loop state: at most one thread runs it; a wake while it runs makes it go round again. */
    private final class Run {
        final String tenantId;
        final String sessionId;
        final HistoryProjection history;
        final AtomicBoolean pending = new AtomicBoolean();
        final AtomicBoolean interrupted = new AtomicBoolean();
        boolean running;

        Run(String tenantId, String sessionId) {
            this.tenantId = tenantId;
            this.sessionId = sessionId;
            this.history = new HistoryProjection(events, sessionId);
        }
    }

    public void wake(String tenantId, String sessionId) {
        if (closed) return;
        Run run = run(tenantId, sessionId);
        synchronized (run) {
            run.pending.set(true);
            if (run.running) return;
            run.running = true;
        }
        Thread loop = Thread.ofVirtual().name("paddock-session-" + sessionId).unstarted(() -> drive(run));
        loops.add(loop);
        loop.start();
    }

    /** Stops the current turn at the next step; outstanding tool calls are answered as interrupted. */
    public void interrupt(String tenantId, String sessionId) {
        run(tenantId, sessionId).interrupted.set(true);
        wake(tenantId, sessionId);
    }

    public void forget(String sessionId) {
        Run run = runs.remove(sessionId);
        if (run != null) run.interrupted.set(true);
    }

    /** How many sessions have loop state here (for tests: it must not outlive the sessions). */
    int runs() {
        return runs.size();
    }

    /** The session's conversation as its loop sees it. */
    HistoryProjection history(String tenantId, String sessionId) {
        return run(tenantId, sessionId).history;
    }

    private Run run(String tenantId, String sessionId) {
        return runs.computeIfAbsent(sessionId, id -> new Run(tenantId, id));
    }

    private void drive(Run run) {
        try {
            while (true) {
                synchronized (run) {
                    if (!run.pending.getAndSet(false) || closed) {
                        run.running = false;
                        return;
                    }
                }
                try {
                    turn(run);
                } catch (RuntimeException e) {
                    log.warn("agent loop of session {} failed: {}", run.sessionId, e.toString());
                    if (closed) return; // shutting down: the store may already be gone
                    fail(run, "unknown_error", "the agent loop stopped: " + e.getMessage());
                }
            }
        } catch (RuntimeException e) {
            // nowhere left to record it; never let it escape the thread
            log.warn("agent loop of session {} could not record its failure: {}", run.sessionId, e.toString());
        } finally {
            synchronized (run) {
                run.running = false;
            }
            loops.remove(Thread.currentThread());
        }
    }

    private void turn(Run run) {
        Session session = session(run);
        if (session == null || session.terminated()) return;
        SessionAgent agent = SessionAgent.of(SessionResource.of(session).agent());
        Environment env = store.find(Resource.ENVIRONMENT, run.tenantId, session.environmentId()).map(Environment::of).orElse(null);
        if (env == null) {
            fail(run, "unknown_error", "the session's environment no longer exists");
            return;
        }
        HistoryProjection history = run.history;
        if (history.read(h -> h.endsWith(SessionEventType.SESSION_STATUS_IDLE))) {
            return; // the session stopped after its last input (e.g. at the turn limit): only new input moves it
        }
        if (history.read(h -> h.pending().isEmpty() && !h.modelToMove())) {
            run.interrupted.set(false);
            return;
        }
        setStatus(run, Session.RUNNING);
        append(run, SessionEventType.SESSION_STATUS_RUNNING, Map.of());
        int turns = 0;
        while (true) {
            if (run.interrupted.getAndSet(false)) {
                for (History.PendingUse use : history.read(History::pending)) {
                    toolResult(run, use.eventId(), "interrupted by the user before this tool call finished", true);
                }
                idle(run, StopReason.END_TURN);
                return;
            }
            List<String> needAction = new ArrayList<>();
            for (History.PendingUse use : history.read(History::pending)) {
                if (run.interrupted.get()) break;
                if (use.custom()) {
                    needAction.add(use.eventId());
                    continue;
                }
                History.Confirmation verdict = history.read(h -> h.confirmation(use.eventId()));
                if (verdict == null && agent.asksFirst(use.name())) {
                    needAction.add(use.eventId());
                    continue;
                }
                if (verdict != null && verdict.denied()) {
                    String why = verdict.denyMessage();
                    toolResult(run, use.eventId(), "the user denied this tool call" + (why == null ? "" : ": " + why), true);
                    continue;
                }
                if (env.selfHosted()) {
                    awaitWorker(run, use.eventId());
                } else {
                    ToolResult r = sandboxes.run(session, env, use.name(), use.input());
                    toolResult(run, use.eventId(), r.content(), r.isError());
                }
            }
            if (run.interrupted.get()) continue;
            if (!needAction.isEmpty()) {
                idle(run, StopReason.requiresAction(needAction));
                return;
            }
            if (!history.read(History::pending).isEmpty()) continue;
            if (!history.read(History::modelToMove)) {
                idle(run, StopReason.END_TURN);
                return;
            }
            if (turns++ >= config.maxTurns()) {
                fail(run, "unknown_error", "the agent took " + config.maxTurns() + " model turns without finishing; send a message to continue");
                return;
            }
            if (!callModel(run, agent, history.read(History::messages))) return;
        }
    }

    private boolean callModel(Run run, SessionAgent agent, List<ModelGateway.Message> messages) {
        ModelGateway gateway = model.get();
        if (gateway == null) {
            fail(run, "model_request_failed_error", "no model is configured on this server (set model_base_url)");
            return false;
        }
        SessionEvent start = append(run, SessionEventType.SPAN_MODEL_REQUEST_START, Map.of());
        ModelGateway.Turn t;
        try {
            t = gateway.call(new ModelGateway.Request(agent.modelId(), agent.system(), agent.tools(), messages, config.maxTokens()));
        } catch (RuntimeException e) {
            append(run, SessionEventType.SPAN_MODEL_REQUEST_END, AgentEvents.modelRequestEnd(start.id(), true, ModelUsage.NONE));
            fail(run, "model_request_failed_error", "the model request failed: " + Text.clip(e.getMessage(), 300));
            return false;
        }
        ModelUsage usage = new ModelUsage(t.inputTokens(), t.outputTokens(), t.cacheReadInputTokens(), t.cacheCreationInputTokens());
        append(run, SessionEventType.SPAN_MODEL_REQUEST_END, AgentEvents.modelRequestEnd(start.id(), false, usage));
        for (Block block : t.blocks()) {
            switch (block) {
                case Block.Text text -> append(run, SessionEventType.AGENT_MESSAGE, AgentEvents.message(text.text()));
                case Block.ToolUse use when agent.runsBuiltIn(use.name()) -> append(run, SessionEventType.AGENT_TOOL_USE,
                        AgentEvents.toolUse(use.name(), use.input(), agent.asksFirst(use.name()) ? "ask" : "allow"));
                case Block.ToolUse use -> append(run, SessionEventType.AGENT_CUSTOM_TOOL_USE, AgentEvents.toolUse(use.name(), use.input(), null));
                case Block.ToolResult ignored -> { }
            }
        }
        return true;
    }

    /** Waits for a self-hosted worker to answer the tool call (a user.tool_result event). */
    private void awaitWorker(Run run, String useId) {
        Instant deadline = clock.instant().plus(config.toolResultTimeout());
        while (!run.interrupted.get()) {
            if (run.history.read(h -> h.isAnswered(useId))) return;
            if (clock.instant().isAfter(deadline)) {
                toolResult(run, useId, "no worker answered this tool call within " + config.toolResultTimeout().toSeconds() + "s", true);
                return;
            }
            try (EventLog.Subscription s = events.subscribe(run.sessionId)) {
                if (run.history.read(h -> h.isAnswered(useId))) return;
                s.queue().poll(Duration.ofSeconds(1).toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void toolResult(Run run, String useId, String text, boolean isError) {
        append(run, SessionEventType.AGENT_TOOL_RESULT, new ToolResultEvent(SessionEventType.AGENT_TOOL_RESULT, useId, text, isError).body());
    }

    private void idle(Run run, StopReason reason) {
        setStatus(run, Session.IDLE);
        append(run, SessionEventType.SESSION_STATUS_IDLE, AgentEvents.idle(reason));
    }

    private void fail(Run run, String type, String message) {
        append(run, SessionEventType.SESSION_ERROR, AgentEvents.error(type, message));
        idle(run, StopReason.RETRIES_EXHAUSTED);
    }

    private SessionEvent append(Run run, SessionEventType type, Map<String, Object> body) {
        return events.append(run.sessionId, run.tenantId, type, body);
    }

    private void setStatus(Run run, String status) {
        for (int attempt = 0; attempt < 10; attempt++) {
            Session s = session(run);
            if (s == null || s.terminated()) return;
            try {
                store.update(s.withStatus(status, clock.instant()).row());
                return;
            } catch (PaddockException e) {
                if (!"concurrent_update".equals(e.code())) throw e;
            }
        }
    }

    private Session session(Run run) {
        return store.find(Resource.SESSION, run.tenantId, run.sessionId).map(Session::new).orElse(null);
    }

    @Override
    public void close() {
        closed = true;
        runs.values().forEach(r -> r.interrupted.set(true));
        // the loops answer their open tool calls as interrupted; let them finish while the store is still open
        long deadline = System.nanoTime() + SETTLE_ON_CLOSE.toNanos();
        try {
            for (Thread loop : loops) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !loop.join(Duration.ofNanos(left))) {
                    log.warn("agent loop {} still running at shutdown", loop.getName());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
