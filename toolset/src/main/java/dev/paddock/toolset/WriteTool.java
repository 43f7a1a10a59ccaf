package dev.paddock.toolset;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/** {@code write}: creates or replaces a workspace file (atomically, parent directories created) with the given text. */
final class WriteTool implements AgentTool {
    static final String NAME = "write";
    private static final Set<String> FIELDS = Set.of("file_path", "content");

    private final ToolLimits limits;
    private final ToolDefinition definition;

    WriteTool(ToolLimits limits) {
        this.limits = limits;
        this.definition = new ToolDefinition(NAME,
                "Write a UTF-8 text file under /workspace, replacing it if it exists and creating parent directories.",
                Schemas.object(Schemas.props(
                        "file_path", Schemas.string("Path of the file to write"),
                        "content", Schemas.string("Full file contents")),
                        List.of("file_path", "content")));
    }

    @Override
    public ToolDefinition definition() { return definition; }

    @Override
    public ToolResult run(ToolInput input, ToolSandbox sandbox) {
        input.allowOnly(FIELDS);
        String path = input.requiredNonEmpty("file_path");
        String content = input.requiredString("content");
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > limits.maxWriteBytes()) {
            throw input.fail("content is " + bytes.length + " bytes; at most " + limits.maxWriteBytes() + " can be written at once");
        }
        sandbox.workspace().write(path, new ByteArrayInputStream(bytes));
        return ToolResult.ok("wrote " + bytes.length + " bytes to " + ToolText.show(path));
    }
}
