package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.ApiKey;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxEvent;
import dev.paddock.core.store.SandboxRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

@ParameterizedClass
@EnumSource(StoreBackend.class)
class RoundTripTest {
    @Parameter StoreBackend backend;
    @TempDir Path dir;
    JdbcStore store;

    @BeforeEach
    void open() {
        store = backend.open(dir.resolve("paddock.db"));
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void sandboxRecordWithEveryFieldSetComesBackEqual() {
        String id = Ids.newId("sbx");
        Instant created = TestData.now().minusSeconds(60);
        SandboxSpec spec = new SandboxSpec(id, "tenant-1", "python-3.12", true, new Limits(1L << 30, 512, 1.5),
                Map.of("LANG", "C.UTF-8", "MODE", "test"),
                new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of("pypi.org", "files.pythonhosted.org"), true));
        SandboxRecord record = new SandboxRecord(id, "tenant-1", "bwrap", SandboxState.RUNNING, spec, new Fence("host-a", 7),
                "bwrap:pid=1234", Duration.ofMinutes(30), Duration.ofMinutes(5), Duration.ofHours(1),
                created, created.plusSeconds(1), created.plusSeconds(2), "started");

        store.sandboxes().insert(record);

        assertThat(store.sandboxes().find(id)).contains(record);
    }

    @Test
    void sandboxRecordWithOptionalFieldsNullComesBackEqual() {
        SandboxRecord record = TestData.sandbox("tenant-1");

        store.sandboxes().insert(record);

        SandboxRecord found = store.sandboxes().find(record.id()).orElseThrow();
        assertThat(found).isEqualTo(record);
        assertThat(found.timeout()).isNull();
        assertThat(found.handle()).isNull();
        assertThat(found.lastActivityAt()).isNull();
    }

    @Test
    void unknownSandboxIsEmpty() {
        assertThat(store.sandboxes().find(Ids.newId("sbx"))).isEmpty();
    }

