package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.app.client.ApiException;
import dev.paddock.app.client.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a tenant leaves on the host's disk: bounded by limits.disk, and readable by no other local user. A process
 * as an unprivileged uid (nobody, or an escaped sandbox's uid) reads nothing of the data directory but what
 * sandboxes must reach.
 */
@Tag("bwrap")
// one server for the class: each test makes its own sandboxes, and the walk of the data directory only sees more
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DataAtRestEndToEndTest {
    private static final int NOBODY = 65534;
    /** What sandbox uids must be able to read: the init binary, shared /etc entries, images, a sandbox's own /etc and CA bundle. */
    private static final Pattern SHARED = Pattern.compile("(bin|etc|images)(/.*)?|sandboxes/[^/]+/(etc|egress)(/.*)?");

    private BwrapServer server;

    @BeforeAll
    void start() throws IOException {
        server = new BwrapServer("pdk", Map.of("default_disk", "64m", "max_disk", "1g", "max_checkpoint_size", "1m"));
    }

    @AfterAll
    void stop() throws Exception {
        server.close();
    }

    @Test
    void nothingATenantOwnsIsReadableByAnotherLocalUser() throws Exception {
        String id = create(null);
        exec(id, "echo private > /workspace/notes.txt; echo result > /mnt/session/outputs/r.txt");
        String cp = server.api.json("POST", "/v1/sandboxes/" + id + "/checkpoints", Map.of(), null).path("id").asString();
        server.api.json("POST", "/v1/secrets", Map.of(), obj().put("name", "token").put("value", "s3cr3t-value-0123456789"));

        List<String> all = walk(server.dataDir);
        // the walk sees the things that matter, so finding none of them readable means something
        assertThat(all).contains("paddock.db", "admin.key", "vault.key", "egress-ca.key", "checkpoints/" + cp + ".tar",
                "sandboxes/" + id + "/workspace/notes.txt", "sandboxes/" + id + "/outputs/r.txt");
        List<String> readable = readableAs(NOBODY, server.dataDir, all);
        assertThat(readable).as("readable by uid %d", NOBODY).allMatch(p -> SHARED.matcher(p).matches());
        assertThat(readable).doesNotContain("", "checkpoints", "sandboxes", "sandboxes/" + id);
    }

    @Test
    void theDiskLimitIsEnforcedByTheKernelAndCheckpointsAreCapped() {
        String id = create(null);
        String full = exec(id, "dd if=/dev/zero of=/workspace/big bs=1M count=100 2>&1; echo exit=$?");
        assertThat(full).contains("No space left on device").doesNotContain("exit=0");
        JsonNode limits = server.api.get("/v1/sandboxes/" + id).path("limits");
        assertThat(limits.path("disk_bytes").asLong()).isEqualTo(64L << 20);
        // a sparse file takes no disk, and no room in a checkpoint either: its holes stay holes in the archive
        exec(id, "rm /workspace/big; truncate -s 2G /workspace/sparse");
        JsonNode sparse = server.api.json("POST", "/v1/sandboxes/" + id + "/checkpoints", Map.of(), null);
        assertThat(sparse.path("size_bytes").asLong()).as("archive of a 2 GiB hole").isLessThan(1L << 20);
        // data past the archive cap is refused
        exec(id, "rm /workspace/sparse; head -c 4000000 /dev/urandom > /workspace/noise");
        assertThatThrownBy(() -> server.api.call("POST", "/v1/sandboxes/" + id + "/checkpoints", Map.of(), null))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo("checkpoint_too_large"));
        // asking past the maximum is refused before anything starts
        assertThatThrownBy(() -> server.api.call("POST", "/v1/sandboxes", Map.of(), obj().set("limits", obj().put("disk", "2g"))))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo("invalid_limits"));
        // an explicit limit
        String other = create("128m");
        assertThat(exec(other, "df -k /workspace | tail -1 | awk '{print $2}'").trim()).satisfies(kb ->
                assertThat(Long.parseLong(kb)).isBetween(100_000L, 131_072L));
    }

    private String create(String disk) {
        ObjectNode body = obj();
        if (disk != null) body.set("limits", obj().put("disk", disk));
        return server.api.json("POST", "/v1/sandboxes", Map.of(), body).path("id").asString();
    }

    private String exec(String id, String command) {
        return server.api.json("POST", "/v1/sandboxes/" + id + "/exec", Map.of(), obj().put("command", command)).path("stdout").asString();
    }

    private static List<String> walk(Path root) throws IOException {
        try (Stream<Path> tree = Files.walk(root)) {
            return tree.map(p -> root.relativize(p).toString()).toList();
        }
    }

    /** The paths (relative to {@code root}) that {@code uid} may open for reading, asked of the kernel by a process running as it. */
    private static List<String> readableAs(int uid, Path root, List<String> paths) throws Exception {
        Process p = new ProcessBuilder("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups", "sh", "-c",
                "cd / && while IFS= read -r p; do if test -r \"$1/$p\"; then printf '%s\\n' \"$p\"; fi; done", "sh", root.toString())
                .redirectErrorStream(true).start();
        try (var in = p.getOutputStream()) {
            in.write((String.join("\n", paths) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return out.lines().toList();
    }

    private static ObjectNode obj() {
        return Json.object();
    }
}
