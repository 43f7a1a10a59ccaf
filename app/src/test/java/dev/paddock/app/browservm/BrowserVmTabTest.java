package dev.paddock.app.browservm;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import dev.paddock.driver.browservm.BrowserVmConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The browser-vm driver end to end: a real Chromium (Debian's, headless) pairs a sandbox tab through the console,
 * boots the v86 VM from the assets of scripts/build-browser-vm, and serves sandbox ops that come through the REST
 * API and the relay. Timings are printed for a look; none is asserted (the measured numbers belong to bench/).
 */
@Tag("browser")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BrowserVmTabTest {
    @TempDir static Path dataDir;
    static BrowserVmStack stack;
    static Http http;
    static Playwright playwright;
    static Browser browser;
    static BrowserContext context;
    static Page tab;
    static Page console;
    static String sandboxId;
    static final List<String> problems = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        Path assets = Path.of(System.getProperty("paddock.browser-vm.assets", BrowserVmConfig.defaultAssetsDir().toString()));
        if (!Files.isRegularFile(assets.resolve("manifest.json"))) {
            throw new IllegalStateException("browser-vm assets missing in " + assets + "; build them with scripts/build-browser-vm");
        }
        stack = new BrowserVmStack(dataDir, assets);
        http = new Http(stack.url);
        playwright = Playwright.create();
        browser = playwright.chromium().launch(new BrowserType.LaunchOptions()
                .setExecutablePath(Paths.get("/usr/bin/chromium")).setHeadless(true)
                .setArgs(List.of("--no-sandbox", "--disable-gpu", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--no-first-run")));
        context = browser.newContext(new Browser.NewContextOptions().setViewportSize(1280, 900));
        // booting the VM from its saved state takes about a second; a cold boot (no saved state) much longer
        com.microsoft.playwright.assertions.PlaywrightAssertions.setDefaultAssertionTimeout(90_000);
    }

    @AfterAll
    static void stop() {
        if (context != null) context.close();
        if (browser != null) browser.close();
        if (playwright != null) playwright.close();
        if (stack != null) stack.close();
    }

    static void watch(Page p) {
        p.setDefaultTimeout(60_000);
        p.onConsoleMessage(m -> { if (m.type().equals("error")) problems.add(m.text()); });
        p.onPageError(problems::add);
        if (Boolean.getBoolean("paddock.test.echo-browser")) p.onConsoleMessage(m -> System.out.println("[tab] " + m.text()));
    }

    @Test
    @Order(1)
    void pairThroughTheConsoleThenExecAndMoveFiles() throws Exception {
        console = context.newPage();
        watch(console);
        console.navigate(stack.url + "/");
        console.locator("#api-key").fill(stack.tenantAKey);
        console.locator("form.signin-form button[type=submit]").click();
        console.locator("#nav a[data-view='runtimes']").click();
        assertThat(console.locator("#browser-vm-card")).containsText("Browser VM");

        long clicked = System.nanoTime();
        tab = console.waitForPopup(() -> console.locator("#open-sandbox-tab").click());
        watch(tab);
        assertThat(tab.locator("#relay-state")).hasText("online");
        long online = System.nanoTime();
        assertThat(tab.url()).as("the one-time code leaves the address bar").doesNotContain("code=");
        assertThat(tab.evaluate("() => sessionStorage.getItem('paddock.apiKey')")).as("no API key in the tab").isNull();

        // the console lists the runtime, online
        assertThat(console.locator("#runtimes-table")).containsText("online");
        JsonNode runtimes = http.send("GET", "/v1/runtimes", stack.tenantAKey, null).body().path("data");
        assertThat(runtimes.size()).isEqualTo(1);
        assertThat(runtimes.get(0).path("kind").asString()).isEqualTo("browser-vm");
        assertThat(runtimes.get(0).path("status").asString()).isEqualTo("online");
        assertThat(runtimes.get(0).path("last_heartbeat_at").asString()).isNotBlank();

        Http.Answer created = http.send("POST", "/v1/sandboxes", stack.tenantAKey, "{\"driver\":\"browser-vm\"}");
        assertThat(created.status()).as(created.body().toString()).isEqualTo(201);
        sandboxId = created.body().path("id").asString();
        JsonNode limits = created.body().path("limits");
        assertThat(limits.path("memory_bytes").asLong()).as("the VM's memory, not a default it does not have").isEqualTo(128L << 20);
        assertThat(limits.path("cpus").asDouble()).isEqualTo(1.0);
        assertThat(limits.path("pids").asInt()).as("no cgroups in the VM: the kernel's pid_max").isEqualTo(32768);
        Http.Answer hello = exec("[\"/bin/sh\",\"-c\",\"echo hello from $(uname -m); echo oops >&2; exit 3\"]");
        long firstExec = System.nanoTime();
        assertThat(hello.body().path("exit_code").asInt()).isEqualTo(3);
        assertThat(hello.body().path("stdout").asString()).startsWith("hello from i");
        assertThat(hello.body().path("stderr").asString()).isEqualTo("oops\n");
        assertThat(tab.locator("#op-log")).containsText("exec /bin/sh -c echo hello");
        report("tab open -> runtime online (saved state)", ms(clicked, online));
        report("tab open -> sandbox created and first exec done", ms(clicked, firstExec));
        report("VM boot inside the tab", tab.locator("#boot-info").textContent());

        List<Double> trips = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            long t = System.nanoTime();
            assertThat(exec("[\"true\"]").body().path("exit_code").asInt()).isZero();
            trips.add((System.nanoTime() - t) / 1e6);
        }
        Collections.sort(trips);
        report("exec round trip REST -> relay -> VM for `true`, median of 25", String.format("%.1f ms (min %.1f, max %.1f)",
                trips.get(12), trips.get(0), trips.get(24)));

        byte[] data = new byte[1 << 20];
        new Random(42).nextBytes(data);
        long t = System.nanoTime();
        Http.Answer put = http.put(files("data/blob.bin"), stack.tenantAKey, data);
        double putMs = (System.nanoTime() - t) / 1e6;
        assertThat(put.status()).as(put.body().toString()).isBetween(200, 201);
        Http.Answer sum = exec("[\"sha256sum\",\"data/blob.bin\"]");
        assertThat(sum.body().path("stdout").asString()).startsWith(sha256(data));
        t = System.nanoTime();
        Http.Answer got = http.getBytes(files("data/blob.bin"), stack.tenantAKey);
        double getMs = (System.nanoTime() - t) / 1e6;
        assertThat(got.status()).isEqualTo(200);
        assertThat(sha256(got.raw())).isEqualTo(sha256(data));
        report("1 MiB file in (PUT -> tab -> 9p)", String.format("%.0f ms, %.1f MiB/s", putMs, 1000 / putMs));
        report("1 MiB file out (9p -> tab -> GET)", String.format("%.0f ms, %.1f MiB/s", getMs, 1000 / getMs));
        assertThat(problems).as("browser console errors (CSP violations show up here)").isEmpty();
    }

    @Test
    @Order(2)
    void aReloadedTabResumesItsRuntimeAndRestoresTheWorkspace() throws Exception {
        assertThat(tab.locator("#mirror-state")).containsText("saved");
        String runtimeBefore = tab.locator("#runtime-id").textContent();
        tab.reload();
        assertThat(tab.locator("#relay-state")).hasText("online");
        assertThat(tab.locator("#runtime-id")).hasText(runtimeBefore);
        assertThat(tab.locator("#mirror-state")).containsText("restored");

        Http.Answer sum = exec("[\"sha256sum\",\"data/blob.bin\"]");
        assertThat(sum.body().path("exit_code").asInt()).as(sum.body().toString()).isZero();
        byte[] back = http.getBytes(files("data/blob.bin"), stack.tenantAKey).raw();
        byte[] data = new byte[1 << 20];
        new Random(42).nextBytes(data);
        assertThat(sha256(back)).isEqualTo(sha256(data));
        assertThat(sum.body().path("stdout").asString()).startsWith(sha256(data));
    }

    @Test
    @Order(3)
    void pathsOutsideTheWorkspaceAreRefusedInTheTab() throws Exception {
        assertThat(exec("[\"ln\",\"-s\",\"/etc\",\"etc-link\"]").body().path("exit_code").asInt()).isZero();
        for (String path : List.of("etc-link/passwd", "../etc/passwd", "/etc/passwd")) {
            Http.Answer a = http.getBytes(files(path), stack.tenantAKey);
            assertThat(a.status()).as(path).isEqualTo(400);
            assertThat(a.errorCode()).as(path).isEqualTo("path_outside_workspace");
        }
    }

    @Test
    @Order(4)
    void limitsTheVmCannotEnforceAreRefusedAndNothingIsRecorded() throws Exception {
        int before = http.send("GET", "/v1/sandboxes?include_terminated=true", stack.tenantAKey, null).body().path("data").size();
        String[][] cases = {
                {"{\"memory\":\"2g\",\"cpus\":4}", "memory_limit_unavailable", "128 MiB"},
                {"{\"memory\":\"512m\"}", "memory_limit_unavailable", "128 MiB"},
                {"{\"memory\":\"64m\"}", "memory_limit_unavailable", "128 MiB"},
                {"{\"cpus\":4}", "cpus_limit_unavailable", "1 CPU"},
                {"{\"cpus\":0.5}", "cpus_limit_unavailable", "1 CPU"},
                {"{\"pids\":100}", "pids_limit_unavailable", "cannot cap processes"},
        };
        for (String[] c : cases) {
            Http.Answer a = http.send("POST", "/v1/sandboxes", stack.tenantAKey, "{\"driver\":\"browser-vm\",\"limits\":" + c[0] + "}");
            assertThat(a.status()).as(c[0] + " " + a.body()).isEqualTo(400);
            assertThat(a.errorCode()).as(c[0]).isEqualTo(c[1]);
            assertThat(a.errorMessage()).as(c[0]).contains(c[2]);
        }
        assertThat(http.send("GET", "/v1/sandboxes?include_terminated=true", stack.tenantAKey, null).body().path("data").size())
                .as("a refused request leaves no failed sandbox behind").isEqualTo(before);
        // what the VM has passes the check (and then finds the only tab busy)
        Http.Answer same = http.send("POST", "/v1/sandboxes", stack.tenantAKey, "{\"driver\":\"browser-vm\",\"limits\":{\"memory\":\"128m\",\"cpus\":1}}");
        assertThat(same.errorCode()).as(same.body().toString()).isEqualTo("sandbox_tabs_busy");
    }

    @Test
    @Order(5)
    void aClosedTabFailsTheNextOpAndTheRecordSaysTheRuntimeIsGone() throws Exception {
        tab.close();
        long t = System.nanoTime();
        Http.Answer a = exec("[\"true\"]");
        double seconds = (System.nanoTime() - t) / 1e9;
        assertThat(a.status()).isEqualTo(503);
        assertThat(a.errorCode()).isEqualTo("sandbox_tab_gone");
        assertThat(a.errorMessage()).contains("reopen your sandbox tab");
        report("closed tab -> op fails with 'reopen your sandbox tab'", String.format("%.1f s", seconds));
        JsonNode rt = http.send("GET", "/v1/runtimes", stack.tenantAKey, null).body().path("data").get(0);
        assertThat(rt.path("status").asString()).isEqualTo("offline");

        // the sandbox lives on (it comes back with a tab), and its record says its runtime is gone
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode sbx = http.send("GET", "/v1/sandboxes/" + sandboxId, stack.tenantAKey, null).body();
            assertThat(sbx.path("state").asString()).isEqualTo("running");
            assertThat(sbx.path("state_reason").asString()).isEqualTo("runtime_disconnected");
        });
        JsonNode lost = event("sandbox.runtime_lost");
        assertThat(lost).as("an event records the loss").isNotNull();
        assertThat(lost.path("data").path("reason").asString()).isEqualTo("tab_closed");
    }

    @Test
    @Order(6)
    void reopeningTheSandboxTabFromTheConsoleBringsTheSandboxAndItsWorkspaceBack() throws Exception {
        String oldRuntime = http.send("GET", "/v1/runtimes", stack.tenantAKey, null).body().path("data").get(0).path("id").asString();
        tab = console.waitForPopup(() -> console.locator("#open-sandbox-tab").click());
        watch(tab);
        assertThat(tab.locator("#relay-state")).hasText("online");
        assertThat(tab.locator("#sandbox-id")).hasText(sandboxId);
        assertThat(tab.locator("#mirror-state")).containsText("restored");

        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode sbx = http.send("GET", "/v1/sandboxes/" + sandboxId, stack.tenantAKey, null).body();
            assertThat(sbx.path("state").asString()).isEqualTo("running");
            assertThat(sbx.path("state_reason").isNull() || sbx.path("state_reason").isMissingNode()).as(sbx.toString()).isTrue();
        });
        assertThat(event("sandbox.runtime_restored")).isNotNull();
        JsonNode runtimes = http.send("GET", "/v1/runtimes", stack.tenantAKey, null).body().path("data");
        assertThat(runtimes.size()).as("the closed tab's runtime is retired: its token no longer works").isEqualTo(1);
        assertThat(runtimes.get(0).path("id").asString()).isNotEqualTo(oldRuntime);
        assertThat(runtimes.get(0).path("sandbox_id").asString()).isEqualTo(sandboxId);

        byte[] data = new byte[1 << 20];
        new Random(42).nextBytes(data);
        Http.Answer sum = exec("[\"sha256sum\",\"data/blob.bin\"]");
        assertThat(sum.body().path("exit_code").asInt()).as(sum.body().toString()).isZero();
        assertThat(sum.body().path("stdout").asString()).startsWith(sha256(data));
    }

    @Test
    @Order(7)
    void pairingCodesAreSingleUseAndExpire() throws Exception {
        String code = pairingCode(stack.tenantAKey);
        assertThat(exchange(code).status()).isEqualTo(201);
        Http.Answer again = exchange(code);
        assertThat(again.status()).isEqualTo(401);
        assertThat(again.errorCode()).isEqualTo("pairing_code_used");

        String late = pairingCode(stack.tenantAKey);
        stack.clock.advance(Duration.ofMinutes(6));
        Http.Answer expired = exchange(late);
        assertThat(expired.status()).isEqualTo(401);
        assertThat(expired.errorCode()).isEqualTo("pairing_code_expired");

        Http.Answer forged = exchange("ppc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
        assertThat(forged.errorCode()).isEqualTo("pairing_code_invalid");
    }

    @Test
    @Order(8)
    void forgedTokensAndOtherTenantsAreRefused() throws Exception {
        Http.Answer forged = upgrade("prt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
        assertThat(forged.status()).isEqualTo(401);
        assertThat(upgrade("not-a-token").status()).isEqualTo(401);

        String token = exchange(pairingCode(stack.tenantAKey)).body().path("runtime_token").asString();
        assertThat(http.send("GET", "/v1/runtimes", token, null).status()).as("a runtime token is no API key").isEqualTo(401);
        // a tab can ask whether its token still works (a refused WebSocket upgrade tells a page nothing)
        Http.Answer self = http.bearer("GET", "/v1/runtimes/self", token);
        assertThat(self.status()).as(self.body().toString()).isEqualTo(200);
        assertThat(self.body().path("kind").asString()).isEqualTo("browser-vm");
        assertThat(self.body().has("runtime_token")).isFalse();
        for (String bad : new String[] {"prt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "not-a-token", stack.tenantAKey}) {
            Http.Answer refused = http.bearer("GET", "/v1/runtimes/self", bad);
            assertThat(refused.status()).isEqualTo(401);
            assertThat(refused.errorCode()).isEqualTo("invalid_runtime_token");
        }
        assertThat(http.send("GET", "/v1/runtimes/self", null, null).errorCode()).isEqualTo("invalid_runtime_token");

        // tenant A's tab is online; tenant B sees nothing of it and cannot place a sandbox on it
        try (Relay a = Relay.open(stack.url, token)) {
            JsonNode welcome = a.next();
            assertThat(welcome.path("type").asString()).isEqualTo("welcome");
            String runtimeId = welcome.path("runtime_id").asString();
            assertThat(http.send("GET", "/v1/runtimes/" + runtimeId, stack.tenantAKey, null).status()).isEqualTo(200);
            assertThat(http.send("GET", "/v1/runtimes/" + runtimeId, stack.tenantBKey, null).status()).isEqualTo(404);
            assertThat(http.send("GET", "/v1/runtimes", stack.tenantBKey, null).body().path("data").size()).isZero();
            Http.Answer b = http.send("POST", "/v1/sandboxes", stack.tenantBKey, "{\"driver\":\"browser-vm\"}");
            assertThat(b.status()).isEqualTo(503);
            assertThat(b.errorCode()).isEqualTo("no_sandbox_tab");
        }
    }

    @Test
    @Order(9)
    void malformedFramesAreAnsweredAndTheServerCarriesOn() throws Exception {
        String token = exchange(pairingCode(stack.tenantAKey)).body().path("runtime_token").asString();
        try (Relay relay = Relay.open(stack.url, token)) {
            assertThat(relay.next().path("type").asString()).isEqualTo("welcome");
            String[][] cases = {
                    {"this is not json", "malformed_frame"},
                    {"[1,2,3]", "malformed_frame"},
                    {"{\"v\":2,\"type\":\"heartbeat\"}", "unsupported_version"},
                    {"{\"v\":1,\"type\":\"rm -rf\"}", "unknown_frame_type"},
                    {"{\"v\":1,\"type\":\"heartbeat\",\"extra\":1}", "malformed_frame"},
                    {"{\"v\":1,\"type\":\"sandbox.result\",\"request_id\":\"req_0123456789abcdefghjkmnpqrs\",\"ok\":true}", "unknown_request"},
                    {"{\"v\":1,\"type\":\"sandbox.result.chunk\",\"request_id\":\"req_0123456789abcdefghjkmnpqrs\",\"stream\":\"stdout\",\"seq\":0,\"data\":\"%%%\"}", "malformed_frame"},
                    {"{\"v\":1,\"type\":\"hello\",\"engine\":\"v86\",\"vm\":\"ready\",\"sandbox_id\":\"../../etc\"}", "malformed_frame"},
            };
            for (String[] c : cases) {
                relay.send(c[0]);
                JsonNode answer = relay.next();
                assertThat(answer.path("type").asString()).as(c[0]).isEqualTo("error");
                assertThat(answer.path("code").asString()).as(c[0]).isEqualTo(c[1]);
            }
            relay.send("{\"v\":1,\"type\":\"hello\",\"engine\":\"v86\",\"vm\":\"ready\"}");
            relay.send("{\"v\":1,\"type\":\"heartbeat\"}");
            assertThat(http.send("GET", "/v1/health", null, null).status()).isEqualTo(200);
            // frames are handled as they arrive: the hello shows up in the runtime's view shortly
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                JsonNode runtimes = http.send("GET", "/v1/runtimes", stack.tenantAKey, null).body().path("data");
                boolean online = false;
                for (JsonNode r : runtimes) online |= r.path("status").asString().equals("online") && "v86".equals(r.path("engine").asString());
                assertThat(online).as("the runtime that sent garbage is still connected").isTrue();
            });
        }
    }

    /** A cold boot takes 15-40 s here, so it runs only when asked: -Dpaddock.browser-vm.cold-boot=true. */
    @Test
    @Order(20)
    void afterAServerRestartTheTabSaysWhatToDoInsteadOfRetrying() throws Exception {
        assertThat(tab.locator("#relay-state")).hasText("online");
        stack.restart();
        assertThat(tab.locator("#relay-state")).hasText("refused");
        assertThat(tab.locator("#tab-error")).containsText("Open a new sandbox tab from the Paddock console");
        assertThat(tab.evaluate("() => sessionStorage.getItem('paddock.sandboxTab')")).as("the dead token is dropped").isNull();
    }

    @Test
    @Order(10)
    void coldBootWhenNoSavedStateIsUsed() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Boolean.getBoolean("paddock.browser-vm.cold-boot"), "cold boot measurement not requested");
        String code = pairingCode(stack.tenantAKey);
        Page cold = context.newPage();
        watch(cold);
        long t = System.nanoTime();
        cold.navigate(stack.url + "/sandbox-tab?boot=cold#code=" + code);
        assertThat(cold.locator("#relay-state")).hasText("online");
        long online = System.nanoTime();
        assertThat(cold.locator("#boot-info")).containsText("cold boot");
        Http.Answer created = http.send("POST", "/v1/sandboxes", stack.tenantAKey, "{\"driver\":\"browser-vm\"}");
        assertThat(created.status()).as(created.body().toString()).isEqualTo(201);
        Http.Answer r = http.send("POST", "/v1/sandboxes/" + created.body().path("id").asString() + "/exec", stack.tenantAKey, "{\"argv\":[\"true\"]}");
        assertThat(r.body().path("exit_code").asInt()).isZero();
        report("tab open -> runtime online (cold boot)", ms(t, online));
        report("tab open -> first exec done (cold boot)", ms(t, System.nanoTime()));
        cold.close();
    }

    // ---- helpers ------------------------------------------------------------------------------------

    static Http.Answer exec(String argvJson) throws Exception {
        return http.send("POST", "/v1/sandboxes/" + sandboxId + "/exec", stack.tenantAKey, "{\"argv\":" + argvJson + ",\"timeout_seconds\":60}");
    }

    /** The first event of {@code type} of the test's sandbox; null when there is none. */
    static JsonNode event(String type) throws Exception {
        for (JsonNode e : http.send("GET", "/v1/sandboxes/" + sandboxId + "/events?limit=100", stack.tenantAKey, null).body().path("data")) {
            if (e.path("type").asString().equals(type)) return e;
        }
        return null;
    }

    static String files(String path) {
        return "/v1/sandboxes/" + sandboxId + "/files/content?path=" + java.net.URLEncoder.encode(path, java.nio.charset.StandardCharsets.UTF_8);
    }

    static String pairingCode(String key) throws Exception {
        Http.Answer a = http.send("POST", "/v1/runtimes/pairing_codes", key, "{\"kind\":\"browser-vm\"}");
        assertThat(a.status()).as(a.body().toString()).isEqualTo(201);
        return a.body().path("code").asString();
    }

    static Http.Answer exchange(String code) throws Exception {
        return http.send("POST", "/v1/runtimes/exchange", null, "{\"kind\":\"browser-vm\",\"code\":\"" + code + "\"}");
    }

    /** A plain GET to the relay path with upgrade headers is enough to see the server's verdict on a token. */
    static Http.Answer upgrade(String token) throws Exception {
        try {
            HttpClient.newHttpClient().newWebSocketBuilder()
                    .buildAsync(URI.create(stack.url.replace("http:", "ws:") + "/v1/runtimes/relay?token=" + token), new WebSocket.Listener() {})
                    .get(10, TimeUnit.SECONDS).abort();
            return new Http.Answer(101, Http.JSON.createObjectNode(), new byte[0]);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof java.net.http.WebSocketHandshakeException h) {
                return new Http.Answer(h.getResponse().statusCode(), Http.JSON.createObjectNode(), new byte[0]);
            }
            throw e;
        }
    }

    static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    static double ms(long from, long to) {
        return (to - from) / 1e6;
    }

    static void report(String what, Object value) {
        System.out.println("[browser-vm bench] " + what + ": " + (value instanceof Double d ? String.format("%.0f ms", d) : value));
    }

    /** A raw relay client standing in for a hostile tab. */
    static final class Relay implements AutoCloseable, WebSocket.Listener {
        private final LinkedBlockingQueue<String> frames = new LinkedBlockingQueue<>();
        private final StringBuilder partial = new StringBuilder();
        private WebSocket socket;

        static Relay open(String base, String token) throws Exception {
            Relay r = new Relay();
            r.socket = HttpClient.newHttpClient().newWebSocketBuilder()
                    .buildAsync(URI.create(base.replace("http:", "ws:") + "/v1/runtimes/relay?token=" + token), r).get(10, TimeUnit.SECONDS);
            return r;
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                frames.add(partial.toString());
                partial.setLength(0);
            }
            ws.request(1);
            return null;
        }

        void send(String frame) {
            try {
                socket.sendText(frame, true).join();
            } catch (CompletionException e) {
                throw new AssertionError("the server closed the relay", e);
            }
        }

        JsonNode next() throws Exception {
            while (true) {
                String f = frames.poll(10, TimeUnit.SECONDS);
                if (f == null) throw new AssertionError("no frame from the server within 10 s");
                JsonNode n = Http.JSON.readTree(f);
                if (!n.path("type").asString().equals("heartbeat")) return n;
            }
        }

        @Override
        public void close() {
            socket.sendClose(1000, "done").join();
        }
    }
}
