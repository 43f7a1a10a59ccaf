package dev.paddock.app;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.sun.net.httpserver.HttpServer;
import dev.paddock.app.client.ApiException;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The console's sandbox pages, secrets, keys and usage in a real Chromium against a real server with the bubblewrap
 * driver (real cgroups, the real egress proxy): the egress log filling live with an allowed and a refused request,
 * the policy and its credential rule shown by secret id, secrets made and deleted without their value coming back,
 * checkpoints taken, restored and deleted, a background process followed live and signalled, the usage charts, and
 * API keys made, shown once and revoked.
 */
@Tag("browser")
@Tag("bwrap")
class ConsoleSandboxPagesBrowserTest {
    static HttpServer upstream;
    static BwrapServer server;
    static ConsoleChromium chromium;
    static String key;

    @BeforeAll
    static void start() throws Exception {
        upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        upstream.createContext("/", exchange -> {
            byte[] body = "hello from upstream\n".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        upstream.start();
        server = new BwrapServer("console-pages", Map.of("egress_test_loopback_ports", String.valueOf(upstream.getAddress().getPort())));
        key = server.app.createdAdminKey().orElseThrow();
        chromium = new ConsoleChromium();
    }

    @AfterAll
    static void stop() throws Exception {
        if (chromium != null) chromium.close();
        if (server != null) server.close();
        if (upstream != null) upstream.stop(0);
    }

    static JsonNode sh(String id, String command) {
        ObjectNode body = Json.object().put("command", command).put("timeout_seconds", 60);
        return server.api.json("POST", "/v1/sandboxes/" + id + "/exec", Map.of(), body);
    }

    @Test
    void egressLogFillsLiveBesideThePolicyAndSecretsNeverShowTheirValue() {
        String value = "never-shown-" + System.nanoTime();
        ConsoleChromium.Tab tab = chromium.signedIn(server.app.url(), key);
        Page page = tab.page();

        // a secret made in the console: its value leaves the field and never comes back
        page.locator("#nav a[data-view='secrets']").click();
        page.locator("#secret-name").fill("upstream-token");
        page.locator("#secret-value").fill(value);
        page.locator("#create-secret").click();
        Locator row = page.locator("#secrets-table tr[data-name='upstream-token']");
        assertThat(row).isVisible();
        assertThat(page.locator("#secret-value")).hasValue("");
        String secretId = row.getAttribute("data-id");
        assertThat(secretId).startsWith("sec_");
        page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/console-secrets.png")).setFullPage(true));

        int port = upstream.getAddress().getPort();
        ObjectNode body = Json.object();
        body.putObject("network").put("type", "limited").putArray("allowed_hosts").add("localhost:" + port);
        body.putArray("credentials").addObject().put("secret_id", secretId).put("header", "Authorization")
                .put("template", "Bearer {secret}").put("env", "UPSTREAM_TOKEN").putArray("hosts").add("api.example.com");
        String id = server.api.json("POST", "/v1/sandboxes", Map.of(), body).path("id").asString();

        page.navigate(server.app.url() + "/#/sandboxes/" + id + "/network");
        assertThat(page.locator("#egress-stream-state")).hasText("● live");
        assertThat(page.locator("#network-mode")).hasText("limited");
        assertThat(page.locator("#allowed-hosts")).containsText("localhost:" + port);
        assertThat(page.locator("#credential-rules")).containsText(secretId);
        assertThat(page.locator("#credential-rules")).containsText("Authorization: Bearer {secret}");
        assertThat(page.locator("#egress-empty")).isVisible();

        // requests made while the page is open appear without a reload
        sh(id, "env -u NO_PROXY -u no_proxy curl -sS --max-time 20 http://localhost:" + port + "/hello; curl -sS --max-time 20 -o /dev/null http://blocked.invalid/nope; true");
        Locator allowed = page.locator("#egress-table tr[data-decision='allowed']");
        Locator refused = page.locator("#egress-table tr.refused");
        assertThat(allowed).containsText("GET");
        assertThat(allowed).containsText("/hello");
        assertThat(allowed).containsText("200");
        assertThat(refused).containsText("blocked.invalid");
        assertThat(refused).containsText("host_not_allowed");
        assertThat(page.locator("#egress-counts")).hasText("2 connections, 1 refused");
        page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/console-network.png")).setFullPage(true));

        page.locator("#egress-filter").fill("blocked");
        assertThat(allowed).isHidden();
        assertThat(refused).isVisible();
        page.locator("#egress-filter").fill("");
        assertThat(allowed).isVisible();
        page.locator("#egress-refused-only").check();
        assertThat(allowed).isHidden();
        assertThat(refused).isVisible();
        assertThat(page.content()).doesNotContain(value);

        // deleted from the console, gone from the API
        page.locator("#nav a[data-view='secrets']").click();
        page.locator("#secrets-table button[data-delete='" + secretId + "']").click();
        assertThat(page.locator("#secrets-table tr[data-id='" + secretId + "']")).hasCount(0);
        assertThat(server.api.get("/v1/secrets").path("data").valueStream().map(s -> s.path("id").asString())).doesNotContain(secretId);
        assertThat(page.content()).doesNotContain(value);
        assertThat(tab.problems()).as("browser console errors (CSP violations show up here)").isEmpty();
        page.close();
    }

    @Test
    void checkpointsAreTakenRestoredAndDeletedAndAProcessLogIsFollowedAndSignalled() {
        String id = server.api.json("POST", "/v1/sandboxes", Map.of(), Json.object()).path("id").asString();
        sh(id, "echo one > note.txt");
        ConsoleChromium.Tab tab = chromium.signedIn(server.app.url(), key);
        Page page = tab.page();
        page.navigate(server.app.url() + "/#/sandboxes/" + id);
        page.locator("#sandbox-tabs a[data-tab='checkpoints']").click();
        page.locator("#create-checkpoint").click();
        Locator rows = page.locator("#checkpoints-table tbody tr");
        assertThat(rows).hasCount(1);
        assertThat(rows).containsText("workspace_tar");
        page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/console-checkpoints.png")).setFullPage(true));
        String cp = rows.getAttribute("data-id");

        sh(id, "echo two > note.txt");
        page.locator("#checkpoints-table button[data-restore='" + cp + "']").click();
        assertThat(page.locator("#toast")).containsText("Restored " + cp);
        assertThat(sh(id, "cat note.txt").path("stdout").asString()).isEqualTo("one\n");
        page.locator("#checkpoints-table button[data-delete='" + cp + "']").click();
        assertThat(rows).hasCount(0);
        assertThat(server.api.get("/v1/sandboxes/" + id + "/checkpoints").path("data").size()).isZero();

        // a background process: its log grows on the page while it runs, then a signal ends it
        page.locator("#sandbox-tabs a[data-tab='processes']").click();
        page.locator("#process-command").fill("for i in 1 2 3; do echo tick $i; sleep 1; done; sleep 300");
        page.locator("#start-process").click();
        assertThat(page.locator("#process-log")).containsText("tick 1");
        assertThat(page.locator("#process-log")).containsText("tick 3");
        Locator proc = page.locator("#processes-table tbody tr").first();
        assertThat(proc).containsText("running");
        page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/console-processes.png")).setFullPage(true));
        page.locator("#signal-name").selectOption("KILL");
        page.locator("#send-signal").click();
        assertThat(proc).containsText("exit");
        assertThat(page.locator("#log-note")).containsText("this is the whole log");
        assertThat(tab.problems()).as("browser console errors (CSP violations show up here)").isEmpty();
        page.close();
    }

    @Test
    void usageChartsTenantUsageAndKeysShownOnceThenRevoked() {
        String id = server.api.json("POST", "/v1/sandboxes", Map.of(), Json.object()).path("id").asString();
        ConsoleChromium.Tab tab = chromium.signedIn(server.app.url(), key);
        Page page = tab.page();
        page.navigate(server.app.url() + "/#/sandboxes/" + id);
        // bubblewrap's cgroups measure all three: each chart gets points as samples come in
        assertThat(page.locator("#chart-memory")).hasAttribute("data-points", java.util.regex.Pattern.compile("[2-9]|\\d\\d+"));
        assertThat(page.locator("#chart-pids")).hasAttribute("data-points", java.util.regex.Pattern.compile("[2-9]|\\d\\d+"));
        assertThat(page.locator("#chart-cpu")).hasAttribute("data-points", java.util.regex.Pattern.compile("[1-9]\\d*"));
        assertThat(page.locator("#chart-memory-value")).not().hasText("—");
        assertThat(page.locator("#chart-memory polyline")).hasAttribute("points", java.util.regex.Pattern.compile("\\d.*,.*\\d"));
        page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/console-sandbox-usage.png")).setFullPage(true));

        page.locator("#nav a[data-view='usage']").click();
        int live = server.api.get("/v1/usage").path("sandboxes").path("live").asInt();
        assertThat(page.locator("#usage-live .stat-value")).hasText(String.valueOf(live));
        assertThat(page.locator("#usage-live")).containsText("running");
        assertThat(page.locator("#usage-storage")).containsText("of 50 GiB"); // the default tenant_storage_quota
        page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/console-usage.png")).setFullPage(true));

        page.locator("#nav a[data-view='keys']").click();
        page.locator("#key-name").fill("ci-runner");
        page.locator("#create-key").click();
        String made = page.locator("#created-key-secret").textContent();
        assertThat(made).startsWith("pdk_");
        PaddockClient withNewKey = new PaddockClient(server.app.url(), made);
        assertThat(withNewKey.get("/v1/sandboxes").has("data")).isTrue();
        Locator keyRow = page.locator("#keys-table tr", new Page.LocatorOptions().setHasText("ci-runner"));
        assertThat(keyRow).hasCount(1);
        page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/console-keys.png")).setFullPage(true));
        page.locator("#dismiss-key").click();
        assertThat(page.locator("#created-key-secret")).hasCount(0);
        assertThat(page.content()).as("shown once").doesNotContain(made);
        assertThat(page.locator("#keys-table")).containsText("this session's key");

        keyRow.locator("button[data-revoke]").click();
        assertThat(keyRow).hasCount(0);
        assertThatThrownBy(() -> withNewKey.get("/v1/sandboxes")).isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(401));
        assertThat(tab.problems()).as("browser console errors (CSP violations show up here)").isEmpty();
        page.close();
    }
}
