package dev.paddock.toolset;

import dev.paddock.access.Principal;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.host.RuntimeHost;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tools of the Managed Agents {@code agent_toolset_20260401} set — bash, read, write, edit, glob, grep — run
 * against one sandbox. Input field names are those of the official SDKs. {@link #execute} never throws for a bad
 * call: unknown tools, invalid input, missing files, paths outside {@code /workspace}, failed commands and driver
 * errors all come back as an error {@link ToolResult}; every result's text is capped at
 * {@link ToolLimits#maxOutputBytes()} with a marker. Safe to share between threads.
 */
public final class AgentToolset {
    public static final String TYPE = "agent_toolset_20260401";
    private static final Logger log = LoggerFactory.getLogger(AgentToolset.class);

    private final ToolSandbox sandbox;
    private final ToolLimits limits;
    private final Map<String, AgentTool> tools;

    public AgentToolset(RuntimeHost host, Principal caller, String sandboxId) {
        this(new HostToolSandbox(host, caller, sandboxId), ToolLimits.DEFAULT);
    }

    public AgentToolset(RuntimeHost host, Principal caller, String sandboxId, ToolLimits limits) {
        this(new HostToolSandbox(host, caller, sandboxId), limits);
    }

    public AgentToolset(ToolSandbox sandbox, ToolLimits limits) {
        this.sandbox = sandbox;
        this.limits = limits;
        this.tools = toolsFor(limits);
    }

    /** The six tools' names, descriptions and input schemas (for a model request or an MCP tool list). */
    public static List<ToolDefinition> definitions() {
        return definitions(ToolLimits.DEFAULT);
    }

    public static List<ToolDefinition> definitions(ToolLimits limits) {
        return toolsFor(limits).values().stream().map(AgentTool::definition).toList();
    }

    public static Set<String> toolNames() {
        return toolsFor(ToolLimits.DEFAULT).keySet();
    }

    public ToolLimits limits() { return limits; }

    /**
     * Runs one tool call. {@code input} is the call's JSON object as plain Java values (String, Boolean, Number,
     * List, Map), e.g. what Jackson's {@code convertValue(node, Map.class)} gives.
     */
    public ToolResult execute(String toolName, Map<String, ?> input) {
        AgentTool tool = toolName == null ? null : tools.get(toolName);
        if (tool == null) {
            return ToolResult.error("unknown tool '" + Text.clip(toolName, 60) + "'; this toolset has: " + String.join(", ", tools.keySet()));
        }
        try {
            return capped(tool.run(new ToolInput(toolName, input), sandbox));
        } catch (ToolInputException e) {
            return ToolResult.error(e.getMessage());
        } catch (PaddockException e) {
            return ToolResult.error(toolName + ": " + e.getMessage());
        } catch (UncheckedIOException e) {
            return ToolResult.error(toolName + ": I/O error: " + Text.clip(e.getCause().getMessage(), 200));
        } catch (RuntimeException e) {
            // unexpected: log the type only (the input may hold secrets), answer without internals
            log.warn("{} tool failed unexpectedly: {}", toolName, e.getClass().getName());
            return ToolResult.error(toolName + ": internal error (" + e.getClass().getSimpleName() + "); the call was not completed");
        }
    }

    private ToolResult capped(ToolResult r) {
        if (ToolText.utf8Length(r.content()) <= limits.maxOutputBytes()) return r;
        String marker = "\n[output truncated at " + limits.maxOutputBytes() + " bytes]";
        String head = ToolText.headWithin(r.content(), limits.maxOutputBytes() - marker.length());
        return new ToolResult(head + marker, r.isError());
    }

    private static Map<String, AgentTool> toolsFor(ToolLimits limits) {
        Map<String, AgentTool> m = new LinkedHashMap<>();
        for (AgentTool t : List.of(new BashTool(limits), new ReadTool(limits), new WriteTool(limits),
                new EditTool(limits), new GlobTool(limits), new GrepTool(limits))) {
            m.put(t.name(), t);
        }
        return Collections.unmodifiableMap(m);
    }
}
