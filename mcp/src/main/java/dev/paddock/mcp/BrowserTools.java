package dev.paddock.mcp;

import static dev.paddock.toolset.Schemas.object;
import static dev.paddock.toolset.Schemas.props;
import static dev.paddock.toolset.Schemas.type;

import dev.paddock.access.Principal;
import dev.paddock.browser.BrowserService;
import dev.paddock.browser.BrowserTemplate;
import dev.paddock.browser.ScriptResult;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.host.RuntimeHost;
import dev.paddock.host.SandboxRequest;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ImageContent;
import java.io.IOException;
import java.time.Duration;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.databind.node.ObjectNode;

/**
 * The browser tools: create_browser_sandbox, browser_action (step mode) and browser_script (script mode), over
 * {@link BrowserService}. Screenshots come back as MCP image content, so a client shows its model the page itself.
 */
final class BrowserTools {
    /** The step-mode fields a call may carry besides sandbox_id; their meaning is the REST action's (docs/API.md). */
    private static final Map<String, Object> ACTION_FIELDS = props(
            "action", Map.of("type", "string", "enum", List.copyOf(new TreeSet<>(BrowserService.ACTIONS)), "description", "What to do"),
            "url", type("string", "navigate: an http:// or https:// URL"),
            "ref", type("string", "click/type/press/select/hover/wait_for: an element reference from a snapshot, like e12"),
            "selector", type("string", "instead of ref: a Playwright selector"),
            "text", type("string", "type: the text to enter; click/hover: instead of ref, the visible text to find"),
            "submit", type("boolean", "type: press Enter afterwards"),
            "key", type("string", "press: a key such as Enter or Control+A"),
            "dx", type("integer", "scroll: pixels to the right"),
            "dy", type("integer", "scroll: pixels down (default 600)"),
            "values", Map.of("type", "array", "items", Map.of("type", "string"), "description", "select: the option values"),
            "state", type("string", "wait_for: visible, hidden, attached or detached; for a page load: load, domcontentloaded or networkidle"),
            "op", type("string", "tabs: list (default), new, switch or close"),
            "index", type("integer", "tabs switch/close: the tab's index"),
            "full_page", type("boolean", "screenshot: the whole page, not only the viewport"),
            "expression", type("string", "evaluate: a JavaScript expression (only in sandboxes created with allow_evaluate)"),
            "include_snapshot", type("boolean", "also answer the accessibility snapshot after the action"),
            "include_screenshot", type("boolean", "also answer a screenshot after the action"),
            "cookies", Map.of("type", "array", "items", Map.of("type", "object"),
                    "description", "set_cookies: short-lived cookies for this task ({name, value, url} or {name, value, domain, path})"),
            "quality", type("integer", "frame: JPEG quality 10-90 (a small viewport image, for watching)"),
            "timeout_ms", type("integer", "give up on the action after this long (default 30000)"));
    private static final Set<String> ACTION_ARGS = withSandboxId(ACTION_FIELDS.keySet());

    private final RuntimeHost host;
    private final BrowserService browser;

    BrowserTools(RuntimeHost host, BrowserService browser) {
        this.host = host;
        this.browser = browser;
    }

    List<SyncToolSpecification> specifications() {
        Map<String, Object> actionProps = new LinkedHashMap<>();
        actionProps.put("sandbox_id", type("string", "A browser sandbox's id, from create_browser_sandbox"));
        actionProps.putAll(ACTION_FIELDS);
        return List.of(
                McpTools.tool("create_browser_sandbox", "Create a sandbox with a Chromium browser that can reach only allowed_hosts "
                                + "(private addresses and cloud metadata are always blocked; every connection is audited). Returns its id; "
                                + "drive it with browser_action or browser_script.",
                        object(props("allowed_hosts", Map.of("type", "array", "items", Map.of("type", "string"),
                                        "description", "Hosts the browser may reach: example.com, *.example.com, example.com:8443"),
                                "allow_evaluate", type("boolean", "Let browser_action run JavaScript in pages (evaluate); off by default"),
                                "timeout_seconds", type("integer", "Lifetime in seconds; the server's default when absent")), List.of("allowed_hosts")),
                        this::create),
                McpTools.tool("browser_action", "One browser action in a browser sandbox; answers the page's url and title, and on request "
                                + "its accessibility snapshot (with element references for click/type) or a screenshot. Take a snapshot "
                                + "first to find references.",
                        object(actionProps, List.of("sandbox_id", "action")),
                        this::act),
                McpTools.tool("browser_script", "Run a whole Playwright script (an ES module: import { chromium } from 'playwright') "
                                + "in a browser sandbox, in /workspace. Answers exit_code, stdout, stderr (each cut at "
                                + BrowserService.OUTPUT_LIMIT / 1024 + " KiB), the files it made, and on failure the error and a screenshot.",
                        object(props("sandbox_id", type("string", "A browser sandbox's id, from create_browser_sandbox"),
                                "script", type("string", "The script's source"),
                                "timeout_seconds", type("integer", "Kill the script after this many seconds (default 120)")), List.of("sandbox_id", "script")),
                        this::script));
    }

