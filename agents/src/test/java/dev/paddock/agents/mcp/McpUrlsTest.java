package dev.paddock.agents.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How a credential's URL is matched to an MCP server's: equal up to case of scheme and host, default port, trailing slash. */
class McpUrlsTest {
    @Test
    void equivalentSpellingsMatch() {
        String key = McpUrls.matchKey("https://docs.example.com/mcp");
        assertThat(McpUrls.matchKey("HTTPS://Docs.Example.com:443/mcp/")).isEqualTo(key);
        assertThat(McpUrls.matchKey("http://docs.example.com:80/mcp")).isEqualTo(McpUrls.matchKey("http://docs.example.com/mcp"));
    }

    @Test
    void differentServersDoNotMatch() {
        String key = McpUrls.matchKey("https://docs.example.com/mcp");
        assertThat(McpUrls.matchKey("http://docs.example.com/mcp")).isNotEqualTo(key);
        assertThat(McpUrls.matchKey("https://docs.example.com:8443/mcp")).isNotEqualTo(key);
        assertThat(McpUrls.matchKey("https://docs.example.com/MCP")).isNotEqualTo(key);
        assertThat(McpUrls.matchKey("https://docs.example.com/mcp?team=a")).isNotEqualTo(key);
    }

    @Test
    void onlyAbsoluteHttpUrlsWithAHostAndNoUserInfoAreUsable() {
        assertThat(McpUrls.parse("ftp://docs.example.com")).isEmpty();
        assertThat(McpUrls.parse("/mcp")).isEmpty();
        assertThat(McpUrls.parse("https://user:pw@docs.example.com/mcp")).isEmpty();
        assertThat(McpUrls.parse("https://docs.example.com/mcp#frag")).isEmpty();
        assertThat(McpUrls.matchKey("not a url")).isNull();
    }
}
