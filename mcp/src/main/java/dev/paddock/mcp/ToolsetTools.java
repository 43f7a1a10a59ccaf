package dev.paddock.mcp;

import dev.paddock.host.RuntimeHost;
import dev.paddock.toolset.AgentToolset;
import dev.paddock.toolset.Schemas;
import dev.paddock.toolset.ToolDefinition;
import dev.paddock.toolset.ToolResult;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The agent toolset (bash, read, write, edit, glob, grep) as MCP tools: each takes the toolset's own input plus
 * {@code sandbox_id}, and runs through {@link AgentToolset}, whose error results become MCP tool errors.
 */
final class ToolsetTools {
    private final RuntimeHost host;

    ToolsetTools(RuntimeHost host) {
        this.host = host;
    }

    List<SyncToolSpecification> specifications() {
        List<SyncToolSpecification> specs = new ArrayList<>();
        for (ToolDefinition d : AgentToolset.definitions()) {
            specs.add(McpTools.tool(d.name(), d.description() + " Runs in the sandbox named by sandbox_id.", withSandboxId(d.inputSchema()),
                    (caller, args) -> {
                        String id = args.requiredString("sandbox_id");
                        ToolResult r = new AgentToolset(host, caller, id).execute(d.name(), args.without("sandbox_id"));
                        return r.isError() ? McpTools.error(r.content()) : McpTools.text(r.content());
                    }));
        }
        return specs;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> withSandboxId(Map<String, Object> schema) {
        Map<String, Object> out = new LinkedHashMap<>(schema);
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("sandbox_id", Schemas.string("Sandbox id, e.g. sbx_…"));
        props.putAll((Map<String, Object>) schema.get("properties"));
        out.put("properties", props);
        List<String> required = new ArrayList<>();
        required.add("sandbox_id");
        required.addAll((List<String>) schema.getOrDefault("required", List.of()));
        out.put("required", required);
        return out;
    }

}
