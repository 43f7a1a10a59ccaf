package dev.paddock.server.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.testing.ScriptedModel;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The official TypeScript SDK against Paddock: {@code client.beta.vaults} and {@code vaults.credentials} (create,
 * update, retrieve, validate, list, archive, delete), then a session created with {@code vault_ids} whose agent's MCP tool the
 * server calls with the vault's token.
 */
class TypescriptVaultsTest {
    static final String TOKEN = "ts-mcp-token-4Hk8Pq1Zw";
    static ScriptedModel model;
    static AgentsStack stack;
    static BearerMcpServer mcp;

    @BeforeAll
    static void start() throws Exception {
        mcp = new BearerMcpServer(TOKEN);
        model = new ScriptedModel(results -> switch (results) {
            case 0 -> List.of(toolUse("toolu_1", "mcp__glossary__lookup", Map.of("q", "vaults")));
            default -> List.of(text("Done."));
        });
        stack = new AgentsStack(AgentsConfig.defaults().withModel(model.baseUrl(), "k"), true);
    }

    @AfterAll
    static void stop() throws Exception {
        stack.close();
        model.close();
        mcp.close();
    }

    @Test
    void typescriptSdkManagesVaultsAndASessionUsesThem() throws Exception {
        // the script runs from a directory of its own that sees the SDK's node_modules, so the SDK's directory stays as installed
        Path sdk = NodeSdk.dir();
        Path dir = Files.createTempDirectory("paddock-ts-vaults");
        Files.createSymbolicLink(dir.resolve("node_modules"), sdk.resolve("node_modules"));
        Path script = dir.resolve("ts-vaults.mjs");
        try (InputStream in = getClass().getResourceAsStream("/agents/ts-vaults.mjs")) {
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
        }
        ProcessBuilder pb = new ProcessBuilder("node", script.toString()).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put("PADDOCK_BASE_URL", stack.baseUrl);
        pb.environment().put("PADDOCK_API_KEY", stack.apiKey);
        pb.environment().put("MCP_URL", mcp.url());
        pb.environment().put("MCP_TOKEN", TOKEN);
        Process node = pb.start();
        String out;
        try (InputStream in = node.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(node.waitFor(120, TimeUnit.SECONDS)).isTrue();
        Files.delete(script);
        Files.delete(dir.resolve("node_modules"));
        Files.delete(dir);
        assertThat(node.exitValue()).as(out).isZero();
        List<String> lines = out.lines().filter(l -> l.startsWith("{")).toList();
        assertThat(lines).as(out).isNotEmpty();
        JsonNode r = Rest.JSON.readTree(lines.getLast());

        String vault = r.get("vault").get("id").asString();
        assertThat(vault).startsWith("vlt_");
        assertThat(r.get("vault").get("type").asString()).isEqualTo("vault");
        assertThat(r.get("renamed").get("display_name").asString()).isEqualTo("renamed vault");
        assertThat(r.get("renamed").get("metadata").toString()).isEqualTo("{\"owner\":\"ts\"}");
        JsonNode credential = r.get("credential");
        assertThat(credential.get("id").asString()).startsWith("vcrd_");
        assertThat(credential.get("vault_id").asString()).isEqualTo(vault);
        assertThat(credential.get("auth").toString()).isEqualTo("{\"type\":\"static_bearer\",\"mcp_server_url\":\"" + mcp.url() + "\"}");
        assertThat(r.get("retrieved").get("id").asString()).isEqualTo(credential.get("id").asString());
        assertThat(r.get("validation").get("status").asString()).isEqualTo("valid");
        assertThat(r.get("validation").get("credential_id").asString()).isEqualTo(credential.get("id").asString());
        assertThat(r.get("vaultIds").toString()).contains(vault);
        assertThat(r.get("credentialIds").toString()).isEqualTo("[\"" + credential.get("id").asString() + "\"]");
        assertThat(r.get("sessionVaultIds").toString()).isEqualTo("[\"" + vault + "\"]");

        List<String> types = new ArrayList<>();
        for (JsonNode e : r.get("events")) types.add(e.get("type").asString());
        assertThat(types).containsSubsequence("user.message", "agent.mcp_tool_use", "agent.mcp_tool_result", "agent.message", "session.status_idle");
        JsonNode result = null;
        for (JsonNode e : r.get("events")) if (e.get("type").asString().equals("agent.mcp_tool_result")) result = e;
        assertThat(result.get("content").get(0).get("text").asString()).isEqualTo("definition of vaults");
        assertThat(mcp.authorizations).contains("Bearer " + TOKEN);

        assertThat(r.get("archivedCredential").get("archived_at").isNull()).isFalse();
        assertThat(r.get("archivedVault").get("archived_at").isNull()).isFalse();
        assertThat(r.get("deleted").toString()).isEqualTo("{\"id\":\"" + vault + "\",\"type\":\"vault_deleted\"}");
        assertThat(r.get("afterDelete").asString()).isEqualTo("not_found");
        // everything the SDK got back, the token included nowhere
        assertThat(out).doesNotContain(TOKEN);
    }
}
