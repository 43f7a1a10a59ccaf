package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.Ids;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.ApiKey;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxEvent;
import dev.paddock.core.store.SandboxRecord;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DurabilityTest {
    @TempDir Path dir;

    @Test
    void everythingSurvivesCloseAndReopen() {
        Path file = dir.resolve("paddock.db");
        SandboxRecord sandbox = TestData.sandbox("tenant-1");
        ApiKey key = new ApiKey(Ids.newId("key"), "tenant-1", "k", "pdk_x", "hash-1", false, TestData.now(), null);
        SandboxRecord running;
        SandboxEvent event;
        Fence taken;
        try (JdbcStore store = JdbcStore.openSqlite(file)) {
            store.sandboxes().insert(sandbox);
            taken = store.sandboxes().takeOver(sandbox.id(), TestData.FENCE, "host-b");
            running = store.sandboxes().transition(sandbox.id(), taken, SandboxState.RUNNING, "started");
            event = store.events().append(sandbox.id(), taken, "started", Map.of("pid", 42));
            store.apiKeys().insert(key);
        }

        try (JdbcStore store = JdbcStore.openSqlite(file)) {
            assertThat(store.sandboxes().find(sandbox.id())).contains(running);
            assertThat(store.sandboxes().find(sandbox.id()).orElseThrow().fence()).isEqualTo(taken);
            assertThat(store.events().list(sandbox.id(), PageRequest.first(10)).data()).containsExactly(event);
            assertThat(store.apiKeys().findActiveByHash("hash-1")).contains(key);
        }
    }

    @Test
    void acknowledgedWritesSurviveSigkillOfTheWritingJvm() throws Exception {
        Path file = dir.resolve("killed.db");
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "--enable-native-access=ALL-UNNAMED", SigkillWriter.class.getName(), file.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        String sandboxId = null;
        List<String> acknowledged = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while (acknowledged.size() < 200 && (line = out.readLine()) != null) {
                if (line.startsWith(SigkillWriter.SANDBOX)) sandboxId = line.substring(SigkillWriter.SANDBOX.length());
                if (line.startsWith(SigkillWriter.ACK)) acknowledged.add(line.substring(SigkillWriter.ACK.length()));
            }
            child.destroyForcibly(); // SIGKILL while it keeps appending
            child.waitFor();
        }
        assertThat(acknowledged).as("the writer must have acknowledged appends before it was killed").hasSize(200);

        try (JdbcStore store = JdbcStore.openSqlite(file)) {
            List<String> stored = store.events().list(sandboxId, new PageRequest(PageRequest.MAX_LIMIT, null, null))
                    .data().stream().map(SandboxEvent::id).toList();
            assertThat(stored).containsSubsequence(acknowledged);
        }
    }
}
