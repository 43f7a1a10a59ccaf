package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** GET /v1/sandboxes/{id}/outputs/...: what a command wrote to /mnt/session/outputs, also after the sandbox ended. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OutputsApiTest {
    private final TestServer t = new TestServer();
    private final Api api = t.admin;

    @AfterAll
    void close() {
        t.close();
    }

    @Test
    void outputsWrittenByACommandAreListedReadAndArchivedAlsoAfterTheSandboxEnded() throws Exception {
        String id = api.createSandbox();
        // the test server runs the subprocess driver, whose commands find the outputs directory in $PADDOCK_OUTPUTS
        var exec = api.post("/v1/sandboxes/" + id + "/exec",
                "{\"command\": \"mkdir -p \\\"$PADDOCK_OUTPUTS/plots\\\" && printf chart > \\\"$PADDOCK_OUTPUTS/plots/a.svg\\\"\"}");
        assertThat(exec.json().path("exit_code").asInt()).as(exec.body()).isZero();
        String outputs = "/v1/sandboxes/" + id + "/outputs";

        assertThat(api.delete("/v1/sandboxes/" + id).status()).isEqualTo(200);

        var list = api.get(outputs + "/list?path=plots");
        assertThat(list.status()).as(list.body()).isEqualTo(200);
        assertThat(StreamSupport.stream(list.json().path("data").spliterator(), false).map(e -> e.path("path").asString()))
                .containsExactly("/mnt/session/outputs/plots/a.svg");
        assertThat(api.get(outputs + "/list").json().path("data").size()).isEqualTo(1);
        assertThat(api.get(outputs + "/content?path=/mnt/session/outputs/plots/a.svg").body()).isEqualTo("chart");

        var tar = api.get(outputs + "/archive");
        assertThat(tar.status()).isEqualTo(200);
        List<String> names = new ArrayList<>();
        try (TarArchiveInputStream in = new TarArchiveInputStream(new ByteArrayInputStream(tar.bytes()))) {
            for (TarArchiveEntry e; (e = in.getNextEntry()) != null; ) names.add(e.getName());
        }
        assertThat(names).anyMatch(n -> n.endsWith("plots/a.svg"));
    }

    @Test
    void outputsAreReadOnlyAndConfinedToTheirRoot() {
        String id = api.createSandbox();
        String outputs = "/v1/sandboxes/" + id + "/outputs";
        api.get(outputs + "/content?path=/workspace/x").error(400, "invalid_request_error", "path_outside_workspace");
        api.get(outputs + "/content?path=../workspace/x").error(400, "invalid_request_error", "path_outside_workspace");
        api.get(outputs + "/content?path=missing.txt").error(404, "not_found_error", null);
        assertThat(api.put(outputs + "/content?path=a.txt", "x".getBytes(StandardCharsets.UTF_8)).status()).isIn(404, 405);
        api.get("/v1/sandboxes/sbx_0123456789abcdefghjkmnpqrs/outputs/list").error(404, "not_found_error", null);
    }
}
