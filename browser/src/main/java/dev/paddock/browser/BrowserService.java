package dev.paddock.browser;

import dev.paddock.access.Principal;
import dev.paddock.core.BoundedBuffer;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.ProcessInfo;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.host.RuntimeHost;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Script mode and step mode for browser sandboxes. Chromium runs inside the sandbox, launched by playwright-core
 * over a pipe (CDP never listens on a TCP port); the step-mode agent listens on a unix socket in the sandbox's
 * private /tmp and the host reaches it only by exec of the init's relay ({@code connect} mode) through the
 * driver's host-only channel.
 * Everything coming back is parsed as hostile JSON and only known fields are passed on.
 */
public final class BrowserService {
    /** stdout and stderr of a script are each cut after this many bytes, with a marker saying how much was dropped. */
    public static final int OUTPUT_LIMIT = 64 * 1024;
    public static final Duration DEFAULT_SCRIPT_TIMEOUT = Duration.ofMinutes(2);
    public static final Duration DEFAULT_ACTION_TIMEOUT = Duration.ofSeconds(30);
    static final Duration MAX_TIMEOUT = Duration.ofMinutes(30);
    static final int MAX_SCRIPT = 1 << 20;
    private static final int MAX_ANSWER = 64 << 20;
    /** Snapshot references: e12 in the page, f1e3 inside its first frame (Playwright's aria-ref form). */
    private static final Pattern REF = Pattern.compile("(f[0-9]{1,4})?e[0-9]{1,7}");
    public static final Set<String> ACTIONS = Set.of("navigate", "click", "type", "press", "scroll", "select", "hover",
            "wait_for", "back", "forward", "tabs", "screenshot", "frame", "snapshot", "evaluate", "set_cookies");
    /** Codes the agent gives a failed navigation: refused by the egress policy, or not carried by the proxy. */
    static final Set<String> NAVIGATION_CODES = Set.of("navigation_refused", "navigation_failed");
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9._:-]{1,255}");
    private static final List<String> ANSWER_FIELDS = List.of("url", "title", "snapshot", "screenshot", "frame", "tabs", "value", "error");

    static final List<String> AGENT_ARGV = List.of("node", BrowserAssets.DIR + "/agent.mjs");

    private final RuntimeHost host;
    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private final Map<String, Long> agents = new ConcurrentHashMap<>();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();
    private final AtomicLong runs = new AtomicLong();

    public BrowserService(RuntimeHost host) {
        this.host = host;
    }

    /** Whether browser sandboxes on {@code driver} (null: the default) run Chromium with its own sandbox on. */
    boolean keepsChromiumSandbox(String driver) {
        String id = driver == null ? host.config().defaultDriver() : driver;
        return host.drivers().stream().anyMatch(c -> c.driver().equals(id) && c.keepsChromiumSandbox());
    }

    // ---------------------------------------------------------------- script mode

    /** Writes {@code script} into the sandbox and runs it with node; {@code timeout} null takes the default. */
    public ScriptResult runScript(Principal p, String id, String script, Duration timeout) {
        if (script == null || script.isBlank()) throw new PaddockException(ErrorCode.SCRIPT_REQUIRED, "send the Playwright script (an ES module) as \"script\"");
        byte[] code = script.getBytes(StandardCharsets.UTF_8);
        if (code.length > MAX_SCRIPT) throw new PaddockException(ErrorCode.SCRIPT_TOO_LARGE, "a script may be at most " + MAX_SCRIPT + " bytes");
        Duration t = timeout(timeout, DEFAULT_SCRIPT_TIMEOUT);
        requireBrowser(p, id);
        BrowserAssets.install(BrowserAssets.Commands.of(host, p, id), id);
        long n = runs.incrementAndGet();
        String task = BrowserAssets.DIR + "/task/task-" + n + ".mjs";
        String stamp = BrowserAssets.DIR + "/task/stamp-" + n;
        String shot = "/workspace/.paddock/failure-" + n + ".png";
        sh(p, id, "mkdir -p /workspace/.paddock && cat > " + task + " && touch " + stamp, code);
        BoundedBuffer out = new BoundedBuffer(OUTPUT_LIMIT);
        BoundedBuffer err = new BoundedBuffer(OUTPUT_LIMIT);
        ExecResult r;
        try (Heartbeat ignored = new Heartbeat(host, p, id)) {
            r = host.run(p, id, new ExecRequest(List.of("node", BrowserAssets.DIR + "/runner.mjs", task, shot), Map.of(), "/workspace", t, null),
                    ExecOutput.into(out, err));
        }
        String listing = sh(p, id, "find /workspace -newer " + stamp + " -type f ! -path '/workspace/.paddock/*' | head -1000; test -f " + shot + " && echo FAILSHOT", null);
        List<String> files = new ArrayList<>();
        boolean failShot = false;
        for (String line : listing.split("\n")) {
            if (line.equals("FAILSHOT")) failShot = true;
            else if (line.startsWith("/workspace/")) files.add(line.substring("/workspace/".length()));
        }
        boolean failed = r.exitCode() != 0 || r.timedOut();
        String error = !failed ? null : r.timedOut() ? "the script did not finish within " + t.toSeconds() + " s and was killed" : lastLines(err.markedText(), 20);
        return new ScriptResult(r.exitCode(), r.timedOut(), out.markedText(), err.markedText(), out.truncated(), err.truncated(), files, error,
                failed && failShot ? shot.substring("/workspace/".length()) : null, r.duration().toMillis());
    }

    // ---------------------------------------------------------------- step mode

    /**
     * Runs one step-mode action (see {@link #ACTIONS}) and returns the page state: {@code ok}, {@code url},
     * {@code title}, and on request {@code snapshot} / {@code screenshot} (base64 PNG); {@code frame} answers the
     * visible viewport as a base64 JPEG ({@code quality} 10–90, default 60) for the console's live view; {@code error} when the
     * action failed in the page (the sandbox and its browser stay usable).
     */
    public ObjectNode act(Principal p, String id, JsonNode action) {
        ObjectNode req = validate(action);
        SandboxRecord rec = requireBrowser(p, id);
        if ("evaluate".equals(req.path("action").asString()) && !BrowserTemplate.allowsEvaluate(rec.spec().env())) {
            throw new PaddockException(ErrorCode.EVALUATE_NOT_ALLOWED,
                    "this browser sandbox was created without \"allow_evaluate\"; create it with browser {\"allow_evaluate\": true}");
        }
        Duration t = Duration.ofMillis(req.path("timeout_ms").asLong());
        synchronized (locks.computeIfAbsent(id, k -> new Object())) {
            boolean fresh = ensureAgent(p, id);
            ObjectNode answer = send(p, id, req, t, fresh ? Duration.ofSeconds(60) : Duration.ofSeconds(5));
            if (answer == null && !fresh) {
                agents.remove(id);
                ensureAgent(p, id);
                answer = send(p, id, req, t, Duration.ofSeconds(60));
            }
            if (answer == null) {
                agents.remove(id);
                throw new PaddockException(ErrorCode.BROWSER_UNAVAILABLE, "the browser in sandbox " + id + " did not start; see its process logs");
            }
            return answer;
        }
    }

    /** How long one live view runs before the viewer has to ask again, so an open tab never keeps a sandbox awake for good. */
    public static final Duration SCREENCAST_LENGTH = Duration.ofMinutes(5);

    /**
     * Starts the live view: a CDP screencast of the active tab, frames (and url/title changes) handed to {@code sink}
     * as they come, on the driver's output thread. It runs for {@code length} (at most {@link #SCREENCAST_LENGTH})
     * unless closed first; while it runs the sandbox counts as active. {@code quality} is the JPEG quality, 10–90.
     */
    public Screencast screencast(Principal p, String id, int quality, Duration length, Consumer<ObjectNode> sink) {
        if (quality < 10 || quality > 90) throw new PaddockException(ErrorCode.INVALID_QUALITY, "\"quality\" must be a whole number from 10 to 90");
        Duration t = timeout(length, SCREENCAST_LENGTH);
        if (t.compareTo(SCREENCAST_LENGTH) > 0) throw new PaddockException(ErrorCode.INVALID_TIMEOUT, "a live view runs at most " + SCREENCAST_LENGTH.toMinutes() + " minutes; ask again after that");
        requireBrowser(p, id);
        synchronized (locks.computeIfAbsent(id, k -> new Object())) {
            ensureAgent(p, id);
        }
        ObjectNode req = JSON.createObjectNode().put("action", "screencast").put("quality", quality);
        Screencast cast = new Screencast(new Heartbeat(host, p, id));
        try {
            cast.attach(host.exec(p, id, BrowserAssets.castFromAgent(JSON.writeValueAsBytes(req), t, Duration.ofSeconds(60)),
                    Screencast.lines(JSON, sink, cast::close)));
        } catch (RuntimeException e) {
            cast.close();
            throw e;
        }
        return cast;
    }

    /**
     * Starts the browser of a new browser sandbox in the background so that the first action does not pay for
     * Chromium's start; failures are left for that first action to report. Acts as the sandbox's tenant, for whom
     * it was just created.
     */
    void prewarm(SandboxRecord sandbox) {
        Principal owner = new Principal(sandbox.tenantId(), null, false);
        String id = sandbox.id();
        Thread.ofVirtual().name("browser-prewarm-" + id).start(() -> {
            try {
                synchronized (locks.computeIfAbsent(id, k -> new Object())) {
                    ensureAgent(owner, id);
                }
            } catch (RuntimeException e) {
                agents.remove(id);
            }
        });
    }

    /**
     * Readies a pooled browser sandbox (see {@link BrowserTemplate#warmProfile}): the files, the step-mode agent,
     * and Chromium up with a blank page, so a claimed sandbox's first action pays for neither. The agent is adopted
     * by {@link #act} like one left by a host restart.
     */
    static void startPooled(Sandbox sandbox) {
        String id = sandbox.ref().sandboxId();
        BrowserAssets.Commands commands = BrowserAssets.Commands.of(sandbox);
        BrowserAssets.install(commands, id);
        sandbox.startProcess(new ExecRequest(AGENT_ARGV, Map.of(), "/workspace", Duration.ofDays(1), null));
        // a page's first snapshot, click and screenshot are slow (code paths not yet compiled, caches empty): take
        // them here, in a tab of their own that is closed again, so the claimer's page starts with a clean history
        Duration connect = Duration.ofSeconds(60);
        for (String step : WARM_UP) {
            BoundedBuffer out = new BoundedBuffer(4 << 20);
            ExecResult r = commands.run(BrowserAssets.toAgent(step.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(30), connect), ExecOutput.into(out, null));
            if (r.exitCode() != 0 || !answeredOk(out.markedText())) {
                throw new PaddockException(ErrorCode.BROWSER_UNAVAILABLE, "the browser of pooled sandbox " + id + " did not start (exit " + r.exitCode() + ")");
            }
            connect = Duration.ofSeconds(5);
        }
    }

    private static final List<String> WARM_UP = List.of(
            "{\"action\":\"tabs\",\"op\":\"new\",\"timeout_ms\":30000}",
            "{\"action\":\"navigate\",\"url\":\"data:text/html,<title>warm-up</title><input aria-label=x><button>Go</button>\",\"timeout_ms\":30000}",
            "{\"action\":\"type\",\"selector\":\"input\",\"text\":\"x\",\"timeout_ms\":30000}",
            "{\"action\":\"click\",\"text\":\"Go\",\"include_snapshot\":true,\"include_screenshot\":true,\"timeout_ms\":30000}",
            "{\"action\":\"tabs\",\"op\":\"close\",\"index\":1,\"timeout_ms\":30000}");

    private static boolean answeredOk(String answer) {
        try {
            return JSON.readTree(answer).path("ok").asBoolean(false);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Forgets an ended sandbox's agent. */
    void forget(String id) {
        agents.remove(id);
        locks.remove(id);
    }

    private boolean ensureAgent(Principal p, String id) {
        Long pid = agents.get(id);
        List<ProcessInfo> running = host.processes(p, id).stream().filter(ProcessInfo::running).toList();
        if (pid != null && running.stream().anyMatch(i -> i.pid() == pid)) return false;
        // after a host restart the map is empty but the sandbox's agent (and its page) may still run: adopt it
        var adopted = running.stream().filter(i -> i.argv().equals(AGENT_ARGV)).findFirst();
        if (adopted.isPresent()) {
            agents.put(id, adopted.get().pid());
            return false;
        }
        BrowserAssets.install(BrowserAssets.Commands.of(host, p, id), id);
        ProcessInfo info = host.startProcess(p, id, new ExecRequest(AGENT_ARGV, Map.of(), "/workspace", Duration.ofDays(1), null));
        agents.put(id, info.pid());
        return true;
    }

    private ObjectNode send(Principal p, String id, ObjectNode req, Duration t, Duration connect) {
        BoundedBuffer out = new BoundedBuffer(MAX_ANSWER);
        ExecRequest exec = BrowserAssets.toAgent(JSON.writeValueAsBytes(req), t, connect);
        ExecResult r;
        try (Heartbeat ignored = new Heartbeat(host, p, id)) {
            r = host.run(p, id, exec, ExecOutput.into(out, null));
        }
        if (r.exitCode() == 3) return null;
        if (r.exitCode() == 127) {
            throw new PaddockException(ErrorCode.BROWSER_NEEDS_INIT_AGENT, "sandbox " + id + " runs on a driver without Paddock's"
                    + " init agent, which relays to the in-sandbox browser; browser sandboxes run on bwrap, gvisor and docker");
        }
        if (r.timedOut()) {
            Long pid = agents.remove(id);
            if (pid != null) host.signalProcess(p, id, pid, 9);
            throw new PaddockException(ErrorCode.BROWSER_TIMEOUT, "the browser did not answer within " + t.toMillis()
                    + " ms; it was restarted (page state is lost), the sandbox stays usable");
        }
        JsonNode raw;
        try {
            raw = out.truncated() ? null : JSON.readTree(out.text());
        } catch (RuntimeException e) {
            raw = null;
        }
        if (raw == null || !raw.isObject()) {
            throw new PaddockException(ErrorCode.BROWSER_BAD_ANSWER, "the browser agent in sandbox " + id + " sent an unreadable answer");
        }
        return checked(raw);
    }

    /** The agent's answer with only known fields; {@code code} only when it is one of {@link #NAVIGATION_CODES}. */
    static ObjectNode checked(JsonNode raw) {
        ObjectNode answer = JSON.createObjectNode();
        answer.put("ok", raw.path("ok").asBoolean(false));
        for (String f : ANSWER_FIELDS) if (raw.has(f)) answer.set(f, raw.get(f));
        // a navigation the egress proxy refused or could not carry: a known code and the host, nothing else
        String code = raw.path("code").asString("");
        if (!answer.path("ok").asBoolean() && NAVIGATION_CODES.contains(code)) {
            answer.put("code", code);
            String h = raw.path("host").asString("");
            if (HOST.matcher(h).matches()) answer.put("host", h);
        }
        return answer;
    }

    private ObjectNode validate(JsonNode action) {
        if (action == null || !action.isObject()) throw new PaddockException(ErrorCode.ACTION_REQUIRED, "send one action as a JSON object with \"action\"");
        String name = action.path("action").asString("");
        if (!ACTIONS.contains(name)) throw new PaddockException(ErrorCode.UNKNOWN_ACTION, "\"action\" must be one of " + new TreeSet<>(ACTIONS));
        ObjectNode req = ((ObjectNode) action).deepCopy();
        String ref = action.path("ref").asString(null);
        if (ref != null && !REF.matcher(ref).matches()) throw new PaddockException(ErrorCode.INVALID_REF, "\"ref\" must be a reference from a snapshot, like e12");
        if (name.equals("navigate")) {
            String url = action.path("url").asString("");
            if (!url.startsWith("http://") && !url.startsWith("https://")) throw new PaddockException(ErrorCode.INVALID_URL, "\"url\" must be an http:// or https:// URL");
        }
        if (name.equals("frame") && action.has("quality")) {
            JsonNode q = action.get("quality");
            if (!q.isIntegralNumber() || q.asInt() < 10 || q.asInt() > 90) throw new PaddockException(ErrorCode.INVALID_QUALITY, "\"quality\" must be a whole number from 10 to 90");
        }
        Duration t = action.has("timeout_ms") ? Duration.ofMillis(action.path("timeout_ms").asLong(-1)) : DEFAULT_ACTION_TIMEOUT;
        req.put("timeout_ms", timeout(t, DEFAULT_ACTION_TIMEOUT).toMillis());
        return req;
    }

    // ---------------------------------------------------------------- shared

    private SandboxRecord requireBrowser(Principal p, String id) {
        SandboxRecord r = host.get(p, id);
        if (!BrowserTemplate.isBrowser(r.spec())) {
            throw new PaddockException(ErrorCode.NOT_A_BROWSER_SANDBOX, "sandbox " + id + " was not created as a browser sandbox; create one with \"template\": \"browser\"");
        }
        return r;
    }

    private String sh(Principal p, String id, String line, byte[] stdin) {
        BoundedBuffer out = new BoundedBuffer(1 << 20);
        ExecResult r = host.run(p, id, new ExecRequest(List.of("/bin/sh", "-c", line), Map.of(), "/workspace", Duration.ofSeconds(30), stdin), ExecOutput.into(out, null));
        if (r.timedOut()) throw new PaddockException(ErrorCode.BROWSER_SETUP_TIMEOUT, "preparing the browser run in sandbox " + id + " timed out");
        return out.markedText();
    }

    private static Duration timeout(Duration asked, Duration fallback) {
        if (asked == null) return fallback;
        if (asked.isNegative() || asked.isZero() || asked.compareTo(MAX_TIMEOUT) > 0) {
            throw new PaddockException(ErrorCode.INVALID_TIMEOUT, "a timeout must be between 1 ms and " + MAX_TIMEOUT.toMinutes() + " minutes");
        }
        return asked;
    }

    private static String lastLines(String s, int n) {
        String[] lines = s.strip().split("\n");
        return String.join("\n", Arrays.asList(lines).subList(Math.max(0, lines.length - n), lines.length));
    }
}