    private CallToolResult create(Principal caller, McpArgs args) {
        args.allowOnly(Set.of("allowed_hosts", "allow_evaluate", "timeout_seconds"));
        List<String> hosts = args.optionalStringList("allowed_hosts");
        if (hosts == null || hosts.isEmpty()) throw args.fail("allowed_hosts is required: the hosts the browser may reach, e.g. [\"example.com\"]");
        Long seconds = args.optionalInteger("timeout_seconds", 1, Duration.ofDays(365).toSeconds());
        SandboxRequest request = BrowserTemplate.request(SandboxRequest.defaults()
                .withNetwork(new NetworkPolicy(NetworkPolicy.Mode.LIMITED, hosts, false))
                .withTimeout(seconds == null ? null : Duration.ofSeconds(seconds)), args.optionalBoolean("allow_evaluate"));
        SandboxRecord created = host.create(caller, request); // the template starts its browser
        return McpTools.json(SandboxTools.view(created));
    }

    private CallToolResult act(Principal caller, McpArgs args) {
        args.allowOnly(ACTION_ARGS);
        String id = args.requiredString("sandbox_id");
        ObjectNode request = McpTools.JSON.valueToTree(args.without("sandbox_id"));
        ObjectNode answer = browser.act(caller, id, request);
        String screenshot = answer.has("screenshot") ? answer.remove("screenshot").asString() : null;
        CallToolResult.Builder out = CallToolResult.builder().addTextContent(McpTools.JSON.writeValueAsString(answer)).isError(false);
        if (screenshot != null) out.addContent(new ImageContent(null, screenshot, "image/png"));
        return out.build();
    }

    private CallToolResult script(Principal caller, McpArgs args) {
        args.allowOnly(Set.of("sandbox_id", "script", "timeout_seconds"));
        Long seconds = args.optionalInteger("timeout_seconds", 1, Duration.ofMinutes(30).toSeconds());
        String id = args.requiredString("sandbox_id");
        ScriptResult r = browser.runScript(caller, id, args.requiredString("script"),
                seconds == null ? null : Duration.ofSeconds(seconds));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("exit_code", r.exitCode());
        out.put("timed_out", r.timedOut());
        out.put("stdout", r.stdout());
        out.put("stderr", r.stderr());
        out.put("files", r.files());
        if (r.error() != null) out.put("error", r.error());
        if (r.failureScreenshot() != null) out.put("failure_screenshot", r.failureScreenshot());
        CallToolResult.Builder result = CallToolResult.builder().addTextContent(McpTools.JSON.writeValueAsString(out)).isError(false);
        if (r.failureScreenshot() != null) {
            // the page as it was when the script failed: what a model needs to fix its selector
            try (var in = host.workspace(caller, id).read(r.failureScreenshot())) {
                result.addContent(new ImageContent(null, Base64.getEncoder().encodeToString(in.readNBytes(8 << 20)), "image/png"));
            } catch (IOException | RuntimeException e) {
                // the text already names the file; it stays readable with read_file
            }
        }
        return result.build();
    }

    private static Set<String> withSandboxId(Set<String> fields) {
        Set<String> all = new HashSet<>(fields);
        all.add("sandbox_id");
        return Set.copyOf(all);
    }
}