    @Test
    void insertingTheSameSandboxTwiceIsAConflict() {
        SandboxRecord record = TestData.sandbox("tenant-1");
        store.sandboxes().insert(record);

        assertThatThrownBy(() -> store.sandboxes().insert(record))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("sandbox_exists"));
    }

    @Test
    void specNamingAnotherTenantIsRefused() {
        String id = Ids.newId("sbx");
        Instant at = TestData.now();
        SandboxRecord record = new SandboxRecord(id, "tenant-1", "bwrap", SandboxState.CREATING,
                SandboxSpec.defaults(id, "tenant-2"), TestData.FENCE, null, null, null, null, at, at, null, null);

        assertThatThrownBy(() -> store.sandboxes().insert(record))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("spec_mismatch"));
        assertThat(store.sandboxes().find(id)).isEmpty();
    }

    @Test
    void setHandleAndTouchAreStored() {
        SandboxRecord record = TestData.sandbox("tenant-1");
        store.sandboxes().insert(record);
        Instant later = record.createdAt().plusSeconds(10);

        store.sandboxes().setHandle(record.id(), TestData.FENCE, "cgroup:/paddock/x");
        store.sandboxes().touch(record.id(), TestData.FENCE, later);
        store.sandboxes().touch(record.id(), TestData.FENCE, later.minusSeconds(5)); // late arrival: ignored

        SandboxRecord found = store.sandboxes().find(record.id()).orElseThrow();
        assertThat(found.handle()).isEqualTo("cgroup:/paddock/x");
        assertThat(found.lastActivityAt()).isEqualTo(later);
    }

    @Test
    void eventRoundTripKeepsNestedData() {
        SandboxRecord sandbox = TestData.sandbox("tenant-1");
        store.sandboxes().insert(sandbox);
        Map<String, Object> data = Map.of("exit_code", 0, "argv", List.of("ls", "-la"), "ok", true,
                "nested", Map.of("bytes", 1234567890123L, "ratio", 0.5));

        SandboxEvent appended = store.events().append(sandbox.id(), TestData.FENCE, "exec.finished", data);

        assertThat(appended.id()).startsWith("evt_");
        assertThat(appended.tenantId()).isEqualTo("tenant-1");
        assertThat(appended.data()).isEqualTo(data);
        assertThat(store.events().list(sandbox.id(), PageRequest.first(10)).data()).containsExactly(appended);
    }

    @Test
    void eventWithoutDataStoresAnEmptyMap() {
        SandboxRecord sandbox = TestData.sandbox("tenant-1");
        store.sandboxes().insert(sandbox);

        SandboxEvent appended = store.events().append(sandbox.id(), TestData.FENCE, "created", null);

        assertThat(appended.data()).isEmpty();
        assertThat(store.events().list(sandbox.id(), PageRequest.first(10)).data()).containsExactly(appended);
    }

    @Test
    void eventDataThatIsNotJsonIsRefusedAndNothingIsWritten() {
        SandboxRecord sandbox = TestData.sandbox("tenant-1");
        store.sandboxes().insert(sandbox);

        assertThatThrownBy(() -> store.events().append(sandbox.id(), TestData.FENCE, "odd", Map.of("self", new Object())))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("invalid_event_data"));
        assertThat(store.events().list(sandbox.id(), PageRequest.first(10)).data()).isEmpty();
    }

    @Test
    void checkpointRoundTripFindListDelete() {
        SandboxRecord sandbox = TestData.sandbox("tenant-1");
        store.sandboxes().insert(sandbox);
        CheckpointRecord cp = new CheckpointRecord(Ids.newId("cp"), sandbox.id(), "tenant-1", "workspace_tar", 4096,
                "a".repeat(64), TestData.now());

        store.checkpoints().insert(cp);

        assertThat(store.checkpoints().find(cp.id())).contains(cp);
        assertThat(store.checkpoints().list(sandbox.id(), PageRequest.first(10)).data()).containsExactly(cp);
        store.checkpoints().delete(cp.id());
        assertThat(store.checkpoints().find(cp.id())).isEmpty();
        assertThatThrownBy(() -> store.checkpoints().delete(cp.id()))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("not_found"));
    }

    @Test
    void checkpointOfUnknownSandboxOrOtherTenantIsRefused() {
        SandboxRecord sandbox = TestData.sandbox("tenant-1");
        store.sandboxes().insert(sandbox);
        String missing = Ids.newId("sbx");

        assertThatThrownBy(() -> store.checkpoints().insert(new CheckpointRecord(Ids.newId("cp"), missing, "tenant-1",
                "workspace_tar", 1, "b".repeat(64), TestData.now())))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("not_found"));
        assertThatThrownBy(() -> store.checkpoints().insert(new CheckpointRecord(Ids.newId("cp"), sandbox.id(), "tenant-2",
                "workspace_tar", 1, "b".repeat(64), TestData.now())))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("tenant_mismatch"));
    }

    @Test
    void apiKeyRoundTripFindRevokeCount() {
        ApiKey key = new ApiKey(Ids.newId("key"), "tenant-1", "ci", "pdk_abc", "sha256:" + "c".repeat(64), true,
                TestData.now(), null);

        store.apiKeys().insert(key);

        assertThat(store.apiKeys().findActiveByHash(key.secretHash())).contains(key);
        assertThat(store.apiKeys().list("tenant-1")).containsExactly(key);
        assertThat(store.apiKeys().list("tenant-2")).isEmpty();
        assertThat(store.apiKeys().count()).isEqualTo(1);

        store.apiKeys().revoke(key.id());

        assertThat(store.apiKeys().findActiveByHash(key.secretHash())).isEmpty();
        ApiKey revoked = store.apiKeys().list("tenant-1").getFirst();
        assertThat(revoked.revokedAt()).isNotNull();
        store.apiKeys().revoke(key.id()); // again: keeps the first revocation time
        assertThat(store.apiKeys().list("tenant-1").getFirst().revokedAt()).isEqualTo(revoked.revokedAt());
        assertThat(store.apiKeys().count()).isEqualTo(1);
    }

    @Test
    void apiKeyHashIsUniqueAndNotEchoed() {
        String hash = "sha256:" + "d".repeat(64);
        store.apiKeys().insert(new ApiKey(Ids.newId("key"), "tenant-1", "one", "pdk_1", hash, false, TestData.now(), null));

        assertThatThrownBy(() -> store.apiKeys().insert(
                new ApiKey(Ids.newId("key"), "tenant-2", "two", "pdk_2", hash, false, TestData.now(), null)))
                .isInstanceOfSatisfying(PaddockException.class, e -> {
                    assertThat(e.code()).isEqualTo("api_key_exists");
                    assertThat(e.getMessage()).doesNotContain(hash);
                });
        assertThat(store.apiKeys().count()).isEqualTo(1);
    }

    @Test
    void revokingAnUnknownKeyIsNotFound() {
        assertThatThrownBy(() -> store.apiKeys().revoke(Ids.newId("key")))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("not_found"));
    }

    @Test
    void closedStoreRefusesCallsClearly() {
        store.close();

        assertThatThrownBy(() -> store.sandboxes().find(Ids.newId("sbx")))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("store_closed"));
        assertThatThrownBy(() -> store.sandboxes().insert(TestData.sandbox("t")))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("store_closed"));
    }
}
