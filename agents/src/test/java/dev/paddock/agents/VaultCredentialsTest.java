package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.access.Principal;
import dev.paddock.agents.mcp.McpCredentialSource;
import dev.paddock.core.PaddockException;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.store.PageRequest;
import dev.paddock.egress.vault.Vault;
import dev.paddock.egress.vault.VaultKey;
import dev.paddock.store.JdbcStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Vault credentials on a real SQLite store with the real vault cipher: the token is sealed, never answered, found
 * for its MCP server by URL, bound to its row, and every bad body is refused with its code and without quoting it.
 */
class VaultCredentialsTest {
    static final String TOKEN = "tok-9f8e7d6c5b4a";
    final Principal caller = new Principal("default", "key_test", false);
    final Principal other = new Principal("other", "key_other", false);
    Path dir;
    JdbcStore store;
    VaultService vaults;
    VaultCredentialService credentials;

    @BeforeEach
    void open() throws IOException {
        dir = Files.createTempDirectory("paddock-vaults-test");
        store = JdbcStore.openSqlite(dir.resolve("paddock.db"));
        vaults = new VaultService(store.agents().resources(), Clock.systemUTC());
        credentials = new VaultCredentialService(store.agents().resources(), vaults, new Vault(store.secrets(), VaultKey.fromDataDir(dir)), Clock.systemUTC());
    }

