package dev.paddock.mcp;

import static dev.paddock.mcp.McpScenario.call;
import static dev.paddock.mcp.McpScenario.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.access.Principal;
import dev.paddock.core.PaddockException;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.host.SandboxRequest;
import dev.paddock.host.SandboxTemplate;
import io.modelcontextprotocol.client.McpSyncClient;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** delete_sandbox leaves the kind's purge default to the host: a kind that purges on delete loses its files unless purge is false. */
class McpSandboxKindTest {
    private static final Principal ALICE = new Principal("tenant-alice", null, false);
    @TempDir Path dataDir;
    final List<String> ended = new CopyOnWriteArrayList<>();
    McpTestServer server;

    @BeforeEach
    void start() {
        server = new McpTestServer(dataDir, new SandboxTemplate() {
            @Override public String name() { return "tidy"; }
            @Override public SandboxRequest apply(SandboxRequest request) { return request; }
            @Override public boolean purgesOnDelete() { return true; }
            @Override public void onDeleted(SandboxRecord sandbox, boolean purged) { ended.add(sandbox.id() + " purged=" + purged); }
        });
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void deleteSandboxPurgesAKindThatPurgesUnlessPurgeIsFalse() {
        SandboxRecord purged = withFile();
        SandboxRecord kept = withFile();
        try (McpSyncClient client = server.httpClient(server.aliceKey)) {
            client.initialize();
            assertThat(json(call(client, "list_sandboxes", Map.of())).get("data").get(0).get("template").asString()).isEqualTo("tidy");
            call(client, "delete_sandbox", Map.of("sandbox_id", purged.id()));
            call(client, "delete_sandbox", Map.of("sandbox_id", kept.id(), "purge", false));
        }
        assertThatThrownBy(() -> server.host.workspace(ALICE, purged.id()).stat("result.txt")).isInstanceOf(PaddockException.class);
        assertThat(server.host.workspace(ALICE, kept.id()).stat("result.txt")).isNotNull();
        assertThat(ended).containsExactly(purged.id() + " purged=false", purged.id() + " purged=true", kept.id() + " purged=false");
    }

    private SandboxRecord withFile() {
        SandboxRecord r = server.host.create(ALICE, SandboxRequest.defaults().withTemplate("tidy"));
        server.host.workspace(ALICE, r.id()).write("result.txt", new ByteArrayInputStream(new byte[] {1}));
        return r;
    }
}
