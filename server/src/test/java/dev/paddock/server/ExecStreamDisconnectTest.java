package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** A streaming exec whose client disconnects is killed rather than left running. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExecStreamDisconnectTest {
    private final TestServer t = new TestServer();

    @AfterAll
    void close() {
        t.close();
    }

    @Test
    void clientDisconnectKillsTheCommand() throws Exception {
        Api api = t.admin;
        String id = api.createSandbox();
        var req = api.request("POST", "/v1/sandboxes/" + id + "/exec", HttpRequest.BodyPublishers.ofString(
                        "{\"command\": \"echo $$ > pid.txt; echo ready; exec sleep 300\", \"timeout_seconds\": 600}"))
                .header("Accept", "text/event-stream");
        var response = api.stream(req);
        assertThat(response.statusCode()).isEqualTo(200);
        try (var reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (line.equals("event: stdout")) break;
            }
        } // closing the body before the end drops the connection

        long pid = Long.parseLong(api.get("/v1/sandboxes/" + id + "/files/content?path=pid.txt").body().strip());
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                .until(() -> !isAlive(pid));
    }

    /** Alive and not a zombie waiting to be reaped. */
    private static boolean isAlive(long pid) throws Exception {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        if (!Files.exists(stat)) return false;
        try {
            String s = Files.readString(stat);
            return s.charAt(s.lastIndexOf(')') + 2) != 'Z';
        } catch (java.io.IOException gone) {
            return false;
        }
    }
}
