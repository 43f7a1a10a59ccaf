package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.paddock.app.serve.PaddockApp;
import dev.paddock.app.serve.ServeSettings;
import dev.paddock.server.routes.SystemRoutes;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OpenAPI document (one source: {@link SystemRoutes#OPENAPI_RESOURCE} in the server module) is valid against the
 * OpenAPI 3.1 schema, served as is at {@code GET /v1/openapi.json} without a key, copied unchanged to docs/openapi.json, and
 * true to the router of a fully wired server: every route is documented and every documented operation exists. Real
 * answers of the main endpoints are checked against the document's schemas.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenApiDocumentTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    /** The OpenAPI 3.1 JSON Schemas, as the vertx-openapi jar ships them under spec.openapis.org/oas/3.1/. */
    private static final String OAS_SCHEMAS = "https://spec.openapis.org/oas/3.1/";
    private static final String SCHEMA_BASE = OAS_SCHEMAS + "schema-base/2022-10-07";
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

    /** Routes that are not API: pages and files for a browser, not for API clients. Everything else must be documented. */
    private static final Map<String, String> UNDOCUMENTED = Map.of(
            "GET /sandbox-tab", "the browser-vm tab's HTML page, opened by a person from the pairing code's tab_url",
            "GET /sandbox-tab/vm/{file}", "the emulator's static files (wasm, BIOS, kernel) that the tab page loads");

    /** Where the document's own schemas are found when answers are checked against them. */
    private static final String DOCUMENT_ID = "https://paddock.invalid/v1/openapi.json";

    private Path dataDir;
    private SchemaRegistry documentSchemas;
    private PaddockApp app;
    private byte[] resource;

    @BeforeAll
    void setUp() throws Exception {
        try (InputStream in = SystemRoutes.class.getResourceAsStream(SystemRoutes.OPENAPI_RESOURCE)) {
            assertThat(in).as("the server jar holds %s", SystemRoutes.OPENAPI_RESOURCE).isNotNull();
            resource = in.readAllBytes();
        }
        dataDir = Files.createTempDirectory("paddock-openapi");
        // everything wired (images, runtimes, vault, agents) so the router has every route; nothing answers the model URL
        app = PaddockApp.start(ServeSettings.resolve(Map.of("data_dir", dataDir.toString(), "port", "0", "driver", "subprocess",
                "model_base_url", "http://127.0.0.1:9"), Map.of(), null, dataDir));
    }

    @AfterAll
    void tearDown() throws IOException {
        if (app != null) app.close();
        try (var files = Files.walk(dataDir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    @Test
    void servedAsIsWithoutAKey() throws Exception {
        HttpResponse<byte[]> r = HTTP.send(HttpRequest.newBuilder(URI.create(app.url() + SystemRoutes.OPENAPI_PATH))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
        assertThat(r.body()).as("the served document is the resource, byte for byte").isEqualTo(resource);
    }

    @Test
    void docsCopyEqualsTheServedDocument() throws IOException {
        Path doc = repositoryRoot().resolve("docs/openapi.json");
        if (Boolean.getBoolean("paddock.regenerate-docs")) Files.write(doc, resource);
        String actual = Files.exists(doc) ? Files.readString(doc, StandardCharsets.UTF_8) : "";
        assertThat(actual).as(doc + " is stale; copy it from server/src/main/resources" + SystemRoutes.OPENAPI_RESOURCE
                        + " (or run this test with -Dpaddock.regenerate-docs=true)")
                .isEqualTo(new String(resource, StandardCharsets.UTF_8));
    }

    @Test
    void isAValidOpenApi31Document() {
        JsonNode doc = JSON.readTree(resource);
        assertThat(doc.path("openapi").asString()).isEqualTo("3.1.0");
        assertThat(problems(doc)).as("%s against the OpenAPI 3.1 schema", SystemRoutes.OPENAPI_RESOURCE).isEmpty();

        // the validator is live: it finds a missing info, responses of the wrong type, a bad schema and a dangling $ref
        ObjectNode broken = (ObjectNode) JSON.readTree(resource);
        broken.remove("info");
        ((ObjectNode) broken.path("paths").path("/v1/health").path("get")).put("responses", "none");
        ((ObjectNode) broken.path("components").path("schemas").path("Sandbox").path("properties").path("state")).put("type", "strin");
        ((ObjectNode) broken.path("components").path("schemas")).remove("Checkpoint");
        List<String> found = problems(broken);
        assertThat(found).as("%s", found).anyMatch(p -> p.contains("info")).anyMatch(p -> p.startsWith("/paths/~1v1~1health/get/responses"))
                .anyMatch(p -> p.startsWith("/components/schemas/Sandbox/properties/state/type"))
                .anyMatch(p -> p.contains("#/components/schemas/Checkpoint"));
    }

    @Test
    void answersMatchTheirDocumentedSchemas() {
        String key = app.createdAdminKey().orElseThrow();
        JsonNode sandbox = answer(key, "POST", "/v1/sandboxes", "{}", 201, "Sandbox");
        String sbx = "/v1/sandboxes/" + sandbox.path("id").asString();
        answer(key, "GET", sbx, null, 200, "Sandbox");
        answer(key, "GET", "/v1/sandboxes", null, 200, "SandboxPage");
        answer(key, "POST", sbx + "/exec", "{\"argv\":[\"echo\",\"hi\"]}", 200, "ExecResult");
        answer(key, "POST", sbx + "/processes", "{\"argv\":[\"true\"]}", 201, "Process");
        answer(key, "POST", sbx + "/files/mkdir?path=d", null, 200, "FileEntry");
        answer(key, "POST", sbx + "/checkpoints", null, 201, "Checkpoint");
        answer(key, "GET", sbx + "/checkpoints", null, 200, "CheckpointPage");
        answer(key, "GET", sbx + "/events", null, 200, "SandboxEventPage");
        answer(key, "GET", sbx + "/egress", null, 200, "EgressPage");
        answer(key, "POST", "/v1/secrets", "{\"name\":\"tok\",\"value\":\"v\"}", 201, "Secret");
        answer(key, "POST", "/v1/api_keys", "{\"name\":\"k\"}", 201, "CreatedApiKey");
        answer(key, "POST", "/v1/runtimes/pairing_codes", "{\"kind\":\"browser-vm\"}", 201, "PairingCode");
        answer(key, "GET", "/v1/health", null, 200, "Health");
        for (JsonNode driver : answer(key, "GET", "/v1/drivers", null, 200, null).path("data")) assertMatches("Driver", driver);
        JsonNode agent = answer(key, "POST", "/v1/agents", "{\"name\":\"a\",\"model\":\"m\"}", 200, "Agent");
        JsonNode env = answer(key, "POST", "/v1/environments", "{\"name\":\"e\",\"config\":{\"type\":\"self_hosted\"}}", 200, "Environment");
        answer(key, "POST", "/v1/sessions", "{\"agent\":\"" + agent.path("id").asString() + "\",\"environment_id\":\""
                + env.path("id").asString() + "\"}", 200, "Session");
        JsonNode skill = uploadSkill(key);
        assertMatches("Skill", skill);
        String skillPath = "/v1/skills/" + skill.path("id").asString();
        answer(key, "GET", skillPath, null, 200, "Skill");
        answer(key, "GET", "/v1/skills", null, 200, "SkillPage");
        answer(key, "GET", skillPath + "/versions", null, 200, "SkillVersionPage");
        answer(key, "GET", skillPath + "/versions/latest", null, 200, "SkillVersion");
        JsonNode withSkill = answer(key, "POST", "/v1/agents", "{\"name\":\"s\",\"model\":\"m\",\"skills\":[{\"type\":\"custom\",\"skill_id\":\""
                + skill.path("id").asString() + "\"}]}", 200, "Agent");
        assertMatches("AgentSkill", withSkill.path("skills").get(0));
        answer(key, "DELETE", skillPath, null, 200, "DeletedSkill");
        answer(key, "GET", "/v1/sandboxes/sbx_0123456789abcdefghjkmnpqrs", null, 404, "Error");
        answer(null, "GET", "/v1/sandboxes", null, 401, "Error");
        answer(key, "DELETE", sbx + "?purge=true", null, 200, "Sandbox");
        assertThat(documentSchema("Checkpoint").validate(sandbox)).as("the check is live: a sandbox is no checkpoint").isNotEmpty();
    }

    @Test
    void everyRouteIsDocumentedAndEveryDocumentedOperationExists() {
        Set<String> routes = new TreeSet<>();
        for (String route : app.routes()) {
            // the relay is a WebSocket: documented as the GET that upgrades (101)
            routes.add(route.startsWith("WS ") ? "GET " + route.substring(3) : route);
        }
        assertThat(routes).as("the router lists the routes").hasSizeGreaterThan(40);
        assertThat(routes).as("routes left out of the document must exist, or the list is stale").containsAll(UNDOCUMENTED.keySet());
        routes.removeAll(UNDOCUMENTED.keySet());

        Set<String> documented = new TreeSet<>();
        JsonNode paths = JSON.readTree(resource).path("paths");
        for (Map.Entry<String, JsonNode> path : paths.properties()) {
            for (String key : path.getValue().propertyNames()) {
                if (METHODS.contains(key)) documented.add(key.toUpperCase(java.util.Locale.ROOT) + " " + path.getKey());
            }
        }

        Set<String> undocumented = new TreeSet<>(routes);
        undocumented.removeAll(documented);
        Set<String> missing = new TreeSet<>(documented);
        missing.removeAll(routes);
        assertThat(undocumented).as("routes the server has that " + SystemRoutes.OPENAPI_RESOURCE
                + " does not document (add them, as docs/API.md describes them)").isEmpty();
        assertThat(missing).as("operations the document names that the server does not have").isEmpty();
    }

    /** A skill of one file, uploaded as the Skills API takes it (multipart/form-data). */
    private JsonNode uploadSkill(String key) {
        String boundary = "openapi-test-boundary";
        String body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"files\"; filename=\"notes/SKILL.md\"\r\n\r\n"
                + "---\nname: notes\ndescription: Keep notes.\n---\n\r\n--" + boundary + "--\r\n";
        HttpRequest r = HttpRequest.newBuilder(URI.create(app.url() + "/v1/skills")).timeout(Duration.ofSeconds(30)).header("x-api-key", key)
                .header("Content-Type", "multipart/form-data; boundary=" + boundary).POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            HttpResponse<String> answer = HTTP.send(r, HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as("POST /v1/skills: %s", answer.body()).isEqualTo(200);
            return JSON.readTree(answer.body());
        } catch (Exception e) {
            throw new AssertionError("POST /v1/skills failed: " + e, e);
        }
    }

    private JsonNode answer(String key, String method, String path, String body, int status, String schema) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(app.url() + path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) b.header("Content-Type", "application/json");
        if (key != null) b.header("x-api-key", key);
        HttpResponse<String> r;
        try {
            r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError(method + " " + path + " failed: " + e, e);
        }
        assertThat(r.statusCode()).as("%s %s: %s", method, path, r.body()).isEqualTo(status);
        JsonNode json = JSON.readTree(r.body());
        if (schema != null) assertMatches(schema, json);
        return json;
    }

    /** {@code answer} is valid against {@code #/components/schemas/<name>} of the document. */
    private void assertMatches(String name, JsonNode answer) {
        assertThat(documentSchema(name).validate(answer)).as("%s against the document's %s", answer, name).isEmpty();
    }

    private Schema documentSchema(String name) {
        if (documentSchemas == null) {
            documentSchemas = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
                    b -> b.schemas(Map.of(DOCUMENT_ID, new String(resource, StandardCharsets.UTF_8))));
        }
        return documentSchemas.getSchema(SchemaLocation.of(DOCUMENT_ID + "#/components/schemas/" + name));
    }

    /**
     * What is wrong with {@code doc}: each error against the official OpenAPI 3.1 JSON Schema in its schema-base form
     * (every Schema Object checked against the OpenAPI dialect of JSON Schema 2020-12), and each {@code $ref} that
     * points nowhere, which no JSON Schema checks.
     */
    private static List<String> problems(JsonNode doc) {
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
                b -> b.schemaIdResolvers(r -> r.mapPrefix(OAS_SCHEMAS, "classpath:spec.openapis.org/oas/3.1/")));
        Schema schema = registry.getSchema(SchemaLocation.of(SCHEMA_BASE));
        List<String> out = new ArrayList<>();
        for (com.networknt.schema.Error e : schema.validate(doc)) out.add(e.getInstanceLocation() + "/" + e.getKeyword() + ": " + e.getMessage());
        danglingRefs(doc, doc, out);
        return out;
    }

    private static void danglingRefs(JsonNode root, JsonNode node, List<String> out) {
        if (node.isObject()) {
            JsonNode ref = node.get("$ref");
            if (ref != null && ref.isString()) {
                String target = ref.asString();
                if (!target.startsWith("#") || root.at(target.substring(1)).isMissingNode()) out.add("dangling $ref " + target);
            }
            for (JsonNode child : node.values()) danglingRefs(root, child, out);
        } else if (node.isArray()) {
            for (JsonNode child : node) danglingRefs(root, child, out);
        }
    }

    /** The directory holding mvnw, found upwards from the module directory surefire runs in. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("docs"))) return dir;
        }
        throw new IllegalStateException("cannot find the repository root (the directory with mvnw) above " + Path.of("").toAbsolutePath());
    }
}
