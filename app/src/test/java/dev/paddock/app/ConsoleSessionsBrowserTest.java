package dev.paddock.app;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.agents.testing.ScriptedModel.Reply;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.serve.PaddockApp;
import dev.paddock.app.serve.ServeSettings;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * The console's agent pages in a real Chromium against a real server (subprocess driver) whose agent loop talks to
 * a scripted Messages API on loopback: the sessions list, and a session's timeline filling live as the console
 * sends a message, with tool calls, folded long output, an interrupt, and hostile model and tool output shown as
 * text only.
 */
@Tag("browser")
class ConsoleSessionsBrowserTest {
    /** Markup the model and a tool answer with; the console must show it as text and run none of it. */
    static final String HOSTILE_TEXT = "<img src=x onerror=\"window.__pwned = 'img'\"> <script>window.__pwned = 'script'</script> "
            + "[click me](javascript:window.__pwned='link') <a href=\"javascript:window.__pwned='a'\">link</a>";
    static final String HOSTILE_COMMAND = "echo '<img src=y onerror=window.__pwned=1><script>window.__pwned=2</script>'; seq 1 200";

    @TempDir static Path dataDir;
    static ScriptedModel model;
    static PaddockApp app;
    static ConsoleChromium chromium;

    @BeforeAll
    static void start() throws Exception {
        model = new ScriptedModel((results, call) -> switch (call) {
            case 1 -> Reply.message(List.of(ScriptedModel.text(HOSTILE_TEXT),
                    ScriptedModel.toolUse("toolu_1", "bash", Map.of("command", HOSTILE_COMMAND))));
            case 2 -> Reply.message(List.of(ScriptedModel.text("First turn done.")));
            case 3 -> Reply.message(List.of(ScriptedModel.text("too late to matter"))).after(Duration.ofSeconds(60));
            default -> Reply.message(List.of(ScriptedModel.text("Answer to the follow-up.")));
        });
        app = PaddockApp.start(ServeSettings.resolve(Map.of("data_dir", dataDir.toString(), "port", "0", "driver", "subprocess",
                "model_base_url", model.baseUrl(), "model_api_key", "test-model-key"), Map.of(), null, dataDir));
        chromium = new ConsoleChromium();
    }

    @AfterAll
    static void stop() {
        if (chromium != null) chromium.close();
        if (app != null) app.close();
        if (model != null) model.close();
    }

    @Test
    void aSessionsTimelineFollowsLiveShowsToolCallsFoldsLongOutputAndRunsNoMarkup() throws Exception {
        String key = java.nio.file.Files.readString(dataDir.resolve("admin.key")).trim();
        PaddockClient api = new PaddockClient(app.url(), key);
        String agentId = AgentSessions.toolsetAgent(api);
        ObjectNode env = Json.object().put("name", "console-env");
        env.putObject("config").put("type", "cloud");
        String envId = api.json("POST", "/v1/environments", Map.of(), env).path("id").asString();
        ObjectNode body = Json.object().put("agent", agentId).put("environment_id", envId);
        String sessionId = api.json("POST", "/v1/sessions", Map.of(), body).path("id").asString();

        ConsoleChromium.Tab tab = chromium.signedIn(app.url(), key);
        Page page = tab.page();
        page.locator("#nav a[data-view='sessions']").click();
        assertThat(page.locator("#sessions-table tr[data-id='" + sessionId + "']")).containsText("idle");
        assertThat(page.locator("#agents-table tr[data-id='" + agentId + "']")).containsText("test-agent");
        assertThat(page.locator("#environments-table tr[data-id='" + envId + "']")).containsText("console-env");
        page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/console-sessions.png")).setFullPage(true));
        page.locator("#sessions-table a[href='#/sessions/" + sessionId + "']").click();
        assertThat(page.locator("#stream-state")).hasText("● live");

        // the message goes from the console; everything the turn writes arrives over the stream
        page.locator("#session-message").fill("go <b>now</b>");
        page.locator("#send-message").click();
        Locator timeline = page.locator("#timeline");
        assertThat(timeline.locator("li[data-type='user.message']")).containsText("go <b>now</b>");
        assertThat(timeline.locator("li[data-type='agent.tool_use']")).containsText("Tool call · bash");
        assertThat(timeline.locator("li[data-type='agent.tool_use']")).containsText("seq 1 200");
        Locator output = timeline.locator("li[data-type='agent.tool_result']");
        assertThat(output).containsText("Tool output · bash");
        assertThat(timeline.locator("li[data-type='agent.message']").last()).containsText("First turn done.");
        assertThat(page.locator("#session-status")).hasText("idle");
        assertThat(page.locator("#session-usage dd[data-usage='Input tokens']")).not().hasText("0");

        // 200 lines of output are folded behind their first lines, and open on a click
        Locator fold = output.locator("details.fold");
        assertThat(fold).hasCount(1);
        assertThat(fold).not().hasAttribute("open", "");
        assertThat(fold.locator("summary")).containsText("lines");
        fold.locator("summary").click();
        assertThat(fold.locator("pre")).containsText("\n200");

        // hostile text from the model and from the tool is on the page as text, and none of it ran or became a link
        assertThat(timeline.locator("li[data-type='agent.message']").first()).containsText("<img src=x onerror=");
        assertThat(timeline.locator("li[data-type='agent.message']").first()).containsText("<script>window.__pwned = 'script'</script>");
        assertThat(output).containsText("<img src=y onerror=window.__pwned=1>");
        assertThat(timeline.locator("img")).hasCount(0);
        assertThat(timeline.locator("script")).hasCount(0);
        assertThat(page.locator("a[href^='javascript']")).hasCount(0);
        assertThat(timeline.locator("a")).hasCount(0);
        assertThat(page.evaluate("() => window.__pwned === undefined")).isEqualTo(true);
        page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/console-session.png")).setFullPage(true));

        // a slow turn is interrupted from the console: the interrupt and the turn's end show up
        page.locator("#session-message").fill("take your time");
        page.locator("#send-message").click();
        assertThat(page.locator("#session-status")).hasText("running");
        assertThat(page.locator("#interrupt-session")).isEnabled();
        page.locator("#interrupt-session").click();
        assertThat(timeline.locator("li[data-type='user.interrupt']")).containsText("Interrupted");
        assertThat(page.locator("#session-status")).hasText("idle");
        assertThat(timeline).not().containsText("too late to matter");

        // the page picks up after a reload where the log left off, and the next turn still streams in
        page.reload();
        assertThat(page.locator("#stream-state")).hasText("● live");
        page.locator("#session-message").fill("and now?");
        page.locator("#send-message").click();
        assertThat(timeline.locator("li[data-type='agent.message']").last()).containsText("Answer to the follow-up.");
        assertThat(timeline.locator("li[data-type='user.interrupt']")).hasCount(1);
        List<String> ids = timeline.locator("li[data-id]").all().stream().map(l -> l.getAttribute("data-id")).filter(s -> !s.isEmpty()).toList();
        assertThat(ids).as("no event shown twice").doesNotHaveDuplicates();
        assertThat(tab.problems()).as("browser console errors (CSP violations show up here)").isEmpty();
        page.close();
    }
}
