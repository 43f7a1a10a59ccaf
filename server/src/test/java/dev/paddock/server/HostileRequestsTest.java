package dev.paddock.server;

import static dev.paddock.server.RawHttp.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/**
 * Requests that once drew a 500, an empty body or a stack trace: each answers a 4xx in the API's error shape,
 * with a code, quickly.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileRequestsTest {
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final Duration IDLE = Duration.ofSeconds(2);
    private final TestServer t = new TestServer(ServerConfig.defaults().withPort(0)
            .withLimits(ServerConfig.DEFAULT_MAX_JSON_BYTES, TestServer.UPLOAD_LIMIT).withIdleTimeout(IDLE), false, true);
    private final Api api = t.admin;

    @AfterAll
    void close() {
        t.close();
    }

    private RawHttp.Answer raw(String request) {
        return RawHttp.send(t.server.port(), bytes(request), DEADLINE);
    }

    private RawHttp.Answer raw(String method, String path, String extraHeaders, String body) {
        return raw(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + extraHeaders + "\r\n" + body);
    }

    /** The error shape with a code, no internals, and a 4xx status. */
    static JsonNode assertError(RawHttp.Answer a) {
        assertThat(a.status()).as("status of %s", a.text()).isBetween(400, 499);
        assertThat(a.header("Content-Type")).as(a.head()).startsWith("application/json");
        JsonNode j = Api.JSON.readTree(a.body());
        assertThat(j.path("type").asString()).as(a.text()).isEqualTo("error");
        assertThat(j.path("error").path("type").asString()).as(a.text()).isNotBlank();
        assertThat(j.path("error").path("code").asString()).as(a.text()).isNotBlank();
        assertThat(j.path("error").path("message").asString()).as(a.text()).isNotBlank();
        assertThat(a.text()).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("java.").doesNotContain("jakarta.");
        return j;
    }

    @Test
    void nullBodiesAndNullElements() {
        api.post("/v1/sandboxes", "null").error(400, "invalid_request_error", "invalid_json");
        api.post("/v1/agents", "null").error(400, "invalid_request_error", "invalid_json");
        api.post("/v1/environments", "null").error(400, "invalid_request_error", "invalid_json");
        var r = api.post("/v1/agents", "{\"name\":\"a\",\"model\":\"claude-sonnet-4-5\",\"tools\":[null]}")
                .error(400, "invalid_request_error", null);
        assertThat(r.message()).contains("tools[0]");
        String sandbox = api.createSandbox();
        api.post("/v1/sandboxes/" + sandbox + "/exec", "{\"argv\":[\"echo\",null]}").error(400, "invalid_request_error", null);
    }

    @Test
    void signalNumbersBeyondSixtyFourBits() {
        String sandbox = api.createSandbox();
        var r = api.post("/v1/sandboxes/" + sandbox + "/processes/1/signal", "{\"signal\": 123456789012345678901234567890}")
                .error(400, "invalid_request_error", null);
        assertThat(r.message()).contains("signal");
        api.post("/v1/sandboxes/" + sandbox + "/processes/1/signal", "{\"signal\": 1e400}").error(400, "invalid_request_error", null);
    }

    @Test
    void invalidChunkSizeIsA400() {
        String head = "x-api-key: " + t.adminKey + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n";
        assertError(raw("POST", "/v1/sandboxes", head, "zz\r\n{}\r\n0\r\n\r\n"));
        assertError(raw("POST", "/v1/sandboxes", head, "2\r\n{}XX\r\n0\r\n\r\n"));
        assertError(raw("POST", "/v1/sandboxes", head, "ffffffffffffffffffff\r\n{}\r\n0\r\n\r\n"));
    }

    @Test
    void anUploadWhoseBodyStopsArrivingIsATimeoutAndWritesNothing() {
        String sandbox = api.createSandbox();
        String head = "x-api-key: " + t.adminKey + "\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n";
        for (String route : List.of("files/content?path=stalled.txt", "files/archive?path=stalled")) {
            // one chunk, then nothing: the connection stays open past the idle timeout
            JsonNode j = assertError(raw("PUT", "/v1/sandboxes/" + sandbox + "/" + route, head, "1\r\nA\r\n"));
            assertThat(j.path("error").path("code").asString()).as(route).isEqualTo("request_timeout");
        }
        api.get("/v1/sandboxes/" + sandbox + "/files/stat?path=stalled.txt").error(404, "not_found_error", null);
        // the archive's target directory is made before its body is read; nothing arrived in it
        var listing = api.get("/v1/sandboxes/" + sandbox + "/files/list?path=stalled");
        assertThat(listing.status()).isEqualTo(200);
        assertThat(listing.json().path("data")).as("nothing written: " + listing.body()).isEmpty();
    }

    @Test
    void bodyShorterThanItsContentLength() {
        String head = "x-api-key: " + t.adminKey + "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n";
        var a = raw("POST", "/v1/sandboxes", head, "{\"env\":");
        assertThat(a.status()).isIn(400, 408);
        assertError(a);
    }

    @Test
    void badPercentEncodingInThePath() {
        for (String m : new String[] {"GET", "DELETE", "POST"}) {
            assertError(raw(m, "/v1/sandboxes/%FF%FE", "x-api-key: " + t.adminKey + "\r\n", ""));
            assertError(raw(m, "/mcp/%FF%FE", "x-api-key: " + t.adminKey + "\r\n", ""));
        }
    }

    @Test
    void archiveOfASymlinkOutOfTheTree() throws Exception {
        String sandbox = api.createSandbox();
        Path box = t.dataDir.resolve("sandboxes").resolve(sandbox);
        Files.createSymbolicLink(box.resolve("workspace").resolve("out"), Path.of("/etc"));
        Files.createSymbolicLink(box.resolve("workspace").resolve("up"), Path.of("../../.."));
        Files.createDirectories(box.resolve("outputs"));
        Files.createSymbolicLink(box.resolve("outputs").resolve("out"), Path.of("/etc"));
        for (String q : new String[] {"files/archive?path=/workspace/out", "files/archive?path=/workspace/up",
                "outputs/archive?path=/mnt/session/outputs/out", "files/archive?path=out"}) {
            var r = api.get("/v1/sandboxes/" + sandbox + "/" + q);
            assertThat(r.status()).as(q + ": " + r.body()).isIn(400, 403);
            r.error(r.status(), r.json().path("error").path("type").asString(), "path_outside_workspace");
        }
    }

    @Test
    void mcpErrorsAreJsonWithACode() {
        String key = "x-api-key: " + t.adminKey + "\r\n";
        JsonNode unauth = assertError(raw("POST", "/mcp", "Content-Type: application/json\r\nContent-Length: 2\r\n", "{}"));
        assertThat(unauth.path("error").path("code").asString()).isEqualTo("missing_api_key");
        assertThat(raw("PUT", "/mcp", key + "Content-Length: 2\r\n", "{}").status()).isEqualTo(405);
        assertError(raw("PUT", "/mcp", key + "Content-Length: 2\r\n", "{}"));
        assertError(raw("PATCH", "/mcp", key + "Content-Length: 2\r\n", "{}"));
        assertError(raw("POST", "/mcp", key + "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 9\r\n", "{not json"));
        String big = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"p\":\"" + "a".repeat(3 << 20) + "\"}}";
        var tooBig = raw("POST", "/mcp", key + "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: " + big.length() + "\r\n", big);
        assertThat(tooBig.status()).isEqualTo(413);
        assertError(tooBig);
        assertThat(tooBig.body().length).isLessThan(4096);
        String longMethod = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + "m".repeat(500_000) + "\"}";
        var echoed = raw("POST", "/mcp", key + "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: "
                + longMethod.length() + "\r\n", longMethod);
        assertError(echoed);
        assertThat(echoed.body().length).isLessThan(4096);
    }

    @Test
    void workHeartbeatRefusesInvalidJson() {
        var env = api.post("/v1/environments", "{\"name\":\"hb\"}");
        assertThat(env.status()).as(env.body()).isEqualTo(200);
        String envId = env.json().path("id").asString();
        api.post("/v1/environments/" + envId + "/work/work_0123456789abcdefghjkmnpqrs/heartbeat", "{not json").error(400, "invalid_request_error", "invalid_json");
        api.post("/v1/environments/" + envId + "/work/work_0123456789abcdefghjkmnpqrs/heartbeat", "[1]").error(400, "invalid_request_error", "invalid_json");
    }
}
