package dev.paddock.toolset;

/** One tool of the set. Implementations validate their input and report failures as error results. */
interface AgentTool {
    ToolDefinition definition();

    default String name() {
        return definition().name();
    }

    /** May throw {@link ToolInputException} or {@code PaddockException}; {@link AgentToolset} turns both into results. */
    ToolResult run(ToolInput input, ToolSandbox sandbox);
}
