package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.paddock.app.serve.PaddockApp;
import dev.paddock.core.Ids;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One gate for every tenant: tenant A owns one of each resource, and an admin key of tenant B walks every route the
 * server has (read from its router, so a new route is walked too) naming A's ids, and every MCP tool that takes a
 * sandbox. Each must answer 404 and leave A's resources as they were. A route with no path parameter must be listed
 * below with why it names no tenant resource; one that is not fails this test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TenantGateTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static final Pattern PARAM = Pattern.compile("\\{([a-z_]+)}");

    /** Routes without an id: collections (listed per tenant, checked below), creates, and tenant-free endpoints. */
    private static final Map<String, String> NO_TENANT_ID = Map.ofEntries(
            Map.entry("GET /v1/health", "public"),
            Map.entry("GET /v1/health/ready", "public"),
            Map.entry("GET /metrics", "aggregate counts only"),
            Map.entry("GET /v1/openapi.json", "the API's description, the same for every server"),
            Map.entry("GET /v1/drivers", "the server's drivers, the same for every tenant"),
            Map.entry("GET /v1/nodes", "the cluster's servers: the operator's key only"),
            Map.entry("GET /v1/nodes/{id}", "a server of the cluster, no tenant's: the operator's key only"),
            Map.entry("POST /v1/nodes/{id}/drain", "a server of the cluster, no tenant's: the operator's key only"),
            Map.entry("POST /v1/nodes/{id}/activate", "a server of the cluster, no tenant's: the operator's key only"),
            Map.entry("GET /v1/images", "the shared image catalog"),
            Map.entry("GET /v1/images/{name}", "the shared image catalog"),
            Map.entry("DELETE /v1/images/{name}", "the shared image catalog: the operator's key only"),
            Map.entry("GET /sandbox-tab", "a static page"),
            Map.entry("GET /sandbox-tab/vm/{file}", "the tab's static VM assets"),
            Map.entry("POST /v1/runtimes/exchange", "a pairing code is its own credential, bound to its tenant"),
            Map.entry("WS /v1/runtimes/relay", "a runtime token is its own credential, bound to its tenant"),
            Map.entry("GET /v1/runtimes/relay", "without the WebSocket upgrade: a 400 that names no resource"),
            Map.entry("GET /v1/runtimes/self", "the tab's own runtime, found by its token, which is bound to its tenant"),
            Map.entry("POST /v1/runtimes/pairing_codes", "creates the caller's own"),
            Map.entry("GET /v1/runtimes", "collection"),
            Map.entry("POST /v1/sandboxes", "creates the caller's own (credentials naming another tenant's secret: checked below)"),
            Map.entry("GET /v1/sandboxes", "collection"),
            Map.entry("POST /v1/secrets", "creates the caller's own"),
            Map.entry("GET /v1/secrets", "collection"),
            Map.entry("POST /v1/api_keys", "creates in the caller's own tenant (AuthTest)"),
            Map.entry("GET /v1/api_keys", "collection"),
            Map.entry("POST /v1/agents", "creates the caller's own"),
            Map.entry("GET /v1/agents", "collection"),
            Map.entry("POST /v1/environments", "creates the caller's own"),
            Map.entry("GET /v1/environments", "collection"),
            Map.entry("POST /v1/sessions", "creates the caller's own (naming another tenant's agent: checked below)"),
            Map.entry("GET /v1/sessions", "collection"),
            Map.entry("POST /v1/skills", "creates the caller's own"),
            Map.entry("GET /v1/skills", "collection"),
            Map.entry("POST /v1/files", "creates the caller's own"),
            Map.entry("GET /v1/files", "collection"),
            Map.entry("POST /v1/snapshots", "snapshots the caller's own sandbox (naming another tenant's: checked below)"),
            Map.entry("GET /v1/snapshots", "collection"),
            Map.entry("POST /v1/vaults", "creates the caller's own"),
            Map.entry("GET /v1/vaults", "collection"),
            Map.entry("GET /v1/usage", "the caller's own tenant's figures (SystemRoutesTest: another tenant's are not counted)"),
            Map.entry("WS /v1/sandboxes/{id}/pty/{pty_id}/attach", "a single-use attach token is its own credential, bound to its terminal"),
            Map.entry("GET /v1/sandboxes/{id}/pty/{pty_id}/attach", "without the WebSocket upgrade: a 400 that names no resource"),
            Map.entry("WS /v1/sandboxes/{id}/ports/{port}/t/{token}", "a port token is its own credential, bound to its port"),
            Map.entry("WS /v1/sandboxes/{id}/ports/{port}/t/{token}/<path>", "a port token is its own credential, bound to its port"));

    private Path dataDir;
    private PaddockApp app;
    private final Map<String, String> a = new LinkedHashMap<>(); // tenant A's resources, by path parameter
    private String keyA;
    private String keyB;

    @BeforeAll
    void setUp() throws Exception {
        dataDir = java.nio.file.Files.createTempDirectory("paddock-tenant-gate");
        // a model URL that nothing answers: sessions can be made; no agent loop is needed here
        app = PaddockApp.start(dev.paddock.app.serve.ServeSettings.resolve(Map.of("data_dir", dataDir.toString(), "port", "0",
                "driver", "subprocess", "model_base_url", "http://127.0.0.1:9"), Map.of(), null, dataDir));
        String operator = app.createdAdminKey().orElseThrow();
        keyA = send(operator, "POST", "/v1/api_keys", "{\"name\":\"a\",\"tenant_id\":\"tenant-a\",\"admin\":true}").path("key").asString();
        keyB = send(operator, "POST", "/v1/api_keys", "{\"name\":\"b\",\"tenant_id\":\"tenant-b\",\"admin\":true}").path("key").asString();

        String sbx = send(keyA, "POST", "/v1/sandboxes", "{}").path("id").asString();
        a.put("sandbox", sbx);
        call(keyA, "PUT", "/v1/sandboxes/" + sbx + "/files/content?path=secret.txt", "a's secret");
        a.put("pid", send(keyA, "POST", "/v1/sandboxes/" + sbx + "/processes", "{\"argv\":[\"sleep\",\"300\"]}").path("pid").asString());
        a.put("cp", send(keyA, "POST", "/v1/sandboxes/" + sbx + "/checkpoints", "").path("id").asString());
        a.put("name", send(keyA, "POST", "/v1/snapshots", "{\"sandbox_id\":\"" + sbx + "\",\"name\":\"a-snapshot\"}").path("name").asString());
        a.put("secret", send(keyA, "POST", "/v1/secrets", "{\"name\":\"tok\",\"value\":\"a-secret-value\"}").path("id").asString());
        a.put("key", send(keyA, "POST", "/v1/api_keys", "{\"name\":\"a2\"}").path("id").asString());
        call(keyA, "POST", "/v1/runtimes/pairing_codes", "{\"kind\":\"browser-vm\"}");
        String code = send(keyA, "POST", "/v1/runtimes/pairing_codes", "{\"kind\":\"browser-vm\"}").path("code").asString();
        a.put("runtime", send(null, "POST", "/v1/runtimes/exchange", "{\"kind\":\"browser-vm\",\"code\":\"" + code + "\"}").path("runtime_id").asString());

        a.put("agent_id", send(keyA, "POST", "/v1/agents", "{\"name\":\"ag\",\"model\":\"m\",\"tools\":[{\"type\":\"agent_toolset_20260401\"}]}").path("id").asString());
        a.put("environment_id", send(keyA, "POST", "/v1/environments", "{\"name\":\"env-a\",\"config\":{\"type\":\"self_hosted\"}}").path("id").asString());
        a.put("key_id", send(keyA, "POST", "/v1/environments/" + a.get("environment_id") + "/keys", "{}").path("id").asString());
        a.put("session_id", send(keyA, "POST", "/v1/sessions", "{\"agent\":\"" + a.get("agent_id") + "\",\"environment_id\":\""
                + a.get("environment_id") + "\"}").path("id").asString());
        send(keyA, "POST", "/v1/sessions/" + a.get("session_id") + "/events",
                "{\"events\":[{\"type\":\"user.message\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}]}");
        JsonNode work = send(keyA, "GET", "/v1/environments/" + a.get("environment_id") + "/work", null).path("data");
        assertThat(work.size()).as("a user message queues work for the self-hosted environment").isPositive();
        a.put("work_id", work.get(0).path("id").asString());
        JsonNode skill = JSON.readTree(upload(keyA, "/v1/skills", "files", "a-notes/SKILL.md", "---\nname: a-notes\ndescription: A's notes.\n---\n").body());
        a.put("skill_id", skill.path("id").asString());
        a.put("version", skill.path("latest_version_id").asString());
        a.put("file_id", JSON.readTree(upload(keyA, "/v1/files", "file", "a-notes.txt", "a's secret").body()).path("id").asString());
        String cloud = send(keyA, "POST", "/v1/environments", "{\"name\":\"env-cloud-a\",\"config\":{\"type\":\"cloud\"}}").path("id").asString();
        JsonNode withFile = send(keyA, "POST", "/v1/sessions", "{\"agent\":\"" + a.get("agent_id") + "\",\"environment_id\":\"" + cloud
                + "\",\"resources\":[{\"type\":\"file\",\"file_id\":\"" + a.get("file_id") + "\",\"mount_path\":\"/workspace/a-notes.txt\"}]}");
        a.put("resource_id", withFile.path("resources").path(0).path("id").asString());
        a.put("vault_id", send(keyA, "POST", "/v1/vaults", "{\"display_name\":\"a-vault\"}").path("id").asString());
        a.put("credential_id", send(keyA, "POST", "/v1/vaults/" + a.get("vault_id") + "/credentials",
                "{\"auth\":{\"type\":\"static_bearer\",\"token\":\"a-secret-value\",\"mcp_server_url\":\"https://mcp.example.com/mcp\"}}")
                .path("id").asString());
        // the subprocess driver has neither terminals nor forwarded ports: ids of the right shape stand in for A's
        a.put("pty_id", dev.paddock.core.Ids.newId("pty"));
        a.put("port", "8000");
        a.put("token", "prt_made-up");
        a.values().forEach(v -> assertThat(v).as("every resource of A was made: %s", a).isNotBlank());
    }

    @AfterAll
    void tearDown() {
        if (app != null) {
            call(keyA, "DELETE", "/v1/sandboxes/" + a.get("sandbox") + "?purge=true", null);
            app.close();
        }
    }

    @Test
    void everyRouteNamingAnotherTenantsResourceAnswers404() {
        List<String> routes = app.routes();
        assertThat(routes).as("the router lists the routes").hasSizeGreaterThan(40);
        List<String> unclassified = new ArrayList<>();
        int walked = 0;
        for (String route : routes) {
            String method = route.substring(0, route.indexOf(' '));
            String template = route.substring(route.indexOf(' ') + 1);
            if (NO_TENANT_ID.containsKey(route)) continue;
            if (template.contains("/t/{token}")) {
                // a port's token URL: the token is the credential; another's sandbox with a made-up token is refused
                assertThat(call(keyB, method, fill(template), body(method, template)).statusCode()).as(route).isEqualTo(401);
                walked++;
                continue;
            }
            if (!PARAM.matcher(template).find()) {
                unclassified.add(route);
                continue;
            }
            String path = fill(template);
            HttpResponse<String> r = call(keyB, method, path + query(template), body(method, template));
            assertThat(r.statusCode()).as("%s as tenant B: %s", route, r.body()).isEqualTo(404);
            assertThat(r.body()).as(route).doesNotContain("a's secret").doesNotContain("a-secret-value");
            walked++;
        }
        if (!unclassified.isEmpty()) {
            fail("routes without a path id are not in NO_TENANT_ID (say why they name no tenant resource): " + unclassified);
        }
        assertThat(walked).isGreaterThan(40);
        assertUntouched();
    }

    @Test
    void collectionsShowNothingOfAnotherTenant() {
        for (String route : NO_TENANT_ID.keySet()) {
            if (!NO_TENANT_ID.get(route).equals("collection")) continue;
            String path = route.substring(route.indexOf(' ') + 1);
            HttpResponse<String> r = call(keyB, "GET", path, null);
            assertThat(r.statusCode()).as(route).isEqualTo(200);
            for (String id : a.values()) assertThat(r.body()).as("%s as tenant B", route).doesNotContain(id);
        }
    }

    @Test
    void bodiesNamingAnotherTenantsResourcesAreRefused() {
        HttpResponse<String> session = call(keyB, "POST", "/v1/sessions",
                "{\"agent\":\"" + a.get("agent_id") + "\",\"environment_id\":\"" + a.get("environment_id") + "\"}");
        assertThat(session.statusCode()).as(session.body()).isEqualTo(404);
        HttpResponse<String> sandbox = call(keyB, "POST", "/v1/sandboxes", "{\"network\":{\"mode\":\"unrestricted\"},\"credentials\":[{\"secret_id\":\""
                + a.get("secret") + "\",\"hosts\":[\"example.com\"],\"header\":\"Authorization\",\"value\":\"Bearer {secret}\"}]}");
        assertThat(sandbox.statusCode()).as(sandbox.body()).isIn(400, 404);
        assertThat(sandbox.body()).doesNotContain("a-secret-value");
        HttpResponse<String> snapshot = call(keyB, "POST", "/v1/snapshots", "{\"sandbox_id\":\"" + a.get("sandbox") + "\",\"name\":\"b-takes-a\"}");
        assertThat(snapshot.statusCode()).as("snapshotting A's sandbox: %s", snapshot.body()).isEqualTo(404);
        HttpResponse<String> fromSnapshot = call(keyB, "POST", "/v1/sandboxes", "{\"from_snapshot\":\"" + a.get("name") + "\"}");
        assertThat(fromSnapshot.statusCode()).as("starting from A's snapshot: %s", fromSnapshot.body()).isEqualTo(404);
        HttpResponse<String> restore = call(keyB, "POST", "/v1/sandboxes/" + mine() + "/checkpoints/" + a.get("cp") + "/restore", "");
        assertThat(restore.statusCode()).as("restoring A's checkpoint into B's own sandbox: %s", restore.body()).isEqualTo(404);
        assertUntouched();
    }

    @Test
    void everyMcpToolThatTakesASandboxAnswersNotFound() {
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder(app.url()).endpoint("/mcp")
                .httpRequestCustomizer((b, method, uri, body, ctx) -> b.header("Authorization", "Bearer " + keyB)).build();
        try (McpSyncClient mcp = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30)).build()) {
            mcp.initialize();
            int walked = 0;
            for (Tool tool : mcp.listTools().tools()) {
                Map<?, ?> props = (Map<?, ?>) tool.inputSchema().get("properties");
                if (props == null || !props.containsKey("sandbox_id")) {
                    assertThat(tool.name()).as("tools without a sandbox_id create or list the caller's own")
                            .isIn("create_sandbox", "list_sandboxes", "create_browser_sandbox");
                    continue;
                }
                Map<String, Object> args = new LinkedHashMap<>();
                for (Object required : (List<?>) tool.inputSchema().getOrDefault("required", List.of())) {
                    args.put((String) required, plausible((String) required));
                }
                if (props.containsKey("command")) args.put("command", plausible("command"));
                args.put("sandbox_id", a.get("sandbox"));
                CallToolResult r = mcp.callTool(new CallToolRequest(tool.name(), args));
                String text = r.content().stream().filter(c -> c instanceof TextContent).map(c -> ((TextContent) c).text())
                        .reduce("", String::concat);
                assertThat(r.isError()).as("%s as tenant B: %s", tool.name(), text).isTrue();
                assertThat(text).as(tool.name()).containsPattern("(?i)not found|does not exist").doesNotContain("a's secret");
                walked++;
            }
            assertThat(walked).isGreaterThan(8);
            CallToolResult list = mcp.callTool(new CallToolRequest("list_sandboxes", Map.of()));
            assertThat(list.content().toString()).doesNotContain(a.get("sandbox"));
        }
        assertUntouched();
    }

    /**
     * Another tenant's id is no different from one that does not exist: for every route, tenant B naming A's resources
     * gets the same status, error code and message (ids aside) as naming made-up ids of the same shape, so neither
     * the code nor the wording tells B which ids exist.
     */
    @Test
    void anotherTenantsIdAnswersExactlyAsAMissingOne() {
        Map<String, String> missing = new LinkedHashMap<>();
        a.forEach((param, id) -> missing.put(param, madeUp(param, id)));
        List<String> differ = new ArrayList<>();
        for (String route : app.routes()) {
            String method = route.substring(0, route.indexOf(' '));
            String template = route.substring(route.indexOf(' ') + 1);
            if (NO_TENANT_ID.containsKey(route) || !PARAM.matcher(template).find() || method.equals("WS")) continue;
            HttpResponse<String> foreign = call(keyB, method, fill(template, a) + query(template), body(method, template));
            HttpResponse<String> absent = call(keyB, method, fill(template, missing) + query(template), body(method, template));
            String f = shape(foreign, a, missing), m = shape(absent, a, missing);
            if (!f.equals(m)) differ.add(route + "\n   foreign: " + f + "\n   missing: " + m);
        }
        assertThat(differ).as("routes where another tenant's id answers otherwise than a missing one").isEmpty();
        assertUntouched();
    }

    /** An id of the same shape as {@code id} that names nothing. */
    private static String madeUp(String param, String id) {
        return switch (param) {
            case "pid" -> "4194000";
            case "port" -> "8001";
            case "token" -> "prt_made-up-too";
            case "name" -> "no-such-snapshot";
            case "version" -> id.contains("_") ? Ids.newId(id.substring(0, id.lastIndexOf('_'))) : "999999";
            default -> id.contains("_") ? Ids.newId(id.substring(0, id.lastIndexOf('_'))) : id + "-missing";
        };
    }

    /** What a client can tell from an answer: status, content type, and the body with every id in it masked. */
    private static String shape(HttpResponse<String> r, Map<String, String> ids, Map<String, String> others) {
        String body = r.body();
        for (Map<String, String> m : List.of(ids, others)) {
            for (String v : m.values()) if (v.length() > 3) body = body.replace(v, "<id>");
        }
        return r.statusCode() + " " + r.headers().firstValue("Content-Type").orElse("") + " " + body;
    }

    /** A's things are as A left them: nothing B did reached them. */
    private void assertUntouched() {
        String sbx = a.get("sandbox");
        assertThat(send(keyA, "GET", "/v1/sandboxes/" + sbx, null).path("state").asString()).isEqualTo("running");
        assertThat(call(keyA, "GET", "/v1/sandboxes/" + sbx + "/files/content?path=secret.txt", null).body()).isEqualTo("a's secret");
        assertThat(send(keyA, "GET", "/v1/sandboxes/" + sbx + "/processes", null).toString()).contains(a.get("pid"));
        assertThat(call(keyA, "GET", "/v1/secrets/" + a.get("secret"), null).statusCode()).isEqualTo(200);
        assertThat(call(keyA, "GET", "/v1/sessions/" + a.get("session_id"), null).statusCode()).isEqualTo(200);
        assertThat(send(keyA, "GET", "/v1/api_keys", null).toString()).contains(a.get("key"));
        assertThat(call(keyA, "GET", "/v1/runtimes/" + a.get("runtime"), null).statusCode()).isEqualTo(200);
    }

    private String mine;

    /** A sandbox of tenant B's own. */
    private String mine() {
        if (mine == null) mine = send(keyB, "POST", "/v1/sandboxes", "{}").path("id").asString();
        return mine;
    }

    private String fill(String template) {
        return fill(template, a);
    }

    private String fill(String template, Map<String, String> a) {
        Matcher m = PARAM.matcher(template);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = switch (m.group(1)) {
                case "id" -> a.get(template.startsWith("/v1/sandboxes") ? "sandbox"
                        : template.startsWith("/v1/secrets") ? "secret"
                        : template.startsWith("/v1/runtimes") ? "runtime"
                        : template.startsWith("/v1/api_keys") ? "key" : "unknown id prefix in " + template);
                default -> a.get(m.group(1));
            };
            if (value == null) fail("no resource of tenant A for {" + m.group(1) + "} in " + template);
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString().replace("<path>", "x"); // a forwarded port's path inside
    }

    /** Query parameters some routes require, so that only the tenant gate can refuse them. */
    private static String query(String template) {
        if (template.contains("/files") || template.contains("/outputs")) return "?path=secret.txt";
        if (template.endsWith("/screencast")) return "?seconds=1";
        return "";
    }

    /** A well-formed body for each kind of route, so that validation is not what refuses it. */
    private String body(String method, String template) {
        if (method.equals("GET") || method.equals("DELETE")) return null;
        if (template.endsWith("/exec") || template.endsWith("/processes")) return "{\"argv\":[\"true\"]}";
        if (template.endsWith("/signal")) return "{\"signal\":15}";
        if (template.endsWith("/browser/script")) return "{\"script\":\"console.log(1)\"}";
        if (template.endsWith("/browser/actions")) return "{\"action\":\"snapshot\"}";
        if (template.endsWith("/events")) return "{\"events\":[{\"type\":\"user.message\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}]}";
        if (template.endsWith("/files/content")) return "b was here";
        if (template.endsWith("/network")) return "{\"type\":\"none\"}";
        if (template.startsWith("/v1/secrets/")) return "{\"value\":\"b-value\"}";
        if (template.equals("/v1/agents/{agent_id}")) return "{\"version\":1,\"name\":\"b\"}";
        if (template.endsWith("/work/{work_id}")) return "{\"metadata\":{\"k\":\"v\"}}";
        if (template.endsWith("/ports")) return "{\"port\":8000}";
        return "{}";
    }

    private static Object plausible(String arg) {
        return switch (arg) {
            case "command" -> "cat secret.txt";
            case "path", "file_path" -> "secret.txt";
            case "action" -> "snapshot";
            case "pattern" -> "secret";
            case "script" -> "console.log(1)";
            default -> "x";
        };
    }

    private JsonNode send(String key, String method, String path, String body) {
        HttpResponse<String> r = call(key, method, path, body);
        assertThat(r.statusCode()).as("%s %s: %s", method, path, r.body()).isBetween(200, 299);
        return r.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(r.body());
    }

    /** A multipart upload of one file in part {@code part}, as the Skills API ({@code files}) and the Files API ({@code file}) take it. */
    private HttpResponse<String> upload(String key, String path, String part, String filename, String content) {
        String boundary = "tenant-gate-boundary";
        String body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + part + "\"; filename=\"" + filename + "\"\r\n\r\n"
                + content + "\r\n--" + boundary + "--\r\n";
        HttpRequest r = HttpRequest.newBuilder(URI.create(app.url() + path)).timeout(Duration.ofSeconds(30)).header("x-api-key", key)
                .header("Content-Type", "multipart/form-data; boundary=" + boundary).POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            HttpResponse<String> answer = HTTP.send(r, HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as("upload to %s: %s", path, answer.body()).isEqualTo(200);
            return answer;
        } catch (Exception e) {
            throw new AssertionError("upload to " + path + " failed: " + e, e);
        }
    }

    private HttpResponse<String> call(String key, String method, String path, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(app.url() + path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null && !body.isEmpty() && body.startsWith("{")) b.header("Content-Type", "application/json");
        if (key != null) b.header("x-api-key", key);
        try {
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError(method + " " + path + " failed: " + e, e);
        }
    }
}
