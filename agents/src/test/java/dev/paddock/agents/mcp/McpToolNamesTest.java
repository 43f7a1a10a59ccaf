package dev.paddock.agents.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** MCP tools' names toward the model: namespaced by server, within the API's alphabet and length, stable. */
class McpToolNamesTest {
    @Test
    void namesAreNamespacedByServer() {
        assertThat(McpToolNames.qualified("glossary", "lookup")).isEqualTo("mcp__glossary__lookup");
        assertThat(McpToolNames.isQualified("mcp__glossary__lookup")).isTrue();
        assertThat(McpToolNames.isQualified("lookup")).isFalse();
    }

    @Test
    void charactersTheApiRefusesBecomeUnderscores() {
        assertThat(McpToolNames.qualified("my docs", "search.pages/v2")).isEqualTo("mcp__my_docs__search_pages_v2").matches("[a-zA-Z0-9_-]{1,64}");
    }

    @Test
    void longNamesAreCutToTheLimitAndStayDistinctAndStable() {
        String a = McpToolNames.qualified("a-server-with-a-rather-long-name", "a-tool-whose-name-goes-on-and-on-1");
        String b = McpToolNames.qualified("a-server-with-a-rather-long-name", "a-tool-whose-name-goes-on-and-on-2");
        assertThat(a).hasSize(McpToolNames.MAX).matches("[a-zA-Z0-9_-]+").isNotEqualTo(b);
        assertThat(McpToolNames.qualified("a-server-with-a-rather-long-name", "a-tool-whose-name-goes-on-and-on-1")).isEqualTo(a);
    }
}
