package dev.paddock.agents;

import dev.paddock.agents.loop.History;
import dev.paddock.agents.loop.ModelGateway;
import dev.paddock.core.PaddockException;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.toolset.AgentToolset;
import dev.paddock.toolset.ToolDefinition;
import dev.paddock.toolset.ToolResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent loop (supervised lane). Woken by user events, it rebuilds the conversation from the session's events,
 * settles the last turn's tool calls (runs them in the session's sandbox, or waits for a self-hosted worker's
 * results), asks the model for the next turn and records every step as events, until the model ends its turn or
 * needs the user; then the session is idle again with a stop reason. One loop per session runs at a time.
 */
public final class SessionEngine implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SessionEngine.class);
    /** How long close() waits for running loops to record their interruption before the store goes away. */
    private static final Duration SETTLE_ON_CLOSE = Duration.ofSeconds(10);

    private final ResourceStore store;
    private final EventLog events;
    private final SandboxTools sandboxes;
    private final Supplier<ModelGateway> model;
    private final AgentsConfig config;
    private final Clock clock;
    private final Map<String, Run> runs = new ConcurrentHashMap<>();
    private final Set<Thread> loops = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public SessionEngine(ResourceStore store, EventLog events, SandboxTools sandboxes, Supplier<ModelGateway> model, AgentsConfig config, Clock clock) {
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
        final AtomicBoolean pending = new AtomicBoolean();
        final AtomicBoolean interrupted = new AtomicBoolean();
        boolean running;

        Run(String tenantId, String sessionId) {
            this.tenantId = tenantId;
            this.sessionId = sessionId;
        }
    }

    public void wake(String tenantId, String sessionId) {
        if (closed) return;
        Run run = runs.computeIfAbsent(sessionId, id -> new Run(tenantId, id));
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
        Run run = runs.computeIfAbsent(sessionId, id -> new Run(tenantId, id));
        run.interrupted.set(true);
        wake(tenantId, sessionId);
    }

    public void forget(String sessionId) {
        Run run = runs.remove(sessionId);
        if (run != null) run.interrupted.set(true);
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
        Resource session = session(run);
        if (session == null || "terminated".equals(session.state())) return;
        Map<String, Object> agent = AgentSpec.map(session.body().get("agent"));
        Resource env = store.find(Resource.ENVIRONMENT, run.tenantId, session.parentId()).orElse(null);
        if (env == null) {
            fail(run, "unknown_error", "the session's environment no longer exists");
            return;
        }
        Map<String, Object> envConfig = AgentSpec.map(env.body().get("config"));
        boolean selfHosted = EnvironmentConfigs.SELF_HOSTED.equals(envConfig.get("type"));
        List<SessionEvent> all = events.all(run.sessionId);
        if (!all.isEmpty() && "session.status_idle".equals(all.getLast().type())) {
            return; // the session stopped after its last input (e.g. at the turn limit): only new input moves it
        }
        History h = History.of(all);
        if (h.pending().isEmpty() && !h.modelToMove()) {
            run.interrupted.set(false);
            return;
        }
        setStatus(run, "running");
        events.append(run.sessionId, run.tenantId, "session.status_running", Map.of());
        int turns = 0;
        while (true) {
            if (run.interrupted.getAndSet(false)) {
                for (History.PendingUse use : History.of(events.all(run.sessionId)).pending()) {
                    toolResult(run, use.eventId(), "interrupted by the user before this tool call finished", true);
                }
                idle(run, Map.of("type", "end_turn"));
                return;
            }
            h = History.of(events.all(run.sessionId));
            List<String> needAction = new ArrayList<>();
            for (History.PendingUse use : h.pending()) {
                if (run.interrupted.get()) break;
                if (use.custom()) {
                    needAction.add(use.eventId());
                    continue;
                }
                Map<String, Object> verdict = h.confirmation(use.eventId());
                if (verdict == null && "always_ask".equals(policy(agent, use.name()))) {
                    needAction.add(use.eventId());
                    continue;
                }
                if (verdict != null && "deny".equals(verdict.get("result"))) {
                    Object why = verdict.get("deny_message");
                    toolResult(run, use.eventId(), "the user denied this tool call" + (why == null ? "" : ": " + why), true);
                    continue;
                }
                if (selfHosted) {
                    awaitWorker(run, use.eventId());
                } else {
                    ToolResult r = sandboxes.run(session, envConfig, use.name(), use.input());
                    toolResult(run, use.eventId(), r.content(), r.isError());
                }
            }
            if (run.interrupted.get()) continue;
            if (!needAction.isEmpty()) {
                idle(run, Map.of("type", "requires_action", "event_ids", needAction));
                return;
            }
            h = History.of(events.all(run.sessionId));
            if (!h.pending().isEmpty()) continue;
            if (!h.modelToMove()) {
                idle(run, Map.of("type", "end_turn"));
                return;
            }
            if (turns++ >= config.maxTurns()) {
                fail(run, "unknown_error", "the agent took " + config.maxTurns() + " model turns without finishing; send a message to continue");
                return;
            }
            if (!callModel(run, agent, h)) return;
        }
    }

    private boolean callModel(Run run, Map<String, Object> agent, History h) {
        ModelGateway gateway = model.get();
        if (gateway == null) {
            fail(run, "model_request_failed_error", "no model is configured on this server (set model_base_url)");
            return false;
        }
        SessionEvent start = events.append(run.sessionId, run.tenantId, "span.model_request_start", Map.of());
        ModelGateway.Turn t;
        try {
            t = gateway.call(new ModelGateway.Request(String.valueOf(AgentSpec.map(agent.get("model")).get("id")),
                    (String) agent.get("system"), tools(agent), h.messages(), config.maxTokens()));
        } catch (RuntimeException e) {
            Map<String, Object> end = new LinkedHashMap<>();
            end.put("model_request_start_id", start.id());
            end.put("is_error", true);
            end.put("model_usage", usage(0, 0, 0, 0));
            events.append(run.sessionId, run.tenantId, "span.model_request_end", end);
            fail(run, "model_request_failed_error", "the model request failed: " + dev.paddock.core.Text.clip(e.getMessage(), 300));
            return false;
        }
        Map<String, Object> end = new LinkedHashMap<>();
        end.put("model_request_start_id", start.id());
        end.put("is_error", false);
        end.put("model_usage", usage(t.inputTokens(), t.outputTokens(), t.cacheReadInputTokens(), t.cacheCreationInputTokens()));
        events.append(run.sessionId, run.tenantId, "span.model_request_end", end);
        java.util.Set<String> builtIn = AgentToolset.toolNames();
        for (Map<String, Object> block : t.blocks()) {
            if ("text".equals(block.get("type"))) {
                events.append(run.sessionId, run.tenantId, "agent.message",
                        Map.of("content", List.of(Map.of("type", "text", "text", block.get("text")))));
            } else if ("tool_use".equals(block.get("type"))) {
                String name = String.valueOf(block.get("name"));
                boolean custom = !builtIn.contains(name) || !toolsetEnabled(agent, name);
                Map<String, Object> use = new LinkedHashMap<>();
                use.put("name", name);
                use.put("input", block.get("input"));
                if (!custom) use.put("evaluated_permission", "always_ask".equals(policy(agent, name)) ? "ask" : "allow");
                events.append(run.sessionId, run.tenantId, custom ? "agent.custom_tool_use" : "agent.tool_use", use);
            }
        }
        return true;
    }

    /** Waits for a self-hosted worker to answer the tool call (a user.tool_result event). */
    private void awaitWorker(Run run, String useId) {
        Instant deadline = clock.instant().plus(config.toolResultTimeout());
        while (!run.interrupted.get()) {
            if (History.of(events.all(run.sessionId)).isAnswered(useId)) return;
            if (clock.instant().isAfter(deadline)) {
                toolResult(run, useId, "no worker answered this tool call within " + config.toolResultTimeout().toSeconds() + "s", true);
                return;
            }
            try (EventLog.Subscription s = events.subscribe(run.sessionId)) {
                if (History.of(events.all(run.sessionId)).isAnswered(useId)) return;
                s.queue().poll(Duration.ofSeconds(1).toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void toolResult(Run run, String useId, String text, boolean isError) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("tool_use_id", useId);
        body.put("content", List.of(Map.of("type", "text", "text", text.isEmpty() ? "(no output)" : text)));
        body.put("is_error", isError);
        events.append(run.sessionId, run.tenantId, "agent.tool_result", body);
    }

    private void idle(Run run, Map<String, Object> stopReason) {
        setStatus(run, "idle");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("stop_reason", stopReason);
        body.put("stop_details", null);
        events.append(run.sessionId, run.tenantId, "session.status_idle", body);
    }

    private void fail(Run run, String type, String message) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("type", type);
        error.put("message", message);
        error.put("retry_status", Map.of("type", "terminal"));
        events.append(run.sessionId, run.tenantId, "session.error", Map.of("error", error));
        idle(run, Map.of("type", "retries_exhausted"));
    }

    private void setStatus(Run run, String status) {
        for (int attempt = 0; attempt < 10; attempt++) {
            Resource s = session(run);
            if (s == null || "terminated".equals(s.state())) return;
            Instant now = clock.instant();
            Map<String, Object> body = new LinkedHashMap<>(s.body());
            body.put("status", status);
            body.put("updated_at", Times.iso(now));
            try {
                store.update(s.withState(status, now).withBody(body, now));
                return;
            } catch (PaddockException e) {
                if (!"concurrent_update".equals(e.code())) throw e;
            }
        }
    }

    private Resource session(Run run) {
        return store.find(Resource.SESSION, run.tenantId, run.sessionId).orElse(null);
    }

    private static Map<String, Object> usage(long in, long out, long cacheRead, long cacheCreation) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("input_tokens", in);
        m.put("output_tokens", out);
        m.put("cache_read_input_tokens", cacheRead);
        m.put("cache_creation_input_tokens", cacheCreation);
        return m;
    }

    /** The model's tool list: the enabled toolset tools and the custom tools. */
    static List<ModelGateway.ToolSpec> tools(Map<String, Object> agent) {
        List<ModelGateway.ToolSpec> out = new ArrayList<>();
        for (Object o : AgentSpec.list(agent.get("tools"))) {
            Map<String, Object> t = AgentSpec.map(o);
            if (AgentToolset.TYPE.equals(t.get("type"))) {
                for (ToolDefinition d : AgentToolset.definitions()) {
                    if (toolsetEnabled(agent, d.name())) out.add(new ModelGateway.ToolSpec(d.name(), d.description(), d.inputSchema()));
                }
            } else if ("custom".equals(t.get("type"))) {
                out.add(new ModelGateway.ToolSpec((String) t.get("name"), (String) t.get("description"), AgentSpec.map(t.get("input_schema"))));
            }
        }
        return out;
    }

    private static Map<String, Object> toolConfig(Map<String, Object> agent, String name) {
        for (Object o : AgentSpec.list(agent.get("tools"))) {
            Map<String, Object> t = AgentSpec.map(o);
            if (!AgentToolset.TYPE.equals(t.get("type"))) continue;
            for (Object c : AgentSpec.list(t.get("configs"))) {
                if (name.equals(AgentSpec.map(c).get("name"))) return AgentSpec.map(c);
            }
            return AgentSpec.map(t.get("default_config"));
        }
        return null;
    }

    static boolean toolsetEnabled(Map<String, Object> agent, String name) {
        Map<String, Object> c = toolConfig(agent, name);
        return c != null && !Boolean.FALSE.equals(c.get("enabled"));
    }

    static String policy(Map<String, Object> agent, String name) {
        Map<String, Object> c = toolConfig(agent, name);
        return c == null ? "always_allow" : String.valueOf(AgentSpec.map(c.get("permission_policy")).getOrDefault("type", "always_allow"));
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
