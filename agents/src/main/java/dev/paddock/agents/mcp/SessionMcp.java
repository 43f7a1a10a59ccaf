package dev.paddock.agents.mcp;

import dev.paddock.agents.Agent;
import dev.paddock.agents.AgentTool;
import dev.paddock.agents.loop.ModelGateway;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One session's MCP servers: the connections its loop keeps open (one per server, made on first use and reused for
 * every later turn), and the tools it offers the model under {@link McpToolNames qualified names} with each tool's
 * permission policy. A server that failed is dropped, so the next turn connects afresh.
 */
public final class SessionMcp implements AutoCloseable {
    /** A tool offered to the model: its server, its own name there, and whether each call waits for the user. */
    public record OfferedTool(String qualifiedName, String serverName, String toolName, boolean asksFirst) {}

    /** The tools offered for a turn, as the model gets them, and their settings by qualified name. */
    public record Offer(List<ModelGateway.ToolSpec> specs, Map<String, OfferedTool> tools) {}

    private final String tenantId;
    private final McpConnector connector;
    private final McpCredentialSource credentials;
    private final Clock clock;
    private final Map<String, McpServerConnection> connections = new ConcurrentHashMap<>();
    private final Map<String, OfferedTool> offered = new ConcurrentHashMap<>();
    private volatile boolean closed;

    SessionMcp(String tenantId, McpConnector connector, McpCredentialSource credentials, Clock clock) {
        this.tenantId = tenantId;
        this.connector = connector;
        this.credentials = credentials;
        this.clock = clock;
    }

    /**
     * Connects to each server the agent has an {@code mcp_toolset} for (those not yet connected) and lists the
     * enabled tools to offer; an {@link McpFailure} names the first server that could not be used.
     */
    public Offer offer(Agent agent, List<String> vaultIds) {
        List<ModelGateway.ToolSpec> specs = new ArrayList<>();
        Map<String, OfferedTool> tools = new LinkedHashMap<>();
        for (AgentTool t : agent.tools()) {
            if (!(t instanceof AgentTool.McpToolset toolset)) continue;
            Agent.McpServer server = agent.mcpServers().stream().filter(s -> s.name().equals(toolset.serverName())).findFirst().orElse(null);
            if (server == null) continue; // checked when the agent was written
            McpServerConnection c = connection(server, vaultIds);
            for (McpSchema.Tool tool : c.tools()) {
                AgentTool.Config config = toolset.configOf(tool.name());
                if (!config.enabled()) continue;
                String qualified = McpToolNames.qualified(server.name(), tool.name());
                if (tools.containsKey(qualified)) continue; // two names that clean up alike: the first wins
                tools.put(qualified, new OfferedTool(qualified, server.name(), tool.name(), AgentTool.ALWAYS_ASK.equals(config.policy())));
                Map<String, Object> schema = tool.inputSchema() == null ? Map.of("type", "object") : tool.inputSchema();
                String description = tool.description() == null ? "" : tool.description();
                specs.add(new ModelGateway.ToolSpec(qualified, "[MCP server " + server.name() + "] " + description, schema));
            }
        }
        offered.clear();
        offered.putAll(tools);
        return new Offer(specs, tools);
    }

    /** The tool the model called by this qualified name, if it was offered. */
    public Optional<OfferedTool> tool(String qualifiedName) {
        return Optional.ofNullable(offered.get(qualifiedName));
    }

    /** Calls an offered tool; a tool that was not offered gets an error result, a broken server an {@link McpFailure}. */
    public McpCallResult call(String qualifiedName, Map<String, Object> input) {
        OfferedTool tool = offered.get(qualifiedName);
        if (tool == null) return McpCallResult.error("'" + qualifiedName + "' is not an enabled MCP tool of this session");
        McpServerConnection c = connections.get(tool.serverName());
        if (c == null) {
            return McpCallResult.error("MCP server '" + tool.serverName() + "' is not connected; the call was not made");
        }
        try {
            return c.call(tool.toolName(), input);
        } catch (McpFailure f) {
            drop(tool.serverName());
            throw f;
        }
    }

    private McpServerConnection connection(Agent.McpServer server, List<String> vaultIds) {
        McpServerConnection open = connections.get(server.name());
        if (open != null) return open;
        Optional<McpCredentialSource.Token> token = credentials.find(tenantId, vaultIds, server.url());
        if (token.isPresent() && token.get().expiresAt() != null && !token.get().expiresAt().isAfter(clock.instant())) {
            throw new McpFailure(McpFailure.Kind.AUTHENTICATION, server.name(), "the credential for MCP server '" + server.name() + "' ("
                    + token.get().credentialId() + ") expired at " + token.get().expiresAt() + "; update its access_token");
        }
        McpServerConnection c = connector.connect(server.name(), server.url(), token.map(McpCredentialSource.Token::value).orElse(null));
        synchronized (this) {
            if (closed) {
                c.close();
                throw new McpFailure(McpFailure.Kind.CONNECTION, server.name(), "the session ended while connecting to MCP server '" + server.name() + "'");
            }
            McpServerConnection raced = connections.putIfAbsent(server.name(), c);
            if (raced != null) {
                c.close();
                return raced;
            }
        }
        return c;
    }

    /** Forgets a server after a failure, so that the next use connects again. */
    public void drop(String serverName) {
        McpServerConnection c = connections.remove(serverName);
        if (c != null) c.close();
    }

    @Override
    public synchronized void close() {
        closed = true;
        connections.values().forEach(McpServerConnection::close);
        connections.clear();
    }
}
