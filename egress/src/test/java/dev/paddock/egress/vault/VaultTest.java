package dev.paddock.egress.vault;

import dev.paddock.core.PaddockException;
import dev.paddock.core.egress.SecretMetadata;
import dev.paddock.core.egress.SecretValue;
import dev.paddock.core.egress.StoredSecret;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Base64;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VaultTest {
    static final String SECRET = "ghp_ThisIsTheRealTokenValue1234567890";

    @Test
    void roundTripThroughFilesKeepsOnlyCiphertextAtRest(@TempDir Path data) throws Exception {
        Vault vault = new Vault(new FileSecretRepository(data.resolve("vault")), VaultKey.fromDataDir(data));
        SecretMetadata meta = vault.create("tenant_a", "github-token", SecretValue.of(SECRET));
        assertThat(meta.version()).isEqualTo(1);
        assertThat(vault.reveal("tenant_a", meta.id()).reveal()).isEqualTo(SECRET);

        try (Stream<Path> files = Files.walk(data)) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                String content = Files.readString(p, StandardCharsets.ISO_8859_1);
                assertThat(content).as(p.toString()).doesNotContain(SECRET)
                        .doesNotContain(Base64.getEncoder().encodeToString(SECRET.getBytes(StandardCharsets.UTF_8)));
            }
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve("vault.key")))).isEqualTo("rw-------");

        // a new vault over the same directory and key file reads it back
        Vault reopened = new Vault(new FileSecretRepository(data.resolve("vault")), VaultKey.fromDataDir(data));
        assertThat(reopened.reveal("tenant_a", meta.id()).reveal()).isEqualTo(SECRET);
    }

    @Test
    void aSealedValueOpensOnlyForItsTenantAndOwnerWithTheSameKey() {
        Vault vault = new Vault(new InMemorySecretRepository(), key());
        byte[] sealed = vault.seal("t", "vcrd_a", SecretValue.of(SECRET));
        assertThat(new String(sealed, StandardCharsets.ISO_8859_1)).doesNotContain(SECRET);
        assertThat(vault.seal("t", "vcrd_a", SecretValue.of(SECRET))).as("a fresh nonce each time").isNotEqualTo(sealed);
        assertThat(vault.open("t", "vcrd_a", sealed).reveal()).isEqualTo(SECRET);
        for (Runnable wrong : new Runnable[] {
                () -> vault.open("u", "vcrd_a", sealed),
                () -> vault.open("t", "vcrd_b", sealed),
                () -> new Vault(new InMemorySecretRepository(), otherKey()).open("t", "vcrd_a", sealed),
                () -> vault.open("t", "vcrd_a", new byte[5])}) {
            assertThatThrownBy(wrong::run).isInstanceOfSatisfying(PaddockException.class, e -> {
                assertThat(e.code()).isEqualTo("secret_undecryptable");
                assertThat(e.getMessage()).doesNotContain(SECRET);
            });
        }
    }

    @Test
    void eachValueGetsItsOwnNonce() {
        var repo = new InMemorySecretRepository();
        Vault vault = new Vault(repo, key());
        var a = vault.create("t", "a", SecretValue.of(SECRET));
        var b = vault.create("t", "b", SecretValue.of(SECRET));
        assertThat(repo.get("t", a.id()).orElseThrow().nonce()).hasSize(12).isNotEqualTo(repo.get("t", b.id()).orElseThrow().nonce());
        assertThat(repo.get("t", a.id()).orElseThrow().ciphertext()).isNotEqualTo(repo.get("t", b.id()).orElseThrow().ciphertext());
    }

    @Test
    void rotateReplacesTheValueAndBumpsTheVersion() {
        var repo = new InMemorySecretRepository();
        Vault vault = new Vault(repo, key());
        var meta = vault.create("t", "k", SecretValue.of("old"));
        byte[] oldNonce = repo.get("t", meta.id()).orElseThrow().nonce();
        var rotated = vault.rotate("t", meta.id(), SecretValue.of("new"));
        assertThat(rotated.version()).isEqualTo(2);
        assertThat(rotated.createdAt()).isEqualTo(meta.createdAt());
        assertThat(vault.reveal("t", meta.id()).reveal()).isEqualTo("new");
        assertThat(repo.get("t", meta.id()).orElseThrow().nonce()).isNotEqualTo(oldNonce);
    }

    @Test
    void listShowsMetadataOnlyAndTenantsAreIsolated() {
        var repo = new InMemorySecretRepository();
        Vault vault = new Vault(repo, key());
        var meta = vault.create("tenant_a", "k", SecretValue.of(SECRET));
        assertThat(vault.list("tenant_a")).singleElement().satisfies(m -> assertThat(m.toString()).doesNotContain(SECRET));
        assertThat(vault.list("tenant_b")).isEmpty();
        assertThatThrownBy(() -> vault.reveal("tenant_b", meta.id())).isInstanceOf(PaddockException.class).extracting("code").isEqualTo("not_found");

        // ciphertext copied into another tenant does not decrypt: the tenant is bound as associated data
        StoredSecret s = repo.get("tenant_a", meta.id()).orElseThrow();
        repo.put(new StoredSecret(s.id(), "tenant_b", s.name(), s.nonce(), s.ciphertext(), s.createdAt(), s.updatedAt(), s.version()));
        assertThatThrownBy(() -> vault.reveal("tenant_b", meta.id())).isInstanceOf(PaddockException.class)
                .extracting("code").isEqualTo("secret_undecryptable");
    }

    @Test
    void deleteRemovesAndDuplicateNamesAreRefused() {
        Vault vault = new Vault(new InMemorySecretRepository(), key());
        var meta = vault.create("t", "k", SecretValue.of("v"));
        assertThatThrownBy(() -> vault.create("t", "k", SecretValue.of("v2"))).isInstanceOf(PaddockException.class)
                .extracting("code").isEqualTo("secret_name_taken");
        vault.delete("t", meta.id());
        assertThat(vault.list("t")).isEmpty();
        assertThatThrownBy(() -> vault.delete("t", meta.id())).isInstanceOf(PaddockException.class).extracting("code").isEqualTo("not_found");
    }

    @Test
    void wrongKeyCannotDecryptAndSaysSoWithoutContent() {
        var repo = new InMemorySecretRepository();
        var meta = new Vault(repo, key()).create("t", "k", SecretValue.of(SECRET));
        byte[] other = new byte[32];
        other[0] = 1;
        Vault wrong = new Vault(repo, VaultKey.fromBase64(Base64.getEncoder().encodeToString(other), "test"));
        assertThatThrownBy(() -> wrong.reveal("t", meta.id())).isInstanceOf(PaddockException.class)
                .hasMessageNotContaining(SECRET).extracting("code").isEqualTo("secret_undecryptable");
    }

    @Test
    void badInputGetsClearCodes(@TempDir Path data) throws Exception {
        Vault vault = new Vault(new InMemorySecretRepository(), key());
        assertThatThrownBy(() -> vault.create("bad tenant", "k", SecretValue.of("v"))).extracting("code").isEqualTo("invalid_tenant");
        assertThatThrownBy(() -> vault.create("t", "bad name!", SecretValue.of("v"))).extracting("code").isEqualTo("invalid_secret_name");
        assertThatThrownBy(() -> SecretValue.of("")).extracting("code").isEqualTo("invalid_secret");
        assertThatThrownBy(() -> vault.get("t", "nope")).extracting("code").isEqualTo("invalid_id");
        assertThatThrownBy(() -> VaultKey.fromBase64("c2hvcnQ=", "PADDOCK_VAULT_KEY")).extracting("code").isEqualTo("invalid_vault_key");
        assertThatThrownBy(() -> VaultKey.fromEnvironment("PADDOCK_TEST_UNSET_VARIABLE_42")).extracting("code").isEqualTo("vault_key_missing");

        VaultKey.fromDataDir(data);
        Files.setPosixFilePermissions(data.resolve("vault.key"), PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> VaultKey.fromDataDir(data)).extracting("code").isEqualTo("vault_key_permissions");
    }

    @Test
    void secretsNeverShowInToString() {
        SecretValue v = SecretValue.of(SECRET);
        assertThat(v.toString()).doesNotContain(SECRET);
        assertThat(String.valueOf(key())).doesNotContain("AAAA");
        var s = new StoredSecret("sec_0123456789abcdefghjkmnpqrs", "t", "n", new byte[12], new byte[] {1, 2}, java.time.Instant.EPOCH, java.time.Instant.EPOCH, 1);
        assertThat(s.toString()).doesNotContain("ciphertext").doesNotContain("nonce");
    }

    private static VaultKey otherKey() {
        byte[] raw = new byte[32];
        Arrays.fill(raw, (byte) 1);
        return VaultKey.fromBase64(Base64.getEncoder().encodeToString(raw), "test");
    }

    private static VaultKey key() {
        return VaultKey.fromBase64(Base64.getEncoder().encodeToString(new byte[32]), "test");
    }
}
