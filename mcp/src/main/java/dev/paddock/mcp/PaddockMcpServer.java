package dev.paddock.mcp;

import dev.paddock.browser.BrowserService;
import dev.paddock.host.RuntimeHost;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.json.JsonMapper;

/** Paddock's MCP server: the sandbox tools, the agent toolset and the browser tools, for the tenant of each request's API key. */
public final class PaddockMcpServer {
    public static final String NAME = "paddock";
    static final McpJsonMapper MAPPER = new JacksonMcpJsonMapper(JsonMapper.builder().build());

    private PaddockMcpServer() {}

    /** Every tool's specification: sandbox tools first, then the toolset, then the browser. */
    static List<SyncToolSpecification> tools(RuntimeHost host, BrowserService browser) {
        List<SyncToolSpecification> all = new ArrayList<>(new SandboxTools(host).specifications());
        all.addAll(new ToolsetTools(host).specifications());
        all.addAll(new BrowserTools(host, browser).specifications());
        return all;
    }

    static McpSyncServer create(McpStreamableServerTransportProvider transport, RuntimeHost host, BrowserService browser, String version) {
        return McpServer.sync(transport)
                .serverInfo(NAME, version)
                .instructions("Paddock sandboxes: create_sandbox gives an isolated Linux environment with a /workspace "
                        + "directory; run commands there with bash or exec, and use the file tools on /workspace. "
                        + "For web pages, create_browser_sandbox gives a Chromium browser to drive with browser_action "
                        + "(one step at a time) or browser_script (a whole Playwright script). "
                        + "Delete sandboxes you no longer need.")
                .capabilities(ServerCapabilities.builder().tools(false).build())
                .jsonMapper(MAPPER)
                // arguments are validated by each tool, which answers with a message the model can act on
                .validateToolInputs(false)
                // run handlers on the request's (virtual) thread rather than a shared scheduler
                .immediateExecution(true)
                .tools(tools(host, browser))
                .build();
    }
}
