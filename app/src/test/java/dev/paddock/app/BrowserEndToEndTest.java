package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.serve.PaddockApp;
import dev.paddock.app.serve.ServeSettings;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Browser sandboxes with real parts: Chromium and playwright-core inside real bwrap sandboxes whose only way out is
 * the egress proxy, driven over the REST API; pages are served by this test on the host's loopback (reachable only
 * through the test switch {@code egress_test_loopback_ports}). Needs Debian chromium + nodejs and
 * {@code scripts/install-browser}.
 */
@Tag("bwrap")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BrowserEndToEndTest {
    static final String FORM = "<html><head><title>Form</title></head><body><h1>Order</h1>"
            + "<label>Name <input id=name aria-label=Name oninput=\"document.getElementById('echo').textContent='Hello '+this.value\"></label>"
            + "<button onclick=\"document.title='clicked'\">Go</button><p id=echo></p>"
            + "<a id=csv href=/report.csv download=report.csv>Export</a></body></html>";
    final CountDownLatch never = new CountDownLatch(1);
    HttpServer pages;
    Path dataDir;
    PaddockApp app;
    PaddockClient api;
    ServeSettings settings;
    String key;
    int port;

    @BeforeAll
    void start() throws Exception {
        pages = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        pages.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        pages.createContext("/form", x -> reply(x, "text/html", FORM, Map.of()));
        pages.createContext("/report.csv", x -> reply(x, "text/csv", "id,total\n1,42\n", Map.of("Content-Disposition", "attachment; filename=report.csv")));
        pages.createContext("/setcookie", x -> reply(x, "text/html", "<title>set</title>", Map.of("Set-Cookie", "session=alpha; Path=/")));
        pages.createContext("/showcookie", x -> {
            String c = x.getRequestHeaders().getFirst("Cookie");
            reply(x, "text/html", "<title>cookie:" + (c == null ? "none" : c) + "</title>", Map.of());
        });
        pages.createContext("/framed", x -> reply(x, "text/html", "<title>Outer</title><iframe src=/form width=800 height=400></iframe>", Map.of()));
        pages.createContext("/never", x -> { try { never.await(); } catch (InterruptedException ignored) { } });
        pages.start();
        port = pages.getAddress().getPort();
        dataDir = Files.createTempDirectory(Path.of("/tmp"), "pb");
        settings = ServeSettings.resolve(Map.of("data_dir", dataDir.toString(), "port", "0", "driver", "bwrap",
                "egress_test_loopback_ports", Integer.toString(port), "sweep_interval", "1s"), Map.of(), null, dataDir);
        app = PaddockApp.start(settings);
        key = app.createdAdminKey().orElseThrow();
        api = new PaddockClient(app.url(), key);
    }

    @AfterAll
    void stop() throws Exception {
        try {
            for (var s : api.get("/v1/sandboxes", Map.of("limit", 1000)).path("data")) {
                api.call("DELETE", "/v1/sandboxes/" + s.path("id").asString(), Map.of(), null);
            }
        } finally {
            never.countDown();
            app.close();
            pages.stop(0);
            BwrapServer.removeDataDir(dataDir);
        }
    }

    @Test
    void scriptFillsAFormScreenshotsAndDownloadsACsvReadBackThroughTheFilesApi() {
        String id = browserSandbox();
        String script = """
                import { chromium } from 'playwright';
                const browser = await chromium.launch();
                const page = await browser.newPage({ acceptDownloads: true });
                await page.goto('http://127.0.0.1:%d/form');
                await page.fill('#name', 'Ada');
                await page.screenshot({ path: 'form.png' });
                const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#csv')]);
                await dl.saveAs('out/report.csv');
                console.log(await page.textContent('#echo'));
                await browser.close();
                """.formatted(port);
        JsonNode r = api.json("POST", "/v1/sandboxes/" + id + "/browser/script", Map.of(), obj().put("script", script).put("timeout_seconds", 120));
        assertThat(r.path("exit_code").asInt()).as(r.toString()).isZero();
        assertThat(r.path("stdout").asString()).isEqualTo("Hello Ada\n");
        assertThat(StreamSupport.stream(r.path("files").spliterator(), false).map(JsonNode::asString)).contains("form.png", "out/report.csv");
        byte[] csv = api.call("GET", "/v1/sandboxes/" + id + "/files/content", Map.of("path", "out/report.csv"), null);
        assertThat(new String(csv, StandardCharsets.UTF_8)).isEqualTo("id,total\n1,42\n");
        byte[] png = api.call("GET", "/v1/sandboxes/" + id + "/files/content", Map.of("path", "form.png"), null);
        assertThat(png).startsWith(0x89, 'P', 'N', 'G');

        // a failing script returns the error and the last page's screenshot
        String broken = "import { chromium } from 'playwright';\nconst b = await chromium.launch();\nconst p = await b.newPage();\n"
                + "await p.goto('http://127.0.0.1:" + port + "/form');\nawait p.click('#missing', { timeout: 1000 });\n";
        JsonNode f = api.json("POST", "/v1/sandboxes/" + id + "/browser/script", Map.of(), obj().put("script", broken));
        assertThat(f.path("exit_code").asInt()).as(f.toString()).isNotZero();
        assertThat(f.path("error").asString()).contains("#missing");
        assertThat(api.call("GET", "/v1/sandboxes/" + id + "/files/content", Map.of("path", f.path("failure_screenshot").asString()), null)).startsWith(0x89, 'P', 'N', 'G');
    }

    @Test
    void cliCreatesABrowserSandboxAndRunsAScriptFileWithItsExitCode() throws Exception {
        Cli cli = new Cli(Map.of("PADDOCK_URL", app.url(), "PADDOCK_API_KEY", key), dataDir);
        Cli.Result created = cli.run("sandbox", "create", "--json", "--browser", "--network", "limited", "--allow-host", "127.0.0.1:" + port);
        assertThat(created.code()).as(created.toString()).isZero();
        String id = PaddockClient.parse(created.rawOut()).path("id").asString();
        Path task = Files.createTempFile(dataDir, "task", ".mjs");
        Files.writeString(task, "import { chromium } from 'playwright';\nconst b = await chromium.launch();\nconst p = await b.newPage();\n"
                + "await p.goto('http://127.0.0.1:" + port + "/form');\nconsole.log(await p.title());\nawait b.close();\nprocess.exitCode = 4;\n");
        Cli.Result run = cli.run("browser", "script", id, task.toString(), "--timeout", "2m");
        assertThat(run.out()).as(run.toString()).isEqualTo("Form\n");
        assertThat(run.code()).as(run.toString()).isEqualTo(4);
    }

    @Test
    void stepModeSnapshotClickByRefTypeAndScreenshot() {
        long t0 = System.nanoTime();
        String id = browserSandbox();
        long createdMs = (System.nanoTime() - t0) / 1_000_000;
        JsonNode nav = act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/form").put("include_screenshot", true));
        System.out.printf("browser: create %d ms; create -> first screenshot %d ms%n", createdMs, (System.nanoTime() - t0) / 1_000_000);
        assertThat(nav.path("ok").asBoolean()).as(nav.toString()).isTrue();
        assertThat(nav.path("title").asString()).isEqualTo("Form");
        assertThat(Base64.getDecoder().decode(nav.path("screenshot").asString())).startsWith(0x89, 'P', 'N', 'G');
        String snap = act(id, obj().put("action", "snapshot")).path("snapshot").asString();
        String button = ref(snap, "button \"Go\"");
        String box = ref(snap, "textbox \"Name\"");
        long s0 = System.nanoTime();
        JsonNode click = act(id, obj().put("action", "click").put("ref", button).put("include_snapshot", true));
        System.out.printf("browser: click + snapshot %d ms%n", (System.nanoTime() - s0) / 1_000_000);
        assertThat(click.path("title").asString()).isEqualTo("clicked");
        JsonNode typed = act(id, obj().put("action", "type").put("ref", box).put("text", "Grace").put("include_snapshot", true));
        assertThat(typed.path("snapshot").asString()).contains("Hello Grace");
        JsonNode shot = act(id, obj().put("action", "screenshot").put("full_page", true));
        assertThat(Base64.getDecoder().decode(shot.path("screenshot").asString())).startsWith(0x89, 'P', 'N', 'G');
        // evaluate is refused unless the sandbox allows it
        assertThatThrownBy(() -> act(id, obj().put("action", "evaluate").put("expression", "1"))).hasMessageContaining("allow_evaluate");

        // suspend between steps keeps the page state
        api.json("POST", "/v1/sandboxes/" + id + "/suspend", Map.of(), null);
        assertThat(api.get("/v1/sandboxes/" + id).path("state").asString()).isEqualTo("suspended");
        api.json("POST", "/v1/sandboxes/" + id + "/resume", Map.of(), null);
        JsonNode after = act(id, obj().put("action", "snapshot"));
        assertThat(after.path("snapshot").asString()).contains("Hello Grace");
        assertThat(after.path("title").asString()).isEqualTo("clicked");
        System.out.printf("browser: idle sandbox memory %s%n", memoryOf(id));
    }

    @Test
    void deletingABrowserSandboxLeavesNothingOfItsTaskOnTheHostUnlessAskedToKeepIt() throws Exception {
        String id = browserSandbox();
        act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/form"));
        act(id, obj().put("action", "click").put("selector", "#csv"));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).until(() ->
                api.get("/v1/sandboxes/" + id + "/files/list", Map.of("path", "downloads")).path("data").size() == 1);
        api.call("DELETE", "/v1/sandboxes/" + id, Map.of(), null);
        // purged: the download, the workspace and outputs, their directory and disk image are gone from the host's disk
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> api.get("/v1/sandboxes/" + id + "/files/list", Map.of("path", "/workspace")))
                .isInstanceOfSatisfying(dev.paddock.app.client.ApiException.class, e -> assertThat(e.code()).isEqualTo("workspace_gone"));
        assertThat(dataDir.resolve("sandboxes").resolve(id)).as("nothing of the task left on the host's disk").doesNotExist();
        assertThat(dataDir.resolve("disks").resolve(id + ".img")).doesNotExist();

        String kept = browserSandbox();
        act(kept, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/form"));
        act(kept, obj().put("action", "screenshot"));
        api.json("POST", "/v1/sandboxes/" + kept + "/browser/script", Map.of(), obj().put("script", "import { writeFileSync } from 'node:fs';\nwriteFileSync('evidence.txt', 'kept');\n"));
        api.call("DELETE", "/v1/sandboxes/" + kept, Map.of("purge", false), null);
        assertThat(new String(api.call("GET", "/v1/sandboxes/" + kept + "/files/content", Map.of("path", "evidence.txt"), null), StandardCharsets.UTF_8)).isEqualTo("kept");
        // a plain sandbox keeps its workspace unless purged
        String plain = api.json("POST", "/v1/sandboxes", Map.of(), obj()).path("id").asString();
        api.json("POST", "/v1/sandboxes/" + plain + "/exec", Map.of(), obj().put("command", "echo data > f.txt"));
        api.call("DELETE", "/v1/sandboxes/" + plain, Map.of("purge", true), null);
        // purged: its disk image and directory are gone, so there is no workspace left to list
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> api.get("/v1/sandboxes/" + plain + "/files/list", Map.of("path", "/workspace")))
                .isInstanceOfSatisfying(dev.paddock.app.client.ApiException.class, e -> assertThat(e.code()).isEqualTo("workspace_gone"));
    }

    @Test
    void elementsInsideAFrameAreReachedByTheirSnapshotReference() {
        String id = browserSandbox();
        act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/framed"));
        String snap = act(id, obj().put("action", "snapshot")).path("snapshot").asString();
        String box = ref(snap, "textbox \"Name\"");
        assertThat(box).as(snap).matches("f[0-9]+e[0-9]+");
        JsonNode typed = act(id, obj().put("action", "type").put("ref", box).put("text", "Framed").put("include_snapshot", true));
        assertThat(typed.path("ok").asBoolean()).as(typed.toString()).isTrue();
        assertThat(typed.path("snapshot").asString()).contains("Hello Framed");
    }

    @Test
    void theScreencastStreamsFramesOfTheActiveTabAndFollowsItsPages() throws Exception {
        String id = browserSandbox();
        act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/form"));
        var request = java.net.http.HttpRequest.newBuilder(java.net.URI.create(app.url() + "/v1/sandboxes/" + id + "/browser/screencast?quality=40"))
                .header("x-api-key", key).header("Accept", "text/event-stream").build();
        var response = java.net.http.HttpClient.newHttpClient().send(request, java.net.http.HttpResponse.BodyHandlers.ofLines());
        assertThat(response.statusCode()).isEqualTo(200);
        var lines = response.body().iterator();
        JsonNode first = nextEvent(lines, "frame");
        assertThat(Base64.getDecoder().decode(first.path("frame").asString())).startsWith(0xFF, 0xD8, 0xFF);
        assertThat(first.path("title").asString()).isEqualTo("Form");
        // the cast follows what the page does: a navigation repaints and a new title comes with the next events
        act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/framed"));
        JsonNode later;
        do {
            later = nextEvent(lines, null);
        } while (!later.path("title").asString().equals("Outer"));
        assertThat(later.path("url").asString()).endsWith("/framed");
        response.body().close();

        // bad input is refused before anything streams
        assertThatThrownBy(() -> api.get("/v1/sandboxes/" + id + "/browser/screencast", Map.of("quality", 100))).hasMessageContaining("quality");
        String plain = api.json("POST", "/v1/sandboxes", Map.of(), obj()).path("id").asString();
        assertThatThrownBy(() -> api.get("/v1/sandboxes/" + plain + "/browser/screencast")).hasMessageContaining("not created as a browser sandbox");
        // the browser stays usable after its viewer left
        assertThat(act(id, obj().put("action", "snapshot")).path("snapshot").asString()).contains("textbox \"Name\"");
    }

    /** The data of the next SSE event named {@code name} (any frame or page event when null). */
    private static JsonNode nextEvent(java.util.Iterator<String> lines, String name) {
        String event = null;
        while (lines.hasNext()) {
            String line = lines.next();
            if (line.startsWith("event: ")) event = line.substring(7);
            else if (line.startsWith("data: ") && (name == null ? !"end".equals(event) : name.equals(event))) {
                return PaddockClient.parse(line.substring(6).getBytes(StandardCharsets.UTF_8));
            }
        }
        throw new AssertionError("the stream ended before a " + (name == null ? "frame or page" : name) + " event");
    }

    @Test
    void anMcpClientDrivesABrowserSandboxAndSeesItsPages() {
        var transport = io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport.builder(app.url()).endpoint("/mcp")
                .httpRequestCustomizer((b, method, uri, body, ctx) -> b.header("x-api-key", key)).build();
        try (var client = io.modelcontextprotocol.client.McpClient.sync(transport).requestTimeout(java.time.Duration.ofSeconds(90)).build()) {
            client.initialize();
            var created = mcp(client, "create_browser_sandbox", Map.of("allowed_hosts", java.util.List.of("127.0.0.1:" + port)));
            String id = PaddockClient.parse(mcpText(created).getBytes(StandardCharsets.UTF_8)).path("id").asString();

            var nav = mcp(client, "browser_action", Map.of("sandbox_id", id, "action", "navigate", "url", "http://127.0.0.1:" + port + "/form",
                    "include_screenshot", true));
            assertThat(mcpText(nav)).contains("\"title\":\"Form\"").doesNotContain("screenshot");
            var image = (io.modelcontextprotocol.spec.McpSchema.ImageContent) nav.content().get(1);
            assertThat(image.mimeType()).isEqualTo("image/png");
            assertThat(Base64.getDecoder().decode(image.data())).startsWith(0x89, 'P', 'N', 'G');

            String snap = PaddockClient.parse(mcpText(mcp(client, "browser_action", Map.of("sandbox_id", id, "action", "snapshot")))
                    .getBytes(StandardCharsets.UTF_8)).path("snapshot").asString();
            var clicked = mcp(client, "browser_action", Map.of("sandbox_id", id, "action", "click", "ref", ref(snap, "button \"Go\"")));
            assertThat(mcpText(clicked)).contains("\"title\":\"clicked\"");

            // a failing script: the error as text and the page it failed on as an image, for the model to fix its selector
            var failed = mcp(client, "browser_script", Map.of("sandbox_id", id, "script", "import { chromium } from 'playwright';\n"
                    + "const b = await chromium.launch();\nconst p = await b.newPage();\nawait p.goto('http://127.0.0.1:" + port + "/form');\n"
                    + "await p.click('#missing', { timeout: 1000 });\n"));
            assertThat(mcpText(failed)).contains("#missing").contains("failure_screenshot");
            assertThat(failed.content()).hasSize(2);

            // bad input is a tool error that names the field
            var bad = client.callTool(new io.modelcontextprotocol.spec.McpSchema.CallToolRequest("browser_action",
                    Map.of("sandbox_id", id, "action", "click", "ref", "e1'],xpath=//a")));
            assertThat(bad.isError()).isTrue();
            assertThat(mcpText(bad)).contains("\"ref\" must be a reference from a snapshot");
            var unknown = client.callTool(new io.modelcontextprotocol.spec.McpSchema.CallToolRequest("browser_action",
                    Map.of("sandbox_id", id, "action", "navigate", "link", "x")));
            assertThat(mcpText(unknown)).contains("unknown argument 'link'");

            // deleting it over MCP leaves nothing of the task behind, like over REST
            assertThat(api.get("/v1/sandboxes/" + id + "/files/list", Map.of("path", "/workspace")).path("data")).isNotEmpty();
            mcp(client, "delete_sandbox", Map.of("sandbox_id", id));
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> api.get("/v1/sandboxes/" + id + "/files/list", Map.of("path", "/workspace")))
                    .isInstanceOfSatisfying(dev.paddock.app.client.ApiException.class, e -> assertThat(e.code()).isEqualTo("workspace_gone"));
        }
    }

    private static io.modelcontextprotocol.spec.McpSchema.CallToolResult mcp(io.modelcontextprotocol.client.McpSyncClient client, String tool, Map<String, Object> args) {
        var r = client.callTool(new io.modelcontextprotocol.spec.McpSchema.CallToolRequest(tool, args));
        assertThat(r.isError()).as(mcpText(r)).isFalse();
        return r;
    }

    private static String mcpText(io.modelcontextprotocol.spec.McpSchema.CallToolResult r) {
        return ((io.modelcontextprotocol.spec.McpSchema.TextContent) r.content().getFirst()).text();
    }

    @Test
    void theConsoleLiveViewShowsTheSandboxPageWithItsTitle() throws Exception {
        String id = browserSandbox();
        JsonNode nav = act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/form"));
        assertThat(nav.path("title").asString()).as(nav.toString()).isEqualTo("Form");
        JsonNode frame = act(id, obj().put("action", "frame").put("quality", 50));
        assertThat(Base64.getDecoder().decode(frame.path("frame").asString())).startsWith(0xFF, 0xD8, 0xFF);

        try (var playwright = com.microsoft.playwright.Playwright.create();
             var chromium = playwright.chromium().launch(new com.microsoft.playwright.BrowserType.LaunchOptions()
                     .setExecutablePath(Path.of("/usr/bin/chromium")).setHeadless(true)
                     .setArgs(java.util.List.of("--no-sandbox", "--disable-gpu", "--no-first-run")))) {
            var page = chromium.newPage();
            page.setDefaultTimeout(30_000);
            java.util.List<String> problems = new java.util.concurrent.CopyOnWriteArrayList<>();
            page.onConsoleMessage(m -> { if (m.type().equals("error")) problems.add(m.text()); });
            page.onPageError(problems::add);
            page.navigate(app.url() + "/");
            page.locator("#api-key").fill(key);
            page.locator("form.signin-form button[type=submit]").click();
            page.locator("#sandboxes-table").waitFor();
            page.navigate(app.url() + "/#/sandboxes/" + id);
            page.locator("#open-live-view").click();
            var title = page.locator("#live-title");
            com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat(title).hasText("Form");
            com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat(page.locator("#live-url")).hasText("http://127.0.0.1:" + port + "/form");
            page.waitForFunction("() => { const i = document.getElementById('live-frame'); return i.complete && i.naturalWidth > 0; }");
            Object size = page.evaluate("() => { const i = document.getElementById('live-frame'); return [i.naturalWidth, i.naturalHeight, i.src.slice(0, 5)]; }");
            assertThat(size).asString().isEqualTo("[1280, 800, blob:]");
            // the view follows the page: a click in the sandbox shows up as the new title
            act(id, obj().put("action", "click").put("text", "Go"));
            com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat(title).hasText("clicked");
            page.screenshot(new com.microsoft.playwright.Page.ScreenshotOptions().setPath(Path.of("target/console-live.png")));
            assertThat(problems).as("browser console errors (CSP violations show up here)").isEmpty();
        }
    }

    @Test
    void anIdleBrowserSandboxIsFrozenAndTheNextActionResumesItWhereItWas() {
        ObjectNode body = obj().put("template", "browser");
        body.putObject("idle").put("suspend_after_seconds", 2);
        body.putObject("network").put("type", "limited").putArray("allowed_hosts").add("127.0.0.1:" + port);
        String id = api.json("POST", "/v1/sandboxes", Map.of(), body).path("id").asString();
        act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/form"));
        act(id, obj().put("action", "type").put("selector", "#name").put("text", "Idle"));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                .until(() -> api.get("/v1/sandboxes/" + id).path("state").asString().equals("suspended"));
        JsonNode after = act(id, obj().put("action", "snapshot"));
        assertThat(after.path("snapshot").asString()).contains("Hello Idle");
        assertThat(api.get("/v1/sandboxes/" + id).path("state").asString()).isEqualTo("running");

        // a script that runs longer than the idle time is not frozen under its own feet
        JsonNode slow = api.json("POST", "/v1/sandboxes/" + id + "/browser/script", Map.of(),
                obj().put("script", "await new Promise(r => setTimeout(r, 6000));\nconsole.log('done');\n").put("timeout_seconds", 40));
        assertThat(slow.path("stdout").asString()).as(slow.toString()).isEqualTo("done\n");
        assertThat(slow.path("timed_out").asBoolean()).isFalse();
    }

    @Test
    void aRestartedHostAdoptsTheRunningBrowserAndItsPage() {
        String id = browserSandbox();
        act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/form"));
        act(id, obj().put("action", "type").put("selector", "#name").put("text", "Again"));
        app.close();
        app = PaddockApp.start(settings);
        api = new PaddockClient(app.url(), key);
        assertThat(act(id, obj().put("action", "snapshot")).path("snapshot").asString()).contains("Hello Again");
    }

    @Test
    void blockedHostAndPrivateAddressFailAndAreAudited() {
        String id = browserSandbox();
        for (String url : new String[] {"http://10.0.0.1/x", "http://127.0.0.2:" + port + "/form", "http://169.254.169.254/latest/meta-data/"}) {
            JsonNode r = act(id, obj().put("action", "navigate").put("url", url).put("timeout_ms", 15000));
            assertThat(r.path("title").asString()).as(url + " " + r).isNotEqualTo("Form");
            assertThat(r.toString()).as(url).doesNotContain("ami-id");
            assertThat(r.path("ok").asBoolean()).as(url + " " + r).isFalse();
            assertThat(r.path("code").asString()).as(url + " " + r).isEqualTo("navigation_refused");
        }
        JsonNode log = api.get("/v1/sandboxes/" + id + "/egress", Map.of("limit", 1000));
        assertThat(StreamSupport.stream(log.path("data").spliterator(), false).map(e -> e.path("host").asString() + " " + e.path("decision").asString()))
                .contains("10.0.0.1 denied", "127.0.0.2 denied", "169.254.169.254 denied");
    }

    @Test
    void aNavigationTheEgressPolicyRefusesIsAnErrorWithItsHostAndTheNextNavigationWorks() {
        String id = browserSandbox();
        act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/form"));
        // plain http: the proxy answers the refusal itself; it must not come back as a page that loaded fine
        JsonNode http = act(id, obj().put("action", "navigate").put("url", "http://refused.example/x"));
        assertThat(http.path("ok").asBoolean()).as(http.toString()).isFalse();
        assertThat(http.path("code").asString()).isEqualTo("navigation_refused");
        assertThat(http.path("host").asString()).isEqualTo("refused.example");
        assertThat(http.path("error").asString()).contains("refused", "refused.example");
        // https: Chromium sees a failed tunnel; the answer is the same, and the tab is ready for the next navigation
        for (int i = 0; i < 3; i++) {
            JsonNode https = act(id, obj().put("action", "navigate").put("url", "https://refused.example/" + i));
            assertThat(https.path("ok").asBoolean()).as(https.toString()).isFalse();
            assertThat(https.path("code").asString()).as(https.toString()).isEqualTo("navigation_refused");
            assertThat(https.path("host").asString()).isEqualTo("refused.example");
            JsonNode next = act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/form"));
            assertThat(next.path("ok").asBoolean()).as(next.toString()).isTrue();
            assertThat(next.path("title").asString()).isEqualTo("Form");
        }
    }

    @Test
    void theEgressAuditLogHoldsOnlyWhatThePagesAskedForAndTheProfileStaysOutOfTheWorkspace() throws Exception {
        String id = browserSandbox();
        act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/form"));
        act(id, obj().put("action", "type").put("selector", "#name").put("text", "Ada")); // a form: autofill would ask home
        act(id, obj().put("action", "click").put("text", "Go"));
        act(id, obj().put("action", "screenshot"));
        JsonNode run = api.json("POST", "/v1/sandboxes/" + id + "/browser/script", Map.of(), obj().put("script",
                "import { chromium } from 'playwright';\nconst b = await chromium.launch();\nconst p = await b.newPage();\n"
                        + "await p.goto('http://127.0.0.1:" + port + "/form');\nawait p.fill('#name', 'x');\nawait b.close();\n"));
        assertThat(run.path("exit_code").asInt()).as(run.toString()).isZero();
        assertThat(run.path("files")).as("script mode lists only what the script made").isEmpty();
        Thread.sleep(3000); // Chromium's background requests come in the first seconds after its start
        JsonNode log = api.get("/v1/sandboxes/" + id + "/egress", Map.of("limit", 1000));
        assertThat(StreamSupport.stream(log.path("data").spliterator(), false).map(e -> e.path("host").asString()))
                .as(log.toString()).isNotEmpty().containsOnly("127.0.0.1");
        JsonNode top = api.get("/v1/sandboxes/" + id + "/files/list", Map.of("path", "/workspace"));
        assertThat(StreamSupport.stream(top.path("data").spliterator(), false).map(e -> e.path("name").asString()))
                .as("Chromium's home is in the sandbox's tmpfs").doesNotContain(".config", ".cache", ".pki", ".local");
    }

    @Test
    void aLiveViewEndsAtTheLengthAskedFor() throws Exception {
        String id = browserSandbox();
        act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/form"));
        var request = java.net.http.HttpRequest.newBuilder(java.net.URI.create(app.url() + "/v1/sandboxes/" + id + "/browser/screencast?seconds=2"))
                .header("x-api-key", key).header("Accept", "text/event-stream").build();
        long t0 = System.nanoTime();
        var response = java.net.http.HttpClient.newHttpClient().send(request, java.net.http.HttpResponse.BodyHandlers.ofLines());
        var lines = response.body().iterator();
        nextEvent(lines, null); // the page's url and title come at once, a frame with the next repaint
        nextEvent(lines, "end");
        long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
        assertThat(seconds).as("a 2 s live view, the wait for the agent included, ends within a small margin").isLessThan(6);
    }

    @Test
    void aPageThatNeverLoadsHitsTheTimeoutAndTheSandboxStaysUsable() throws Exception {
        String id = browserSandbox();
        Thread.sleep(4000); // the model thinks; the browser starts in the background meanwhile
        long t0 = System.nanoTime();
        act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/form").put("include_screenshot", true));
        System.out.printf("browser: first navigate + screenshot of a prewarmed browser %d ms%n", (System.nanoTime() - t0) / 1_000_000);
        JsonNode r = act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/never").put("timeout_ms", 2000));
        assertThat(r.path("ok").asBoolean()).isFalse();
        assertThat(r.path("error").asString()).containsIgnoringCase("timeout");
        JsonNode ok = act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/form"));
        assertThat(ok.path("title").asString()).isEqualTo("Form");
    }

    @Test
    void twoBrowserSandboxesDoNotShareCookies() throws Exception {
        String a = browserSandbox();
        ObjectNode withEvaluate = obj().put("template", "browser");
        withEvaluate.putObject("browser").put("allow_evaluate", true);
        withEvaluate.putObject("network").put("type", "limited").putArray("allowed_hosts").add("127.0.0.1:" + port);
        String b = api.json("POST", "/v1/sandboxes", Map.of(), withEvaluate).path("id").asString();
        act(a, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/setcookie"));
        assertThat(act(a, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/showcookie")).path("title").asString()).isEqualTo("cookie:session=alpha");
        assertThat(act(b, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/showcookie")).path("title").asString()).isEqualTo("cookie:none");
        try (var files = Files.walk(dataDir)) {
            assertThat(files.map(f -> f.getFileName().toString())).as("the profile lives in the sandbox's tmpfs, not on the host")
                    .doesNotContain("Cookies", "Local State");
        }
        // a short-lived cookie for one task goes into this sandbox's profile only
        ObjectNode upload = obj().put("action", "set_cookies");
        upload.putArray("cookies").addObject().put("name", "task").put("value", "t1").put("url", "http://127.0.0.1:" + port);
        act(b, upload);
        assertThat(act(b, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/showcookie")).path("title").asString()).isEqualTo("cookie:task=t1");
        assertThat(act(a, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/showcookie")).path("title").asString()).isEqualTo("cookie:session=alpha");
        JsonNode cookies = act(b, obj().put("action", "evaluate").put("expression", "document.cookie + '|' + location.pathname"));
        assertThat(cookies.path("value").asString()).isEqualTo("\"task=t1|/showcookie\"");
    }

    private String browserSandbox() {
        ObjectNode body = obj().put("template", "browser");
        body.putObject("network").put("type", "limited").putArray("allowed_hosts").add("127.0.0.1:" + port);
        return api.json("POST", "/v1/sandboxes", Map.of(), body).path("id").asString();
    }

    private JsonNode act(String id, ObjectNode action) {
        return api.json("POST", "/v1/sandboxes/" + id + "/browser/actions", Map.of(), action);
    }

    private static String ref(String snapshot, String element) {
        for (String line : snapshot.split("\n")) {
            int at = line.indexOf("[ref=");
            if (line.contains(element) && at >= 0) return line.substring(at + 5, line.indexOf(']', at));
        }
        throw new AssertionError(element + " not in snapshot:\n" + snapshot);
    }

    private String memoryOf(String id) {
        try (var s = Files.find(Path.of("/sys/fs/cgroup/memory"), 4, (p, a) -> p.getFileName().toString().contains(id))) {
            Path dir = s.findFirst().orElse(null);
            if (dir == null) return "unknown";
            Map<String, Long> stat = new java.util.HashMap<>();
            for (String line : Files.readAllLines(dir.resolve("memory.stat"))) {
                String[] kv = line.split(" ");
                stat.put(kv[0], Long.parseLong(kv[1]));
            }
            return "usage " + (Long.parseLong(Files.readString(dir.resolve("memory.usage_in_bytes")).trim()) >> 20) + " MiB (rss "
                    + (stat.getOrDefault("total_rss", 0L) >> 20) + " MiB, cache incl. tmpfs " + (stat.getOrDefault("total_cache", 0L) >> 20) + " MiB)";
        } catch (Exception e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    static void reply(com.sun.net.httpserver.HttpExchange x, String type, String body, Map<String, String> headers) throws java.io.IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", type);
        headers.forEach((k, v) -> x.getResponseHeaders().set(k, v));
        x.sendResponseHeaders(200, b.length);
        try (var o = x.getResponseBody()) { o.write(b); }
    }

    private static ObjectNode obj() {
        return Json.object();
    }
}
