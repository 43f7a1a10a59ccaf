package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import dev.paddock.core.egress.EgressAuditEntry;
import dev.paddock.core.egress.EgressAuditRecord;
import dev.paddock.core.egress.EgressDecision;
import dev.paddock.core.egress.SecretValue;
import dev.paddock.core.store.PageRequest;
import dev.paddock.egress.vault.Vault;
import dev.paddock.egress.vault.VaultKey;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

@ParameterizedClass
@EnumSource(StoreBackend.class)
class EgressStoreTest {
    @Parameter StoreBackend backend;
    @TempDir Path dir;

    @Test
    void auditRecordsRoundTripPageInOrderAndOutliveTheStore() {
        Path file = dir.resolve("paddock.db");
        try (JdbcStore store = backend.open(file)) {
            for (int i = 0; i < 5; i++) store.egressAudit().record(record("sbx_a", "h" + i + ".example.com", i));
            store.egressAudit().record(record("sbx_b", "other.example.com", 9));
        }
        try (JdbcStore store = backend.open(file)) {
            var first = store.egressAudit().list("sbx_a", PageRequest.first(3));
            assertThat(first.data()).extracting(e -> e.record().host()).containsExactly("h0.example.com", "h1.example.com", "h2.example.com");
            assertThat(first.hasMore()).isTrue();
            var rest = store.egressAudit().list("sbx_a", new PageRequest(10, first.lastId(), null));
            assertThat(rest.data()).extracting(e -> e.record().host()).containsExactly("h3.example.com", "h4.example.com");
            assertThat(rest.hasMore()).isFalse();

            EgressAuditEntry e = first.data().getFirst();
            assertThat(e.id()).startsWith("egr_");
            EgressAuditRecord r = e.record();
            assertThat(r.resolvedAddress()).isEqualTo("93.184.216.34");
            assertThat(r.decision()).isEqualTo(EgressDecision.DENIED);
            assertThat(r.rule()).isEqualTo("host_not_allowed");
            assertThat(r.bytesUp()).isEqualTo(10);
            assertThat(r.duration()).isEqualTo(Duration.ofMillis(12));
            assertThat(r.injectedSecrets()).containsExactly("sec_0123456789abcdefghjkmnpqrs");

            assertThat(store.egressAudit().list("sbx_b", PageRequest.first(10)).data()).hasSize(1);
            assertThatThrownBy(() -> store.egressAudit().list("sbx_b", new PageRequest(10, e.id(), null)))
                    .isInstanceOf(PaddockException.class).hasMessageContaining("not an egress record of sandbox sbx_b");
        }
    }

    @Test
    void vaultKeepsOnlyCiphertextAndScopesByTenant() throws Exception {
        Path file = dir.resolve("paddock.db");
        String value = "stored-vault-secret-7f3a9c";
        try (JdbcStore store = backend.open(file)) {
            Vault vault = new Vault(store.secrets(), VaultKey.fromDataDir(dir));
            var created = vault.create("tenant_a", "openai", SecretValue.of(value));
            assertThat(vault.list("tenant_a")).extracting(m -> m.name()).containsExactly("openai");
            assertThat(vault.list("tenant_b")).isEmpty();
            assertThatThrownBy(() -> vault.reveal("tenant_b", created.id())).isInstanceOf(PaddockException.class);
            assertThatThrownBy(() -> vault.create("tenant_a", "openai", SecretValue.of("x"))).hasMessageContaining("already exists");

            var rotated = vault.rotate("tenant_a", created.id(), SecretValue.of(value + "-2"));
            assertThat(rotated.version()).isEqualTo(2);
            assertThat(vault.reveal("tenant_a", created.id()).reveal()).isEqualTo(value + "-2");
            assertThat(vault.list("tenant_a")).hasSize(1);
        }
        assertThat(backend.rawContent(file, "vault_secrets")).doesNotContain(value);
        try (JdbcStore store = backend.open(file)) {
            Vault vault = new Vault(store.secrets(), VaultKey.fromDataDir(dir));
            String id = vault.list("tenant_a").getFirst().id();
            assertThat(vault.reveal("tenant_a", id).reveal()).isEqualTo(value + "-2");
            vault.delete("tenant_a", id);
            assertThat(vault.list("tenant_a")).isEmpty();
        }
    }

    private static EgressAuditRecord record(String sandboxId, String host, int i) {
        return new EgressAuditRecord(sandboxId, Instant.now(), host, "93.184.216.34", 443, "CONNECT", null, "connect_tunnel",
                EgressDecision.DENIED, "host_not_allowed", 403, 10, 20 + i, Duration.ofMillis(12),
                List.of("sec_0123456789abcdefghjkmnpqrs"), List.of());
    }
}
