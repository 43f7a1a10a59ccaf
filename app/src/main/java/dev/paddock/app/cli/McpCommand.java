package dev.paddock.app.cli;

import dev.paddock.mcp.McpStdioBridge;
import picocli.CommandLine.Command;

/**
 * {@code paddock mcp}: an MCP server on stdin/stdout for clients such as Claude Code. It forwards to the running
 * Paddock server's {@code /mcp} endpoint with the usual URL and key discovery, so stdio and HTTP clients get the
 * same tools, and every call is authenticated and scoped to the key's tenant by the server.
 */
@Command(name = "mcp", description = {"Serve MCP (sandbox tools and the agent toolset) on stdin/stdout,",
        "forwarding to the Paddock server's /mcp endpoint."})
public final class McpCommand extends ClientCommand {
    @Override
    public Integer call() throws InterruptedException {
        String url = options.resolveUrl(ctx);
        String key = options.resolveKey(ctx);
        if (key == null) throw new CliException(options.missingKeyHint(ctx), 1);
        String version = McpCommand.class.getPackage().getImplementationVersion();
        try (McpStdioBridge bridge = new McpStdioBridge(url, key, version == null ? "dev" : version)) {
            bridge.serve(ctx.stdin(), ctx.stdout());
        } catch (McpStdioBridge.BridgeException e) {
            throw new CliException(e.getMessage(), 1);
        }
        return 0;
    }
}
