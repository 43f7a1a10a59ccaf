package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bad input of every kind answers a 4xx in the API's error shape, naming what was wrong, and never a 500 or a
 * stack trace.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputTest {
    private static final String INVALID = "invalid_request_error";
    private final TestServer t = new TestServer();
    private final Api api = t.admin;
    private String sandbox;

    @BeforeAll
    void sandbox() {
        sandbox = api.createSandbox();
    }

    @AfterAll
    void close() {
        t.close();
    }

    @Test
    void malformedJsonNamesThePosition() {
        var r = api.post("/v1/sandboxes", "{\"env\": {\"A\": \"b\",}}").error(400, INVALID, "invalid_json");
        assertThat(r.message()).contains("line 1").contains("column");
        api.post("/v1/sandboxes", "{\"env\": ").error(400, INVALID, "invalid_json");
        api.post("/v1/sandboxes", "[]").error(400, INVALID, "invalid_json");
        api.post("/v1/sandboxes", "{} {}").error(400, INVALID, "invalid_json");
        api.post("/v1/sandboxes", "{\"image\": \"a\", \"image\": \"b\"}").error(400, INVALID, "invalid_json");
        // the parser's own notes on where its input came from are not for the caller
        var unclosed = api.post("/v1/sandboxes", "{\"a\":[1,2").error(400, INVALID, "invalid_json");
        assertThat(unclosed.message()).contains("expected close marker for Array").doesNotContain("Source", "REDACTED", "byte offset");
    }

    @Test
    void unknownFieldsAreRefusedByName() {
        var r = api.post("/v1/sandboxes", "{\"memory\": \"1g\"}").error(400, INVALID, "unknown_field");
        assertThat(r.message()).contains("'memory'").contains("limits");
        var nested = api.post("/v1/sandboxes", "{\"limits\": {\"memroy\": \"1g\"}}").error(400, INVALID, "unknown_field");
        assertThat(nested.message()).contains("'memroy'").contains("in limits");
        api.post("/v1/sandboxes/" + sandbox + "/exec", "{\"argv\": [\"true\"], \"shell\": true}").error(400, INVALID, "unknown_field");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"timeout_seconds\": \"60\"}                  | timeout_seconds",
            "{\"timeout_seconds\": 1.5}                     | timeout_seconds",
            "{\"writable_rootfs\": \"yes\"}                 | writable_rootfs",
            "{\"env\": {\"A\": 1}}                          | env.A",
            "{\"env\": [\"A=1\"]}                           | env",
            "{\"limits\": {\"pids\": \"many\"}}             | limits.pids",
            "{\"limits\": {\"cpus\": \"two\"}}              | limits.cpus",
            "{\"limits\": \"big\"}                          | limits",
            "{\"image\": 5}                                 | image",
            "{\"idle\": {\"suspend_after_seconds\": true}}  | idle.suspend_after_seconds",
    })
    void wrongTypesNameTheField(String body, String field) {
        var r = api.post("/v1/sandboxes", body).error(400, INVALID, "invalid_field");
        assertThat(r.message()).contains("'" + field + "'");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"timeout_seconds\": -5}                       | timeout_seconds",
            "{\"timeout_seconds\": 0}                        | timeout_seconds",
            "{\"limits\": {\"memory\": \"512x\"}}            | limits.memory",
            "{\"limits\": {\"memory\": \"1m\"}}              | limits.memory",
            "{\"limits\": {\"memory\": 100}}                 | limits.memory",
            "{\"limits\": {\"memory\": \"999999999g\"}}      | limits.memory",
            "{\"limits\": {\"memory\": true}}                | limits.memory",
            "{\"limits\": {\"pids\": 2}}                     | limits.pids",
            "{\"limits\": {\"pids\": 99999999}}              | limits.pids",
            "{\"limits\": {\"cpus\": 0}}                     | limits.cpus",
            "{\"limits\": {\"cpus\": -1}}                    | limits.cpus",
            "{\"limits\": {\"disk\": \"1m\"}}                | limits.disk",
            "{\"limits\": {\"disk\": \"20m\"}}               | limits.disk",
            "{\"limits\": {\"disk\": \"lots\"}}              | limits.disk",
            "{\"limits\": {\"disk\": -1}}                    | limits.disk",
            "{\"env\": {\"1BAD\": \"x\"}}                    | env",
            "{\"env\": {\"A\": \"x\\u0000y\"}}               | env.A",
            "{\"network\": {\"type\": \"everything\"}}       | network.type",
            "{\"driver\": \"../../bin/sh\"}                  | driver",
            "{\"idle\": {\"terminate_after_seconds\": -1}}   | idle.terminate_after_seconds",
    })
    void badValuesNameTheField(String body, String field) {
        var r = api.post("/v1/sandboxes", body).error(400, INVALID, "invalid_field");
        assertThat(r.message()).contains("'" + field + "'");
    }

    @Test
    void memoryAcceptsBytesAndSizeSuffixes() {
        for (String[] c : new String[][] {{"\"512m\"", "536870912"}, {"\"1g\"", "1073741824"}, {"33554432", "33554432"}, {"\"65536k\"", "67108864"}}) {
            var r = api.post("/v1/sandboxes", "{\"limits\": {\"memory\": " + c[0] + "}}");
            assertThat(r.status()).as(r.body()).isEqualTo(201);
            assertThat(r.json().path("limits").path("memory_bytes").asString()).isEqualTo(c[1]);
            api.delete("/v1/sandboxes/" + r.json().path("id").asString());
        }
    }

    @Test
    void unknownDriverIsA400() {
        api.post("/v1/sandboxes", "{\"driver\": \"nope\"}").error(400, INVALID, "unknown_driver");
    }

    @Test
    void execBodiesAreChecked() {
        String exec = "/v1/sandboxes/" + sandbox + "/exec";
        api.post(exec, "{}").error(400, INVALID, "invalid_field");
        assertThat(api.post(exec, "{\"argv\": []}").error(400, INVALID, "invalid_field").message()).contains("'argv'");
        api.post(exec, "{\"argv\": [\"ls\"], \"command\": \"ls\"}").error(400, INVALID, "invalid_field");
        api.post(exec, "{\"argv\": \"ls -l\"}").error(400, INVALID, "invalid_field");
        api.post(exec, "{\"argv\": [\"ls\", 3]}").error(400, INVALID, "invalid_field");
        api.post(exec, "{\"argv\": [\"ls\", null]}").error(400, INVALID, "invalid_field");
        api.post(exec, "{\"command\": \"  \"}").error(400, INVALID, "invalid_field");
        api.post(exec, "{\"argv\": [\"ls\"], \"timeout_seconds\": 0}").error(400, INVALID, "invalid_field");
        api.post(exec, "{\"argv\": [\"ls\"], \"timeout_seconds\": 99999999}").error(400, INVALID, "invalid_field");
        api.post(exec, "{\"argv\": [\"ls\"], \"stdin\": \"a\", \"stdin_base64\": \"YQ==\"}").error(400, INVALID, "invalid_field");
        assertThat(api.post(exec, "{\"argv\": [\"ls\"], \"stdin_base64\": \"***\"}").error(400, INVALID, "invalid_field").message())
                .contains("'stdin_base64'");
        // too many entries have codes of their own (docs/API.md)
        String manyArgs = "[\"echo\"" + ",\"x\"".repeat(4096) + "]";
        api.post(exec, "{\"argv\": " + manyArgs + "}").error(400, INVALID, "argv_too_long");
        StringBuilder env = new StringBuilder("{");
        for (int i = 0; i < 257; i++) env.append(i == 0 ? "" : ",").append("\"V").append(i).append("\":\"1\"");
        api.post(exec, "{\"argv\": [\"true\"], \"env\": " + env + "}}").error(400, INVALID, "env_too_large");
    }

    @Test
    void oversizedJsonBodyIs413() {
        byte[] big = new byte[(int) ServerConfig.DEFAULT_MAX_JSON_BYTES + 10];
        Arrays.fill(big, (byte) ' ');
        big[0] = '{';
        big[big.length - 1] = '}';
        var r = api.send(api.request("POST", "/v1/sandboxes", HttpRequest.BodyPublishers.ofByteArray(big)));
        r.error(413, "request_too_large", "request_too_large");
        // without a Content-Length the limit is enforced while reading
        var chunked = api.send(api.request("POST", "/v1/sandboxes",
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big))));
        chunked.error(413, "request_too_large", "request_too_large");
    }

    @Test
    void aClientStillSendingARefusedBodyReadsTheAnswerEveryTime() {
        // the server answers a body it refuses before the body has arrived; the client is still sending then, and a
        // connection closed under it would lose the answer: repeated, as the loss is a race
        byte[] json = new byte[(int) ServerConfig.DEFAULT_MAX_JSON_BYTES * 3];
        Arrays.fill(json, (byte) ' ');
        byte[] upload = new byte[(int) TestServer.UPLOAD_LIMIT * 2];
        String put = "/v1/sandboxes/" + sandbox + "/files/content?path=big.bin";
        Api anonymous = new Api(t.server.port(), null);
        for (int i = 0; i < 15; i++) {
            // refused before the body is looked at: no key, no such route, the MCP endpoint's own limit
            anonymous.send(anonymous.request("POST", "/v1/sandboxes", HttpRequest.BodyPublishers.ofByteArray(upload)))
                    .error(401, "authentication_error", null);
            api.send(api.request("POST", "/v1/nothing-here", HttpRequest.BodyPublishers.ofByteArray(upload)))
                    .error(404, "not_found_error", "route_not_found");
            api.send(api.request("POST", "/mcp", HttpRequest.BodyPublishers.ofByteArray(json))
                            .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream"))
                    .error(413, "request_too_large", "request_too_large");
            api.send(api.request("POST", "/v1/sandboxes", HttpRequest.BodyPublishers.ofByteArray(json)))
                    .error(413, "request_too_large", "request_too_large");
            api.send(api.request("PUT", put, HttpRequest.BodyPublishers.ofByteArray(upload)))
                    .error(413, "request_too_large", "request_too_large");
            api.send(api.request("PUT", put, HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(upload))))
                    .error(413, "request_too_large", "request_too_large");
        }
        api.get("/v1/sandboxes/" + sandbox + "/files/stat?path=big.bin").error(404, "not_found_error", null);
    }

    @Test
    void aRequestWithoutABodyOrWithASmallUnreadOneKeepsItsConnection() throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", t.server.port())) {
            socket.setSoTimeout(10_000);
            var out = socket.getOutputStream();
            var in = new java.io.DataInputStream(socket.getInputStream());
            // an answer with no body of its own (204) to a request with none
            api.send(api.request("PUT", "/v1/sandboxes/" + sandbox + "/files/content?path=kept.txt", HttpRequest.BodyPublishers.ofString("x")));
            out.write(RawHttp.bytes("DELETE /v1/sandboxes/" + sandbox + "/files?path=kept.txt HTTP/1.1\r\nHost: x\r\nx-api-key: " + t.adminKey + "\r\n\r\n"));
            assertThat(answerHead(in)).startsWith("HTTP/1.1 204").doesNotContainIgnoringCase("connection: close");
            // answered 401 before a byte of it is read; the server reads it after the answer
            out.write(RawHttp.bytes("POST /v1/sandboxes HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + " ".repeat(1000)));
            assertThat(answerHead(in)).startsWith("HTTP/1.1 401").doesNotContainIgnoringCase("connection: close");
            out.write(RawHttp.bytes("GET /v1/sandboxes/" + sandbox + " HTTP/1.1\r\nHost: x\r\nx-api-key: " + t.adminKey + "\r\n\r\n"));
            assertThat(answerHead(in)).as("the same connection serves a third request").startsWith("HTTP/1.1 200");
        }
    }

    /** One answer's head from a kept-alive connection; its body (by Content-Length) is read past. */
    private static String answerHead(java.io.DataInputStream in) throws java.io.IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) head.append((char) in.readUnsignedByte());
        var length = java.util.regex.Pattern.compile("(?im)^content-length:\\s*(\\d+)").matcher(head);
        if (length.find()) in.readNBytes(Integer.parseInt(length.group(1)));
        return head.toString();
    }

    @Test
    void oversizedUploadIs413AndLeavesNoFile() {
        byte[] big = new byte[(int) TestServer.UPLOAD_LIMIT + 1];
        String path = "/v1/sandboxes/" + sandbox + "/files/content?path=big.bin";
        api.send(api.request("PUT", path, HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big))))
                .error(413, "request_too_large", "request_too_large");
        // a declared length over the limit is refused before the body is read, and the connection closed: a raw client
        // that goes on to read the answer after its upload is cut, as curl does
        byte[] head = RawHttp.bytes("PUT " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: " + t.adminKey
                + "\r\nConnection: close\r\nContent-Length: " + big.length + "\r\n\r\n");
        byte[] request = java.util.Arrays.copyOf(head, head.length + big.length);
        RawHttp.Answer refused = RawHttp.send(t.server.port(), request, java.time.Duration.ofSeconds(30));
        assertThat(refused.status()).isEqualTo(413);
        assertThat(HostileRequestsTest.assertError(refused).path("error").path("code").asString()).isEqualTo("request_too_large");
        api.get("/v1/sandboxes/" + sandbox + "/files/stat?path=big.bin").error(404, "not_found_error", null);
    }

    @Test
    void checkpointTypesAndSandboxesFromCheckpointsAreChecked() {
        String checkpoints = "/v1/sandboxes/" + sandbox + "/checkpoints";
        api.post(checkpoints, "{\"type\": \"everything\"}").error(400, INVALID, "invalid_checkpoint_type");
        api.post(checkpoints, "{\"type\": \"memory\"}").error(501, "not_implemented_error", "unsupported_capability");
        api.post(checkpoints, "{\"kind\": \"memory\"}").error(400, INVALID, "unknown_field");
        String cp = "cp_0123456789abcdefghjkmnpqrs";
        assertThat(api.post("/v1/sandboxes", "{\"from_checkpoint\": \"" + cp + "\", \"image\": \"x\"}").error(400, INVALID, "invalid_field").message())
                .contains("from_checkpoint");
        api.post("/v1/sandboxes", "{\"from_checkpoint\": \"" + cp + "\"}").error(404, "not_found_error", "not_found");
        api.post("/v1/sandboxes", "{\"from_checkpoint\": \"nope\"}").error(400, INVALID, "invalid_id");
    }

    @Test
    void badIdsAreRefusedBeforeAnyLookup() {
        api.get("/v1/sandboxes/nope").error(400, INVALID, "invalid_id");
        api.get("/v1/sandboxes/cp_0123456789abcdefghjkmnpqrs").error(400, INVALID, "invalid_id");
        api.get("/v1/sandboxes/sbx_0123456789abcdefghjkmnpqrs").error(404, "not_found_error", "not_found");
        api.get("/v1/checkpoints/sbx_x/archive").error(400, INVALID, "invalid_id");
        api.post("/v1/sandboxes/" + sandbox + "/checkpoints/bad/restore", null).error(400, INVALID, "invalid_id");
        api.get("/v1/sandboxes?after_id=evt_0123456789abcdefghjkmnpqrs").error(400, INVALID, "invalid_id");
        api.get("/v1/sandboxes/" + sandbox + "/processes/abc/logs").error(400, INVALID, "invalid_parameter");
    }

    @Test
    void pathsOutsideTheWorkspaceAreRefused() {
        String files = "/v1/sandboxes/" + sandbox + "/files";
        api.get(files + "/content?path=../../etc/passwd").error(400, INVALID, "path_outside_workspace");
        api.get(files + "/content?path=/etc/passwd").error(400, INVALID, "path_outside_workspace");
        api.put(files + "/content?path=/workspace/../x", "x".getBytes()).error(400, INVALID, "path_outside_workspace");
        api.get(files + "/list?path=..").error(400, INVALID, "path_outside_workspace");
        api.get(files + "/archive?path=/etc").error(400, INVALID, "path_outside_workspace");
        api.get(files + "/content").error(400, INVALID, "missing_parameter");
    }

    @Test
    void badPaginationAndFlags() {
        api.get("/v1/sandboxes?limit=0").error(400, INVALID, "invalid_limit");
        api.get("/v1/sandboxes?limit=1001").error(400, INVALID, "invalid_limit");
        assertThat(api.get("/v1/sandboxes?limit=ten").error(400, INVALID, "invalid_limit").message()).contains("limit");
        api.get("/v1/sandboxes?include_terminated=maybe").error(400, INVALID, "invalid_parameter");
        api.get("/v1/sandboxes?after_id=sbx_0123456789abcdefghjkmnpqrs&before_id=sbx_0123456789abcdefghjkmnpqrs")
                .error(400, INVALID, "invalid_cursor");
    }

    @Test
    void badSignalsAndKeyBodies() {
        String sig = "/v1/sandboxes/" + sandbox + "/processes/1/signal";
        api.post(sig, "{\"signal\": \"NOPE\"}").error(400, INVALID, "invalid_field");
        api.post(sig, "{\"signal\": 99}").error(400, INVALID, "invalid_field");
        api.post(sig, "{}").error(400, INVALID, "invalid_field");
        api.post("/v1/api_keys", "{}").error(400, INVALID, "invalid_field");
        api.post("/v1/api_keys", "{\"name\": \"x\", \"tenant_id\": \"../x\"}").error(400, INVALID, "invalid_field");
        api.post("/v1/api_keys", "{\"name\": \"x\", \"admin\": \"yes\"}").error(400, INVALID, "invalid_field");
    }

    @Test
    void unknownRoutesAndWrongMethodsAnswerJson() {
        api.get("/v1/nothing-here").error(404, "not_found_error", "route_not_found");
        t.as(null).get("/v1/nothing-here").error(404, "not_found_error", "route_not_found");
        api.call("PATCH", "/v1/sandboxes", "{}").error(405, INVALID, "method_not_allowed");
        api.call("PUT", "/v1/health", "{}").error(405, INVALID, "method_not_allowed");
    }

    @Test
    void stateConflictsAre409() {
        String id = api.createSandbox();
        api.delete("/v1/sandboxes/" + id);
        api.post("/v1/sandboxes/" + id + "/exec", "{\"argv\": [\"true\"]}").error(409, "conflict_error", "sandbox_not_running");
    }
}
