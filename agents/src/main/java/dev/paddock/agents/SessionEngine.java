package dev.paddock.agents;

import dev.paddock.agents.AgentEvents.ModelUsage;
import dev.paddock.agents.AgentEvents.StopReason;
import dev.paddock.agents.loop.Block;
import dev.paddock.agents.loop.History;
import dev.paddock.agents.loop.ModelGateway;
import dev.paddock.agents.mcp.McpCallResult;
import dev.paddock.agents.mcp.McpFailure;
import dev.paddock.agents.mcp.McpSessions;
import dev.paddock.agents.mcp.McpToolNames;
import dev.paddock.agents.mcp.SessionMcp;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.agents.Session;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionEventType;
import dev.paddock.core.agents.SessionMovedException;
import dev.paddock.core.agents.ToolResultEvent;
import dev.paddock.toolset.ToolResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
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
    /** The longest wait between two retries of a model request (without a retry-after). */
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    /** How long a cancelled model request or tool call may take to end before the loop goes on without it. */
    private static final Duration STEP_SETTLE = Duration.ofSeconds(2);
    /** How often a wait before a retry looks for an interrupt. */
    private static final Duration PAUSE_SLICE = Duration.ofMillis(50);

    private final ResourceStore store;
    private final EventLog events;
    private final SessionSandboxes sandboxes;
    private final SessionEnding ending;
    private final Supplier<ModelGateway> model;
    private final McpSessions mcp;
    private final AgentsConfig config;
    private final SessionBudget budget;
    private final Clock clock;
    private final Map<String, Run> runs = new ConcurrentHashMap<>();
    private final Set<Thread> loops = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    /** Which node runs each session's loop, on a node of a cluster; null for a server alone. */
    private volatile SessionOwnership ownership;

    SessionEngine(ResourceStore store, EventLog events, SessionSandboxes sandboxes, SessionEnding ending, Supplier<ModelGateway> model,
                  McpSessions mcp, AgentsConfig config, Clock clock) {
        this.store = store;
        this.events = events;
        this.sandboxes = sandboxes;
        this.ending = ending;
        this.model = model;
        this.mcp = mcp;
        this.config = config;
        this.budget = new SessionBudget(config.modelPrices());
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
        /** {@link System#nanoTime()} when the running time was last counted into the session's usage; 0 while not running. */
        long activeSince;
        /** The model request or tool call under way, which an interrupt cancels; null between steps. */
        volatile Future<?> step;
        /** The session's MCP servers, as this turn offers them; null before the first turn. */
        volatile SessionMcp mcp;
        /** The owner id this node runs the session as, which fences its writes; null for a server alone. */
        volatile String owner;
        /** Set when another node took the session over, or it ended there: the loop writes nothing more. */
        volatile boolean gone;

        Run(String tenantId, String sessionId) {
            this.tenantId = tenantId;
            this.sessionId = sessionId;
            this.history = new HistoryProjection(events, sessionId);
        }
    }

    /** Runs sessions only while this node owns them (a node of a cluster). */
    void ownedThrough(SessionOwnership ownership) {
        this.ownership = ownership;
    }

    /**
     * Makes the session's loop go round. On a node of a cluster the loop runs only where the session's owner is: this
     * node claims the session when no live node owns it, and otherwise asks the owner to go round.
     */
    public void wake(String tenantId, String sessionId) {
        if (closed) return;
        SessionOwnership owners = ownership;
        String owner = null;
        if (owners != null) {
            Optional<String> mine = owners.claim(sessionId);
            if (mine.isEmpty()) return;
            owner = mine.get();
        }
        Run run = run(tenantId, sessionId);
        synchronized (run) {
            if (owner != null) run.owner = owner;
            run.pending.set(true);
            if (run.running) return;
            run.running = true;
        }
        Thread loop = Thread.ofVirtual().name("paddock-session-" + sessionId).unstarted(() -> drive(run));
        loops.add(loop);
        loop.start();
    }

    /**
     * Stops the current turn now: the model request under way is cancelled (its answer is never recorded), the tool
     * call under way is killed with everything it started, and outstanding tool calls are answered as interrupted.
     */
    public void interrupt(String tenantId, String sessionId) {
        SessionOwnership owners = ownership;
        // on a cluster only the owner's loop can be interrupted: another node asks the owner to, through the store
        if (owners != null && owners.claim(sessionId, true).isEmpty()) return;
        interruptHere(tenantId, sessionId);
    }

    /** Interrupts the session's loop on this node, which owns it (directly, or asked to by another node). */
    void interruptHere(String tenantId, String sessionId) {
        Run run = run(tenantId, sessionId);
        run.interrupted.set(true);
        cancelStep(run);
        wake(tenantId, sessionId);
    }

    private static void cancelStep(Run run) {
        Future<?> step = run.step;
        if (step != null) step.cancel(true);
    }

    public void forget(String sessionId) {
        mcp.close(sessionId);
        Run run = runs.remove(sessionId);
        if (run != null) {
            run.interrupted.set(true);
            cancelStep(run);
        }
    }

    /** The sessions whose loops run on this node now, each with the owner id it runs as. */
    Map<String, String> runningOwners() {
        Map<String, String> out = new LinkedHashMap<>();
        runs.forEach((id, run) -> {
            String owner = run.owner;
            synchronized (run) {
                if (run.running && owner != null) out.put(id, owner);
            }
        });
        return out;
    }

    /**
     * Stops the session's loop here at once, if it still runs as {@code owner}: another node took the session over, or
     * it was archived or deleted there. Its model request or tool call under way is cancelled and it writes nothing
     * more; a session that ended gets its sandbox released here, where it runs.
     */
    void stopHere(String sessionId, String owner, Session ended) {
        Run run = runs.get(sessionId);
        if (run == null || !owner.equals(run.owner)) return;
        run.gone = true;
        forget(sessionId);
        if (ended != null) sandboxes.release(ended);
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
                } catch (SessionMovedException e) {
                    log.info("session {} moved to another node; its loop stops here", run.sessionId);
                    runs.remove(run.sessionId, run);
                    return;
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
        Environment env = store.find(Resource.ENVIRONMENT, run.tenantId, session.environmentId()).map(Environment::of).orElse(null);
        if (env == null) {
            end(run, session, "unknown_error", "the session's environment no longer exists");
            return;
        }
        SessionAgent agent = SessionAgent.of(SessionResource.of(session).agent()).withSkills(sandboxes.skillListing(session, env));
        HistoryProjection history = run.history;
        if (history.read(h -> h.endsWith(SessionEventType.SESSION_STATUS_IDLE))) {
            return; // the session stopped after its last input (e.g. at the turn limit): only new input moves it
        }
        boolean resumed = history.read(History::rescheduled);
        if (resumed) settleCutOff(run, agent, env);
        if (history.read(h -> h.pending().isEmpty() && !h.modelToMove())) {
            run.interrupted.set(false);
            if (resumed) idle(run, StopReason.END_TURN); // the lost node had recorded the turn's end, not yet its idle
            return;
        }
        setStatus(run, Session.RUNNING);
        append(run, SessionEventType.SESSION_STATUS_RUNNING, Map.of());
        SessionMcp servers = mcp.of(run.tenantId, run.sessionId);
        run.mcp = servers;
        try {
            agent = agent.withMcp(servers.offer(SessionResource.of(session).agent(), SessionResource.of(session).vaultIds()));
        } catch (McpFailure f) {
            mcpFailed(run, f);
            return;
        }
        int turns = 0;
        while (true) {
            if (run.interrupted.getAndSet(false)) {
                for (History.PendingUse use : history.read(History::pending)) {
                    String text = "interrupted by the user before this tool call finished";
                    if (McpToolNames.isQualified(use.name())) mcpResult(run, use.eventId(), McpCallResult.error(text));
                    else toolResult(run, use.eventId(), text, true);
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
                    String text = "the user denied this tool call" + (why == null ? "" : ": " + why);
                    if (McpToolNames.isQualified(use.name())) mcpResult(run, use.eventId(), McpCallResult.error(text));
                    else toolResult(run, use.eventId(), text, true);
                    continue;
                }
                if (McpToolNames.isQualified(use.name())) {
                    // the server calls MCP tools itself, in both lanes: the credential never leaves it
                    McpCallResult r;
                    try {
                        r = interruptibly(run, "mcp", () -> servers.call(use.name(), use.input()));
                    } catch (McpFailure f) {
                        mcpFailed(run, f);
                        return;
                    }
                    if (r == null) break; // interrupted: the turn loop answers the call
                    mcpResult(run, use.eventId(), r);
                    continue;
                }
                if (env.selfHosted()) {
                    awaitWorker(run, use.eventId());
                } else {
                    ToolResult r;
                    try {
                        r = interruptibly(run, "tool", () -> sandboxes.run(session, env, use.name(), use.input(), run.owner));
                    } catch (ResourcePlacement.Failure f) {
                        resourceFailed(run, use.eventId(), f);
                        return;
                    }
                    if (r == null) break; // interrupted: the turn loop answers the call
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
            if (budgetReached(run)) return;
            if (!callModel(run, session, agent, history.read(History::messages))) return;
        }
    }

    /**
     * A turn cut off by its node's loss goes on here: the model request that node had under way ends as an error (its
     * answer never came), and the first tool call that node would have run itself and left without a result is
     * answered as lost rather than run again, since it may have run in part or in full: the model decides what to do
     * about it. Tool calls after it had not started (calls run one at a time, in order) and run as usual; a
     * self-hosted worker's calls are not the node's and stay open for the worker's result.
     */
    private void settleCutOff(Run run, SessionAgent agent, Environment env) {
        String open = run.history.read(History::openModelRequest);
        if (open != null) append(run, SessionEventType.SPAN_MODEL_REQUEST_END, AgentEvents.modelRequestEnd(open, true, ModelUsage.NONE));
        for (History.PendingUse use : run.history.read(History::pending)) {
            boolean mcpCall = McpToolNames.isQualified(use.name());
            if (use.custom() || (env.selfHosted() && !mcpCall)) continue;
            History.Confirmation verdict = run.history.read(h -> h.confirmation(use.eventId()));
            if (verdict == null ? agent.asksFirst(use.name()) : verdict.denied()) continue; // the node never ran it
            if (mcpCall) mcpResult(run, use.eventId(), McpCallResult.error(LOST_CALL));
            else toolResult(run, use.eventId(), LOST_CALL, true);
            return;
        }
    }

    /** What a tool call cut off by its node's loss answers. */
    static final String LOST_CALL = "this tool call was under way on a Paddock node that was lost before it finished: it may have run "
            + "in part or in full, and it was not run again. Its sandbox may be a new one (a fresh workspace, or the last checkpoint's): "
            + "check what it changed before relying on it";

    /** Stops the session before a model request its budget or limits do not allow; true when it did. */
    private boolean budgetReached(Run run) {
        Session now = session(run);
        if (now == null) return true;
        Optional<String> why = budget.reached(now, Duration.ofNanos(run.activeSince == 0 ? 0 : System.nanoTime() - run.activeSince));
        if (why.isEmpty()) return false;
        log.info("session {} stops before its next model request: {}", run.sessionId, why.get());
        idle(run, StopReason.BUDGET_REACHED);
        return true;
    }

    /**
     * Asks the model for the next turn and records it; false when the turn ended here (the model refused, had nothing
     * to add, or failed for good). A failure that may pass is retried with exponential backoff, or after the wait the
     * model's server asked for, while the retry budget lasts; each retry is a {@code session.error} that says so.
     */
    private boolean callModel(Run run, Session session, SessionAgent agent, List<ModelGateway.Message> messages) {
        ModelGateway gateway = model.get();
        if (gateway == null) {
            fail(run, "model_request_failed_error", "no model is configured on this server (set model_base_url)");
            return false;
        }
        ModelGateway.Request request = new ModelGateway.Request(agent.modelId(), agent.system(), agent.tools(), messages, config.maxTokens());
        long started = System.nanoTime();
        Duration backoff = config.modelRetryBackoff();
        while (true) {
            SessionEvent start = append(run, SessionEventType.SPAN_MODEL_REQUEST_START, Map.of());
            MessagePreviews previews = new MessagePreviews(events, run.sessionId);
            ModelGateway.Turn t;
            ModelGateway.Failure failure;
            try {
                t = interruptibly(run, "model", () -> gateway.call(request, previews));
                failure = null;
            } catch (ModelGateway.Failure f) {
                t = null;
                failure = f;
            } catch (RuntimeException e) {
                previews.close();
                // not a failure of the model but of Paddock: the turn ends, the session stays
                append(run, SessionEventType.SPAN_MODEL_REQUEST_END, AgentEvents.modelRequestEnd(start.id(), true, ModelUsage.NONE));
                fail(run, ModelGateway.Failure.Kind.REQUEST_FAILED.errorType(), "the model request failed: " + Text.clip(e.getMessage(), 300));
                return false;
            }
            // a cancelled stream may still deliver a fragment: none goes out after the request's end
            previews.close();
            if (failure == null) {
                if (t != null) return record(run, agent, start, t, previews);
                // cancelled by an interrupt: the request ends without an answer, the turn loop answers the interrupt
                append(run, SessionEventType.SPAN_MODEL_REQUEST_END, AgentEvents.modelRequestEnd(start.id(), true, ModelUsage.NONE));
                return true;
            }
            append(run, SessionEventType.SPAN_MODEL_REQUEST_END, AgentEvents.modelRequestEnd(start.id(), true, ModelUsage.NONE));
            String type = failure.kind().errorType();
            String message = Text.clip(failure.getMessage(), 300);
            if (!failure.retryable()) {
                end(run, session, type, message);
                return false;
            }
            Duration wait = failure.retryAfter() != null ? failure.retryAfter() : backoff;
            Duration spent = Duration.ofNanos(System.nanoTime() - started);
            if (spent.plus(wait).compareTo(config.modelRetryBudget()) > 0) {
                fail(run, type, message + "; retried for " + spent.toMillis() + " ms, the next try (in " + wait.toMillis()
                        + " ms) would pass the retry budget of " + config.modelRetryBudget().toMillis() + " ms");
                return false;
            }
            append(run, SessionEventType.SESSION_ERROR, AgentEvents.error(type, message + "; retrying in " + wait.toMillis() + " ms",
                    AgentEvents.RETRYING));
            pause(run, wait);
            if (run.interrupted.get()) return true; // the turn loop answers the interrupt
            backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
        }
    }

    /**
     * Records the model's turn as events, its text under the ids its previews announced, and adds its tokens and list
     * cost to the session's usage; false when the turn ends with it.
     */
    private boolean record(Run run, SessionAgent agent, SessionEvent start, ModelGateway.Turn t, MessagePreviews previews) {
        ModelUsage usage = new ModelUsage(t.inputTokens(), t.outputTokens(), t.cacheReadInputTokens(), t.cacheCreationInputTokens());
        append(run, SessionEventType.SPAN_MODEL_REQUEST_END, AgentEvents.modelRequestEnd(start.id(), false, usage));
        Optional<Long> cost = budget.cost(agent.modelId(), usage, t.cacheCreation1hInputTokens());
        Session counted = save(run, null, u -> u.plus(usage, t.cacheCreation1hInputTokens(), cost));
        if (counted != null) budget.snapshot(counted).ifPresent(body -> append(run, SessionEventType.SESSION_USAGE, body));
        int texts = 0;
        for (Block block : t.blocks()) {
            switch (block) {
                case Block.Text text when run.gone -> throw new SessionMovedException(run.sessionId, run.owner);
                case Block.Text text -> events.append(run.owner, previews.messageId(texts++), run.sessionId, run.tenantId, SessionEventType.AGENT_MESSAGE,
                        AgentEvents.message(text.text()));
                case Block.ToolUse use when McpToolNames.isQualified(use.name()) -> append(run, SessionEventType.AGENT_MCP_TOOL_USE, mcpToolUse(run, agent, use));
                case Block.ToolUse use when agent.runsBuiltIn(use.name()) -> append(run, SessionEventType.AGENT_TOOL_USE,
                        AgentEvents.toolUse(use.name(), use.input(), agent.asksFirst(use.name()) ? "ask" : "allow"));
                case Block.ToolUse use -> append(run, SessionEventType.AGENT_CUSTOM_TOOL_USE, AgentEvents.toolUse(use.name(), use.input(), null));
                case Block.ToolResult ignored -> { }
            }
        }
        if (t.refused()) {
            idle(run, StopReason.refusal(t.refusal()));
            return false;
        }
        if (t.blocks().isEmpty()) {
            // nothing said and nothing to run: asking again would get the same answer
            idle(run, StopReason.END_TURN);
            return false;
        }
        return true;
    }

    /**
     * Runs a step (a model request, a tool call) on a thread of its own, so that an interrupt can cancel it at once:
     * cancelling interrupts that thread, which closes the model request's connection or kills the tool's process
     * group. Null when the step was cancelled; what it would have returned is dropped.
     */
    private <T> T interruptibly(Run run, String what, Callable<T> step) {
        FutureTask<T> task = new FutureTask<>(step);
        run.step = task;
        Thread thread = null;
        try {
            if (run.interrupted.get()) return null;
            thread = Thread.ofVirtual().name("paddock-session-" + run.sessionId + "-" + what).start(task);
            return task.get();
        } catch (CancellationException e) {
            settle(thread, what);
            return null;
        } catch (InterruptedException e) {
            task.cancel(true);
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw new IllegalStateException(e.getCause());
        } finally {
            run.step = null;
        }
    }

    /**
     * Gives a cancelled step a moment to clean up (its killed processes reaped, its broken connection dropped) before
     * the loop goes on, so the next step does not meet what it leaves behind.
     */
    private static void settle(Thread step, String what) {
        try {
            if (!step.join(STEP_SETTLE)) log.warn("a cancelled {} step still runs after {} ms", what, STEP_SETTLE.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits before a retry; an interrupt or shutdown cuts the wait short. */
    private void pause(Run run, Duration wait) {
        long until = System.nanoTime() + wait.toNanos();
        try {
            while (!run.interrupted.get() && !closed) {
                long left = until - System.nanoTime();
                if (left <= 0) return;
                Thread.sleep(Duration.ofNanos(Math.min(left, PAUSE_SLICE.toNanos())));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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

    /** The model's call of an MCP tool as its event; a name the session did not offer is recorded as denied. */
    private Map<String, Object> mcpToolUse(Run run, SessionAgent agent, Block.ToolUse use) {
        return run.mcp.tool(use.name())
                .map(t -> AgentEvents.mcpToolUse(t.serverName(), t.toolName(), use.input(), agent.asksFirst(use.name()) ? "ask" : "allow"))
                .orElseGet(() -> {
                    String rest = use.name().substring(McpToolNames.PREFIX.length());
                    int cut = rest.indexOf("__");
                    return AgentEvents.mcpToolUse(cut < 0 ? "" : rest.substring(0, cut), cut < 0 ? rest : rest.substring(cut + 2), use.input(), "deny");
                });
    }

    private void mcpResult(Run run, String useId, McpCallResult r) {
        append(run, SessionEventType.AGENT_MCP_TOOL_RESULT, AgentEvents.mcpToolResult(useId, r));
    }

    /**
     * An MCP server could not be used: its open calls are answered as not made, the session gets the SDK's
     * {@code mcp_*_error}, and the turn ends; the next message connects again.
     */
    private void mcpFailed(Run run, McpFailure f) {
        run.mcp.drop(f.serverName());
        for (History.PendingUse use : run.history.read(History::pending)) {
            if (McpToolNames.isQualified(use.name())) mcpResult(run, use.eventId(), McpCallResult.error("not called: " + f.getMessage()));
        }
        append(run, SessionEventType.SESSION_ERROR, AgentEvents.mcpError(f));
        idle(run, StopReason.RETRIES_EXHAUSTED);
    }

    private void toolResult(Run run, String useId, String text, boolean isError) {
        append(run, SessionEventType.AGENT_TOOL_RESULT, new ToolResultEvent(SessionEventType.AGENT_TOOL_RESULT, useId, text, isError).body());
    }

    private void idle(Run run, StopReason reason) {
        setStatus(run, Session.IDLE);
        append(run, SessionEventType.SESSION_STATUS_IDLE, AgentEvents.idle(reason));
    }

    /** The turn is dead; the session goes idle and takes new input. */
    private void fail(Run run, String type, String message) {
        append(run, SessionEventType.SESSION_ERROR, AgentEvents.error(type, message, AgentEvents.EXHAUSTED));
        idle(run, StopReason.RETRIES_EXHAUSTED);
    }

    /** The session's resources could not be laid into its sandbox: the tool call fails, the turn ends with the SDK's error. */
    private void resourceFailed(Run run, String useId, ResourcePlacement.Failure f) {
        toolResult(run, useId, "the session's resources could not be laid into its sandbox: " + f.getMessage(), true);
        append(run, SessionEventType.SESSION_ERROR, AgentEvents.resourceError(f.errorType(), f.getMessage(), f.repositoryUrl()));
        idle(run, StopReason.RETRIES_EXHAUSTED);
    }

    /** An error no retry and no new input can mend: the session is terminated. */
    private void end(Run run, Session session, String type, String message) {
        append(run, SessionEventType.SESSION_ERROR, AgentEvents.error(type, message, AgentEvents.TERMINAL));
        save(run, null, UnaryOperator.identity());
        forget(run.sessionId);
        ending.end(session, run.owner);
    }

    private SessionEvent append(Run run, SessionEventType type, Map<String, Object> body) {
        if (run.gone) throw new SessionMovedException(run.sessionId, run.owner);
        return events.append(run.owner, null, run.sessionId, run.tenantId, type, body);
    }

    private void setStatus(Run run, String status) {
        save(run, status, UnaryOperator.identity());
    }

    /**
     * Writes the session's status (null: as it is) and adds to its usage the time it ran since the last write and
     * what {@code counted} adds (a model request's tokens and cost); the session as written, or null when it is gone
     * or terminated.
     */
    private Session save(Run run, String status, UnaryOperator<SessionUsage> counted) {
        long now = System.nanoTime();
        Duration active = run.activeSince == 0 ? Duration.ZERO : Duration.ofNanos(now - run.activeSince);
        boolean runs = status == null ? run.activeSince != 0 : Session.RUNNING.equals(status);
        run.activeSince = runs ? now : 0;
        for (int attempt = 0; attempt < 10; attempt++) {
            if (run.gone) throw new SessionMovedException(run.sessionId, run.owner);
            Session s = session(run);
            if (s == null || s.terminated()) return null;
            Session next = status == null ? s : s.withStatus(status, clock.instant());
            Map<String, Object> body = new LinkedHashMap<>(next.body());
            SessionUsage usage = counted.apply(SessionUsage.fromStored(body.get("usage")).plus(active));
            body.put("usage", usage.toStored());
            body.put("stats", usage.statsToWire(null, null));
            try {
                Resource row = next.row().withBody(body, clock.instant());
                // the owner check is in the same statement: a node that lost the session overwrites nothing of its new owner's
                return new Session(run.owner == null ? store.update(row) : store.updateAsOwner(run.owner, row));
            } catch (PaddockException e) {
                if (!"concurrent_update".equals(e.code())) throw e;
            }
        }
        log.warn("session {}: its status and usage could not be written (ten concurrent updates in a row)", run.sessionId);
        return null;
    }

    private Session session(Run run) {
        return store.find(Resource.SESSION, run.tenantId, run.sessionId).map(Session::new).orElse(null);
    }

    @Override
    public void close() {
        closed = true;
        runs.values().forEach(r -> {
            r.interrupted.set(true);
            cancelStep(r);
        });
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
        mcp.close();
    }
}