    @AfterEach
    void close() throws IOException {
        store.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    String vault() {
        return (String) vaults.create(caller, Map.of("display_name", "team")).get("id");
    }

    Map<String, Object> bearer(String vault, String token, String url) {
        return credentials.create(caller, vault, Map.of("display_name", "docs", "auth", Map.of("type", "static_bearer", "token", token, "mcp_server_url", url)));
    }

    static String code(Runnable r) {
        try {
            r.run();
        } catch (PaddockException e) {
            assertThat(e.getMessage()).doesNotContain(TOKEN);
            return e.code();
        }
        throw new AssertionError("not refused");
    }

    @Test
    void theTokenIsSealedNeverAnsweredAndFoundByItsServersUrl() {
        String v = vault();
        Map<String, Object> created = bearer(v, TOKEN, "https://docs.example.com/mcp");
        String id = (String) created.get("id");
        assertThat(created).containsEntry("type", "vault_credential").containsEntry("vault_id", v).containsEntry("display_name", "docs");
        assertThat(created.get("auth")).isEqualTo(Map.of("type", "static_bearer", "mcp_server_url", "https://docs.example.com/mcp"));
        assertThat(created.toString()).doesNotContain(TOKEN);
        assertThat(credentials.get(caller, v, id).toString()).doesNotContain(TOKEN);
        assertThat(credentials.list(caller, v, new PageRequest(10, null, null), false).toWire().toString()).doesNotContain(TOKEN);
        Resource row = store.agents().resources().find(VaultCredentialService.KIND, "default", id).orElseThrow();
        assertThat(row.body().toString()).doesNotContain(TOKEN);
        assertThat(row.aux()).isNotBlank().doesNotContain(TOKEN);

        // the same URL up to case, default port and a trailing slash
        Optional<McpCredentialSource.Token> found = credentials.forMcpServer("default", List.of(v), "https://DOCS.example.com:443/mcp/");
        assertThat(found).isPresent();
        assertThat(found.get().value().reveal()).isEqualTo(TOKEN);
        assertThat(found.get().toString()).doesNotContain(TOKEN);
        assertThat(credentials.forMcpServer("default", List.of(v), "https://docs.example.com/other")).isEmpty();
        assertThat(credentials.forMcpServer("other", List.of(v), "https://docs.example.com/mcp")).as("another tenant's").isEmpty();
    }

    @Test
    void theFirstVaultThatHoldsACredentialWinsAndArchivedOnesAreSkipped() {
        String first = vault();
        String second = vault();
        bearer(first, "first-token", "https://docs.example.com/mcp");
        String secondId = (String) bearer(second, "second-token", "https://docs.example.com/mcp").get("id");
        assertThat(credentials.forMcpServer("default", List.of(first, second), "https://docs.example.com/mcp").orElseThrow().value().reveal())
                .isEqualTo("first-token");
        vaults.archive(caller, first);
        assertThat(credentials.forMcpServer("default", List.of(first, second), "https://docs.example.com/mcp").orElseThrow().credentialId())
                .isEqualTo(secondId);
        assertThat(code(() -> vaults.requireUsable(caller, List.of(first)))).isEqualTo("vault_archived");
        credentials.archive(caller, second, secondId);
        assertThat(credentials.forMcpServer("default", List.of(first, second), "https://docs.example.com/mcp")).isEmpty();
        assertThat(store.agents().resources().find(VaultCredentialService.KIND, "default", secondId).orElseThrow().aux())
                .as("an archived credential keeps no token").isNull();
    }

    @Test
    void oneLiveCredentialPerUrlAndVaultAndANewTokenReplacesTheOld() {
        String v = vault();
        String id = (String) bearer(v, TOKEN, "https://docs.example.com/mcp").get("id");
        assertThat(code(() -> bearer(v, "x-token", "https://docs.example.com/mcp/"))).isEqualTo("duplicate_credential");
        Map<String, Object> updated = credentials.update(caller, v, id, Map.of("auth", Map.of("type", "static_bearer", "token", "rotated-token"),
                "metadata", Map.of("team", "docs")));
        assertThat(updated.toString()).doesNotContain("rotated-token");
        assertThat(updated.get("metadata")).isEqualTo(Map.of("team", "docs"));
        assertThat(credentials.forMcpServer("default", List.of(v), "https://docs.example.com/mcp").orElseThrow().value().reveal()).isEqualTo("rotated-token");
        credentials.archive(caller, v, id);
        assertThat(code(() -> credentials.update(caller, v, id, Map.of("display_name", "x")))).isEqualTo("credential_archived");
        bearer(v, "fresh-token", "https://docs.example.com/mcp");
    }

    @Test
    void aSealedTokenOpensOnlyInItsOwnRow() {
        String v = vault();
        String a = (String) bearer(v, TOKEN, "https://a.example.com/mcp").get("id");
        String b = (String) bearer(v, "b-token", "https://b.example.com/mcp").get("id");
        var rows = store.agents().resources();
        Resource rowA = rows.find(VaultCredentialService.KIND, "default", a).orElseThrow();
        Resource rowB = rows.find(VaultCredentialService.KIND, "default", b).orElseThrow();
        rows.update(rowB.withAux(rowA.aux()));
        assertThat(code(() -> credentials.forMcpServer("default", List.of(v), "https://b.example.com/mcp"))).isEqualTo("secret_undecryptable");
    }

    @Test
    void badCredentialBodiesAreRefusedWithTheirCodeWithoutQuotingTheSecret() {
        String v = vault();
        Map<String, String> codes = new HashMap<>();
        codes.put("missing auth", code(() -> credentials.create(caller, v, Map.of())));
        codes.put("env var", code(() -> credentials.create(caller, v, Map.of("auth", Map.of("type", "environment_variable", "secret_name", "X",
                "secret_value", TOKEN, "networking", Map.of("type", "unrestricted"))))));
        codes.put("refresh", code(() -> credentials.create(caller, v, Map.of("auth", Map.of("type", "mcp_oauth", "access_token", TOKEN,
                "mcp_server_url", "https://a.example.com", "refresh", Map.of("client_id", "c"))))));
        codes.put("past expiry", code(() -> credentials.create(caller, v, Map.of("auth", Map.of("type", "mcp_oauth", "access_token", TOKEN,
                "mcp_server_url", "https://a.example.com", "expires_at", "2001-01-01T00:00:00Z")))));
        codes.put("newline", code(() -> bearer(v, TOKEN + "\nX-Injected: 1", "https://a.example.com")));
        codes.put("not a url", code(() -> bearer(v, TOKEN, "ftp://a.example.com")));
        codes.put("user info", code(() -> bearer(v, TOKEN, "https://user:" + TOKEN + "@a.example.com")));
        codes.put("unknown type", code(() -> credentials.create(caller, v, Map.of("auth", Map.of("type", "basic", "token", TOKEN)))));
        codes.put("unknown field", code(() -> credentials.create(caller, v, Map.of("auth", Map.of("type", "static_bearer", "token", TOKEN,
                "mcp_server_url", "https://a.example.com", "header", "X")))));
        String id = (String) bearer(v, TOKEN, "https://a.example.com/mcp").get("id");
        codes.put("type change", code(() -> credentials.update(caller, v, id, Map.of("auth", Map.of("type", "mcp_oauth", "access_token", TOKEN)))));
        codes.put("url change", code(() -> credentials.update(caller, v, id, Map.of("auth", Map.of("type", "static_bearer",
                "mcp_server_url", "https://b.example.com")))));
        codes.put("other tenant", code(() -> credentials.get(other, v, id)));
        codes.put("no display name", code(() -> vaults.create(caller, Map.of())));
        codes.put("bad vault id", code(() -> vaults.get(caller, "agent_123")));
        assertThat(codes).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                Map.entry("missing auth", "missing_field"),
                Map.entry("env var", "credential_type_not_supported"),
                Map.entry("refresh", "oauth_refresh_not_supported"),
                Map.entry("past expiry", "invalid_field"),
                Map.entry("newline", "invalid_field"),
                Map.entry("not a url", "invalid_field"),
                Map.entry("user info", "invalid_field"),
                Map.entry("unknown type", "invalid_field"),
                Map.entry("unknown field", "unknown_field"),
                Map.entry("type change", "credential_type_mismatch"),
                Map.entry("url change", "unknown_field"),
                Map.entry("other tenant", "not_found"),
                Map.entry("no display name", "missing_field"),
                Map.entry("bad vault id", "invalid_id")));
    }

    @Test
    void withoutAVaultKeyNoCredentialIsStored() {
        VaultCredentialService keyless = new VaultCredentialService(store.agents().resources(), vaults, null, Clock.systemUTC());
        String v = vault();
        assertThatThrownBy(() -> keyless.create(caller, v, Map.of("auth", Map.of("type", "static_bearer", "token", TOKEN,
                "mcp_server_url", "https://a.example.com"))))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("vault_unavailable"));
    }

    @Test
    void deletingAVaultDeletesItsCredentialsAndListsPage() {
        String v = vault();
        String a = (String) bearer(v, TOKEN, "https://a.example.com/mcp").get("id");
        bearer(v, TOKEN, "https://b.example.com/mcp");
        ListResult page = credentials.list(caller, v, new PageRequest(1, null, null), false);
        assertThat(page.data()).hasSize(1);
        assertThat(page.hasMore()).isTrue();
        assertThat(vaults.delete(caller, v, credentials)).isEqualTo(Map.of("id", v, "type", "vault_deleted"));
        assertThat(store.agents().resources().find(VaultCredentialService.KIND, "default", a)).isEmpty();
        assertThat(code(() -> vaults.get(caller, v))).isEqualTo("not_found");
    }
}
