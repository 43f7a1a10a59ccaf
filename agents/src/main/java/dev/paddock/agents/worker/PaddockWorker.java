package dev.paddock.agents.worker;

import dev.paddock.core.Ids;
import dev.paddock.core.agents.SessionEventType;
import dev.paddock.core.agents.ToolResultEvent;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.access.Principal;
import dev.paddock.host.RuntimeHost;
import dev.paddock.host.SandboxRequest;
import dev.paddock.toolset.AgentToolset;
import dev.paddock.toolset.ToolResult;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * A self-hosted worker in Java: polls an environment's work queue (Paddock's or Anthropic's), acknowledges each
 * item, keeps its lease alive with heartbeats, creates a Paddock sandbox for the session, follows the session's
 * events (the stream rings, an {@link EventCursor} reads what is new) and answers every {@code agent.tool_use} with a {@code user.tool_result} from the agent toolset run in
 * that sandbox, with the session agent's skills laid out at {@code /workspace/skills/<name>/}. The item is force-stopped and the sandbox terminated when the session idles out, ends, or the
 * lease is lost (then the item belongs to someone else and is left alone).
 */
public final class PaddockWorker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PaddockWorker.class);
    private static final String NO_HEARTBEAT = "NO_HEARTBEAT";

    /** {@code maxIdle}: how long a session stays served after its turn ended without new work. */
    public record Settings(String baseUrl, String environmentId, String environmentKey, String workerId, Duration maxIdle,
                           Duration heartbeatInterval, SandboxRequest sandbox) {
        public Settings {
            if (workerId == null || workerId.isBlank()) workerId = "paddock-worker-" + Ids.newId("wkr");
            if (maxIdle == null) maxIdle = Duration.ofSeconds(60);
            if (heartbeatInterval == null) heartbeatInterval = Duration.ofSeconds(20);
            if (sandbox == null) sandbox = SandboxRequest.defaults();
        }
    }

    private final Settings settings;
    private final RuntimeHost host;
    private final QueueClient queue;
    private final Principal owner;
    private final WorkerSkills skills;
    private final AtomicBoolean stopping = new AtomicBoolean();
    /** Held while an item is served; {@link #close()} takes it to wait for that item's clean-up. */
    private final ReentrantLock serving = new ReentrantLock();
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);
    /** How long a cancelled tool call may take to end (its processes killed) before the worker goes on. */
    private static final Duration TOOL_SETTLE = Duration.ofSeconds(2);

    public PaddockWorker(Settings settings, RuntimeHost host) {
        this.settings = settings;
        this.host = host;
        this.queue = new QueueClient(settings.baseUrl(), settings.environmentKey(), settings.workerId());
        this.owner = new Principal("worker", settings.workerId(), false);
        this.skills = new WorkerSkills(queue, host, owner);
    }

    /** Serves work until {@link #close()}; a failed item is logged and the loop goes on. */
    public void run() {
        long backoff = 500;
        while (!stopping.get()) {
            try {
                if (!serveNext(999)) continue;
                backoff = 500;
            } catch (QueueClient.HttpFailure e) {
                if (e.status == 401 || e.status == 403 || e.status == 404) throw e;
                log.warn("work poll failed ({}); retrying in {} ms", e.getMessage(), backoff);
                sleep(backoff);
                backoff = Math.min(backoff * 2, 30_000);
            }
        }
    }

    /**
     * Polls once ({@code blockMs} at most) and serves the item it gets; false when there was none. The poll is inside
     * {@code serving} too, so {@link #close()} cannot return while an item it polled is still to be taken; an item
     * polled after close began is left unacknowledged for another worker.
     */
    public boolean serveNext(long blockMs) {
        serving.lock();
        try {
            Optional<JsonNode> polled = queue.poll(settings.environmentId(), blockMs);
            if (polled.isEmpty() || stopping.get()) return false;
            JsonNode work = polled.get();
            String workId = work.get("id").asString();
            queue.ack(settings.environmentId(), workId);
            if (!"session".equals(work.path("data").path("type").asString())) {
                queue.stop(settings.environmentId(), workId);
                return true;
            }
            serve(workId, work.get("data").get("id").asString());
            return true;
        } finally {
            serving.unlock();
        }
    }

    private void serve(String workId, String sessionId) {
        AtomicBoolean leaseLost = new AtomicBoolean();
        AtomicBoolean done = new AtomicBoolean();
        Thread heartbeat = Thread.ofVirtual().name("worker-heartbeat-" + workId).start(() -> heartbeat(workId, done, leaseLost));
        String sandboxId = null;
        try {
            JsonNode session = queue.session(sessionId);
            if ("terminated".equals(session.path("status").asString())) return;
            SandboxRecord sandbox = host.create(owner, settings.sandbox());
            sandboxId = sandbox.id();
            skills.layOut(session, sandboxId);
            follow(sessionId, new AgentToolset(host, owner, sandboxId), leaseLost, done);
        } catch (RuntimeException e) {
            log.warn("serving session {} failed: {}", sessionId, e.getMessage());
        } finally {
            done.set(true);
            heartbeat.interrupt();
            if (sandboxId != null) {
                try {
                    host.delete(owner, sandboxId);
                } catch (RuntimeException ignored) {
                    // already gone
                }
            }
            if (!leaseLost.get()) {
                try {
                    queue.stop(settings.environmentId(), workId);
                } catch (QueueClient.HttpFailure e) {
                    if (e.status != 409) log.warn("stopping work {} failed: {}", workId, e.getMessage());
                }
            }
        }
    }

    /** What the worker knows of its session from the events it has read. */
    private static final class SessionView {
        final Map<String, JsonNode> unanswered = new LinkedHashMap<>();
        SessionEventType lastStatus;
        boolean endsTurn;
        boolean ended;
        long interrupts;

        void absorb(List<JsonNode> events) {
            for (JsonNode e : events) {
                SessionEventType type = SessionEventType.fromWire(e.get("type").asString()).orElse(null);
                if (type == null) continue;
                if (type.endsSession()) ended = true;
                switch (type) {
                    case AGENT_TOOL_USE -> unanswered.put(e.get("id").asString(), e);
                    case USER_TOOL_RESULT, AGENT_TOOL_RESULT -> unanswered.remove(e.get("tool_use_id").asString());
                    // the loop answers every outstanding call of an interrupted turn itself
                    case USER_INTERRUPT -> {
                        interrupts++;
                        unanswered.clear();
                    }
                    case SESSION_STATUS_IDLE -> {
                        lastStatus = type;
                        endsTurn = !"requires_action".equals(e.path("stop_reason").path("type").asString());
                    }
                    case SESSION_STATUS_RUNNING -> lastStatus = type;
                    default -> { }
                }
            }
        }
    }

    /** Answers tool calls until the session idles out, ends, or the lease is gone. */
    private void follow(String sessionId, AgentToolset tools, AtomicBoolean leaseLost, AtomicBoolean done) {
        LinkedBlockingQueue<String> wakeups = new LinkedBlockingQueue<>();
        AtomicBoolean streaming = new AtomicBoolean(true);
        Thread reader = Thread.ofVirtual().name("worker-events-" + sessionId).start(() -> readStream(sessionId, wakeups, streaming));
        EventCursor cursor = new EventCursor(page -> queue.eventPage(sessionId, page));
        SessionView view = new SessionView();
        long idleSince = -1;
        try {
            while (!stopping.get() && !leaseLost.get() && !done.get()) {
                view.absorb(cursor.next());
                if (view.ended) return;
                boolean ran = false;
                for (JsonNode e : List.copyOf(view.unanswered.values())) {
                    String useId = e.get("id").asString();
                    if (leaseLost.get() || view.ended || !view.unanswered.containsKey(useId)) continue;
                    ToolResult r = runTool(tools, e, view, cursor, wakeups, leaseLost);
                    view.unanswered.remove(useId);
                    ran = true;
                    // null: cancelled by an interrupt (the loop answers the call) or by the session's end
                    if (r != null) queue.send(sessionId, new ToolResultEvent(SessionEventType.USER_TOOL_RESULT, useId, r.content(), r.isError()).toSend());
                }
                if (view.ended) return;
                if (ran || view.lastStatus != SessionEventType.SESSION_STATUS_IDLE || !view.endsTurn) {
                    idleSince = -1;
                } else if (idleSince < 0) {
                    idleSince = System.nanoTime();
                } else if (System.nanoTime() - idleSince > settings.maxIdle().toNanos()) {
                    return;
                }
                if (!streaming.get()) {
                    streaming.set(true);
                    reader = Thread.ofVirtual().start(() -> readStream(sessionId, wakeups, streaming));
                }
                wakeups.poll(250, TimeUnit.MILLISECONDS);
                wakeups.clear();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            reader.interrupt();
        }
    }

    /**
     * Runs one tool call on a thread of its own while reading the session's new events: an interrupt, the call being
     * answered elsewhere, the session's end or a lost lease cancel it, which kills its process group. Null when it
     * was cancelled.
     */
    private ToolResult runTool(AgentToolset tools, JsonNode use, SessionView view, EventCursor cursor, LinkedBlockingQueue<String> wakeups,
                               AtomicBoolean leaseLost) throws InterruptedException {
        String useId = use.get("id").asString();
        @SuppressWarnings("unchecked")
        Map<String, Object> input = QueueClient.JSON.convertValue(use.get("input"), Map.class);
        FutureTask<ToolResult> task = new FutureTask<>(() -> tools.execute(use.get("name").asString(), input));
        Thread thread = Thread.ofVirtual().name("worker-tool-" + useId).start(task);
        long interrupts = view.interrupts;
        int ticks = 0;
        try {
            while (true) {
                try {
                    return task.get(250, TimeUnit.MILLISECONDS);
                } catch (TimeoutException stillRunning) {
                    // new events ring the stream; without it, look every second
                    if (wakeups.poll() != null || ++ticks % 4 == 0) {
                        wakeups.clear();
                        view.absorb(cursor.next());
                    }
                    if (view.interrupts > interrupts || view.ended || !view.unanswered.containsKey(useId) || leaseLost.get() || stopping.get()) {
                        task.cancel(true);
                        thread.join(TOOL_SETTLE);
                        return null;
                    }
                } catch (ExecutionException failed) {
                    throw failed.getCause() instanceof RuntimeException r ? r : new IllegalStateException(failed.getCause());
                }
            }
        } finally {
            task.cancel(true);
        }
    }

    private void readStream(String sessionId, LinkedBlockingQueue<String> wakeups, AtomicBoolean streaming) {
        try (InputStream in = queue.stream(sessionId);
             BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null && !Thread.currentThread().isInterrupted()) {
                if (line.startsWith("event:")) wakeups.offer(line);
            }
        } catch (Exception e) {
            log.debug("event stream of {} ended: {}", sessionId, e.toString());
        } finally {
            streaming.set(false);
        }
    }

    private void heartbeat(String workId, AtomicBoolean done, AtomicBoolean leaseLost) {
        String last = NO_HEARTBEAT;
        while (!done.get()) {
            try {
                JsonNode r = queue.heartbeat(settings.environmentId(), workId, last);
                last = r.get("last_heartbeat").asString();
                String state = r.path("state").asString();
                if (!r.path("lease_extended").asBoolean(true) || "stopping".equals(state) || "stopped".equals(state)) {
                    log.info("work {} is {}; stopping", workId, state);
                    done.set(true);
                    return;
                }
            } catch (QueueClient.HttpFailure e) {
                if (e.status == 412 || e.status == 404 || e.status == 409) {
                    log.warn("lease on work {} lost: {}", workId, e.getMessage());
                    leaseLost.set(true);
                    return;
                }
                log.warn("heartbeat of work {} failed: {}", workId, e.getMessage());
            }
            try {
                Thread.sleep(settings.heartbeatInterval());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops polling and waits (bounded) for the item being served to end at its next step, so its sandbox is
     * deleted and its work stopped while the host and the queue are still there.
     */
    @Override
    public void close() {
        stopping.set(true);
        try {
            if (serving.tryLock(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) serving.unlock();
            else log.warn("the session being served did not end within {} s; its sandbox is left to the host's lifetime policy", CLOSE_WAIT.toSeconds());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
