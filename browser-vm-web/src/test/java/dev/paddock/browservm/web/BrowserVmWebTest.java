package dev.paddock.browservm.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.access.ApiKeys;
import dev.paddock.driver.browservm.BrowserVm;
import dev.paddock.driver.browservm.BrowserVmConfig;
import dev.paddock.driver.browservm.BrowserVmDriver;
import dev.paddock.host.HostConfig;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.PaddockServer;
import dev.paddock.server.ServerConfig;
import dev.paddock.store.JdbcStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real server with the browser-vm web module (no tab ever connects): the tab page and its scripts are served at
 * the URLs the console and the tab use, the module's routes are the server's, and the routes that take their own
 * credential refuse what lacks it in the API's error shape.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BrowserVmWebTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** A refused WebSocket upgrade keeps its connection open: the server closes it once it is idle this long. */
    private static final Duration IDLE = Duration.ofSeconds(2);

    private final JdbcStore store;
    private final BrowserVm vm;
    private final BrowserVmDriver driver;
    private final RuntimeHost host;
    private final PaddockServer server;
    private final String adminKey;

    BrowserVmWebTest() throws IOException {
        Path dir = Files.createTempDirectory("paddock-browser-vm-web");
        store = JdbcStore.openSqlite(dir.resolve("paddock.db"));
        vm = new BrowserVm(BrowserVmConfig.defaults(dir.resolve("vm-assets")), Clock.systemUTC());
        driver = new BrowserVmDriver(vm);
        host = new RuntimeHost(HostConfig.defaults(dir).withDefaultDriver(BrowserVmDriver.ID), store, List.of(driver), Clock.systemUTC());
        host.start();
        ApiKeys keys = new ApiKeys(store.apiKeys(), Clock.systemUTC());
        adminKey = keys.create(ApiKeys.DEFAULT_TENANT, "test admin", true).secret();
        server = new PaddockServer(host, keys, ServerConfig.defaults().withPort(0).withIdleTimeout(IDLE), List.of(new BrowserVmWeb(vm)));
        server.start();
    }

    @AfterAll
    void close() {
        server.stop();
        host.close();
        driver.close();
        vm.close();
        store.close();
    }

    @Test
    void theTabPageAndItsScriptsAreServedWhereTheConsoleAndTheTabLoadThem() {
        Answer page = get("/sandbox-tab");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("Content-Type")).startsWith("text/html");
        assertThat(page.header("Cross-Origin-Embedder-Policy")).isEqualTo("require-corp");
        assertThat(page.body()).contains("<script type=\"module\" src=\"/js/tab/main.js\"></script>");
        for (String script : List.of("main.js", "engine.js", "v86-engine.js", "relay.js", "opfs.js")) {
            Answer js = get("/js/tab/" + script);
            assertThat(js.status()).as(script).isEqualTo(200);
            assertThat(js.header("Content-Type")).as(script).contains("javascript");
            assertThat(js.header("X-Frame-Options")).as(script).isEqualTo("DENY");
        }
        assertThat(get("/js/tab/main.js").body()).contains("/v1/runtimes/exchange");
        assertThat(get("/js/tab/none.js").status()).isEqualTo(404);
        assertThat(get("/").status()).as("the console is still served at /").isEqualTo(200);
    }

    @Test
    void theModulesRoutesAreListedWithTheServers() {
        assertThat(server.routes()).contains("POST /v1/runtimes/pairing_codes", "POST /v1/runtimes/exchange", "GET /v1/runtimes/{id}",
                "GET /sandbox-tab", "GET /sandbox-tab/vm/{file}", "WS /v1/runtimes/relay", "POST /v1/sandboxes");
    }

    @Test
    void pairingNeedsAnApiKeyAndTheExchangeTakesTheCodeInstead() {
        assertError(send("POST", "/v1/runtimes/pairing_codes", "", "{\"kind\":\"browser-vm\"}"), 401, "missing_api_key");
        assertThat(send("POST", "/v1/runtimes/pairing_codes", "x-api-key: " + adminKey + "\r\n", "{\"kind\":\"browser-vm\"}").status())
                .isEqualTo(201);
        assertError(send("POST", "/v1/runtimes/exchange", "", "{\"kind\":\"browser-vm\",\"code\":\"nothing\"}"), 0, null);
    }

    @Test
    void relayAndExchangeWithoutCredentialsOrUpgrade() {
        for (String path : new String[] {"/v1/runtimes/relay", "/v1/runtimes/exchange"}) {
            for (String method : new String[] {"GET", "DELETE", "PUT", "PATCH"}) {
                assertError(send(method, path, "", ""), 0, null);
                assertError(send(method, path, "x-api-key: " + adminKey + "\r\n", ""), 0, null);
            }
        }
        assertError(send("GET", "/v1/runtimes/relay?token=rtk_nothing", "", ""), 0, null);
        String upgrade = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
        Answer refused = raw("GET /v1/runtimes/relay?token=prt_nothing HTTP/1.1\r\nHost: 127.0.0.1\r\n" + upgrade + "\r\n");
        assertError(refused, 401, null);
        assertThat(refused.body()).startsWith("{");
        assertError(raw("GET /v1/runtimes/relay HTTP/1.1\r\nHost: 127.0.0.1\r\n" + upgrade + "\r\n"), 0, null);
    }

    /**
     * Each HTTP route of the module (read from the router) with hostile bodies and path segments, with and without a
     * key: no answer is a 5xx other than the server's own state (503 while the VM assets are not built), and every
     * error has a code and nothing of the internals.
     */
    @Test
    void everyRouteOfTheModuleAnswersHostileInputWithoutA5xx() {
        List<String> routes = server.routes().stream()
                .filter(r -> !r.startsWith("WS ") && (r.contains(" /v1/runtimes") || r.contains(" /sandbox-tab"))).toList();
        assertThat(routes).hasSizeGreaterThanOrEqualTo(8);
        List<String> bodies = List.of("", "null", "[]", "{\"kind\":", "{\"kind\":\"browser-vm\",\"code\":null}",
                "{\"kind\":123456789012345678901234567890}", "{\"kind\":\"browser-vm\",\"code\":\"" + "x".repeat(5000) + "\"}");
        List<String> segments = List.of("..%2F..%2Fetc%2Fpasswd", "%00", "rt_" + "a".repeat(300), "%FF", "state.bin.zst");
        List<String> failures = new ArrayList<>();
        for (String route : routes) {
            String method = route.substring(0, route.indexOf(' '));
            String path = route.substring(route.indexOf(' ') + 1);
            List<String> paths = path.contains("{") ? segments.stream().map(x -> path.replaceAll("\\{[^}]+}", x)).toList() : List.of(path);
            for (String p : paths) {
                for (String body : bodies) {
                    for (String key : new String[] {"", "x-api-key: " + adminKey + "\r\n"}) {
                        Answer a = send(method, p, key, body);
                        String problem = a.status() >= 500 && !(a.status() == 503 && a.body().contains("\"code\""))
                                ? "status " + a.status()
                                : a.status() >= 400 && (!a.body().contains("\"code\"") || a.body().contains("Exception") || a.body().contains("\tat "))
                                ? "not the error shape" : null;
                        if (problem != null) failures.add(method + " " + p + " " + body.length() + " bytes -> " + problem + ": " + a.body());
                    }
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    /** The API's error shape with a code and no internals; {@code status} 0 takes any 4xx. */
    private static void assertError(Answer a, int status, String code) {
        if (status == 0) assertThat(a.status()).as(a.head() + "\n\n" + a.body()).isBetween(400, 499);
        else assertThat(a.status()).as(a.head() + "\n\n" + a.body()).isEqualTo(status);
        assertThat(a.header("Content-Type")).as(a.head()).startsWith("application/json");
        JsonNode j = JSON.readTree(a.body());
        assertThat(j.path("type").asString()).as(a.body()).isEqualTo("error");
        assertThat(j.path("error").path("code").asString()).as(a.body()).isNotBlank();
        if (code != null) assertThat(j.path("error").path("code").asString()).isEqualTo(code);
        assertThat(a.body()).doesNotContain("Exception").doesNotContain("\tat ");
    }

    private record Answer(int status, String head, String body) {
        String header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) return line.substring(colon + 1).trim();
            }
            return null;
        }
    }

    private Answer get(String path) {
        return send("GET", path, "", "");
    }

    private Answer send(String method, String path, String headers, String body) {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        String length = b.length > 0 ? "Content-Type: application/json\r\nContent-Length: " + b.length + "\r\n" : "";
        return raw(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + headers + length + "\r\n" + body);
    }

    /** Sends the request as is and reads the answer (identity body) until the server closes, within a deadline. */
    private Answer raw(String request) {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all);
            String text = all.toString(StandardCharsets.UTF_8);
            int split = text.indexOf("\r\n\r\n");
            assertThat(split).as(text).isPositive();
            String head = text.substring(0, split);
            return new Answer(Integer.parseInt(head.split(" ", 3)[1]), head, text.substring(split + 4));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
