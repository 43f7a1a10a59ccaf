package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.FenceLostException;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxRecord;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Snapshots (named checkpoints, unique per tenant) and a running sandbox's network policy, on both databases. */
@ParameterizedClass
@EnumSource(StoreBackend.class)
class SnapshotNamesAndNetworkTest {
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
    void namesAreUniqueWithinATenantAndUnnamedCheckpointsNeverCollide() {
        SandboxRecord a = TestData.sandbox("tenant-a");
        SandboxRecord b = TestData.sandbox("tenant-b");
        store.sandboxes().insert(a);
        store.sandboxes().insert(b);
        store.checkpoints().insert(checkpoint(a, null));
        store.checkpoints().insert(checkpoint(a, null));
        CheckpointRecord named = checkpoint(a, "base");
        store.checkpoints().insert(named);
        store.checkpoints().insert(checkpoint(b, "base"));

        assertThatThrownBy(() -> store.checkpoints().insert(checkpoint(a, "base")))
                .isInstanceOf(PaddockException.class).extracting(e -> ((PaddockException) e).code()).isEqualTo("duplicate_name");
        assertThat(store.checkpoints().findByName("tenant-a", "base")).contains(named);
        assertThat(store.checkpoints().findByName("tenant-c", "base")).isEmpty();
        assertThat(store.checkpoints().listNamed("tenant-a", PageRequest.first(10)).data()).containsExactly(named);
        assertThat(store.checkpoints().list(a.id(), PageRequest.first(10)).data()).hasSize(3);

        store.checkpoints().delete(named.id());
        assertThat(store.checkpoints().findByName("tenant-a", "base")).isEmpty();
    }

    @Test
    void aCheckpointSaysWhichDirectoryItsArchiveIsIn() {
        SandboxRecord a = TestData.sandbox("tenant-a");
        store.sandboxes().insert(a);
        CheckpointRecord shared = new CheckpointRecord(Ids.newId("cp"), a.id(), a.tenantId(), "workspace_tar", 10, "0".repeat(64),
                TestData.now(), null, "/mnt/shared/checkpoints");
        CheckpointRecord older = checkpoint(a, null);
        store.checkpoints().insert(shared);
        store.checkpoints().insert(older);
        assertThat(store.checkpoints().find(shared.id()).orElseThrow().archiveDir()).isEqualTo("/mnt/shared/checkpoints");
        assertThat(store.checkpoints().find(older.id()).orElseThrow().archiveDir()).isNull();
    }

    @Test
    void theNetworkPolicyOfTheStoredSpecChangesUnderItsFenceOnly() {
        SandboxRecord s = TestData.sandbox("tenant-a");
        store.sandboxes().insert(s);
        NetworkPolicy limited = new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of("api.example.com"), true);

        store.sandboxes().setNetwork(s.id(), TestData.FENCE, limited);
        SandboxRecord changed = store.sandboxes().find(s.id()).orElseThrow();
        assertThat(changed.spec().network()).isEqualTo(limited);
        assertThat(changed.spec().env()).isEqualTo(s.spec().env());
        assertThatThrownBy(() -> store.sandboxes().setNetwork(s.id(), new Fence("host-b", 7), NetworkPolicy.NONE))
                .isInstanceOf(FenceLostException.class);
        assertThat(store.sandboxes().find(s.id()).orElseThrow().spec().network()).isEqualTo(limited);
    }

    private static CheckpointRecord checkpoint(SandboxRecord s, String name) {
        return new CheckpointRecord(Ids.newId("cp"), s.id(), s.tenantId(), "workspace_tar", 10, "0".repeat(64), TestData.now(), name);
    }
}
