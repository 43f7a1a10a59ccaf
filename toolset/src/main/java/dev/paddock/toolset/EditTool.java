package dev.paddock.toolset;

import dev.paddock.core.spi.Workspace;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/**
 * {@code edit}: replaces {@code old_string} with {@code new_string} in a workspace text file. The old string must
 * occur exactly once unless {@code replace_all}; a missing or repeated string is an error that says how many times
 * it was found. The file is replaced atomically; a file that is not valid UTF-8 is left alone.
 */
final class EditTool implements AgentTool {
    static final String NAME = "edit";
    private static final Set<String> FIELDS = Set.of("file_path", "old_string", "new_string", "replace_all");

    private final ToolLimits limits;
    private final ToolDefinition definition;

    EditTool(ToolLimits limits) {
        this.limits = limits;
        this.definition = new ToolDefinition(NAME,
                "Replace old_string with new_string in a text file under /workspace. old_string must occur exactly once "
                        + "unless replace_all is true.",
                Schemas.object(Schemas.props(
                        "file_path", Schemas.string("Path of the file to edit"),
                        "old_string", Schemas.string("Exact text to find"),
                        "new_string", Schemas.string("Replacement text"),
                        "replace_all", Schemas.bool("Replace every occurrence instead of requiring a unique one")),
                        List.of("file_path", "old_string", "new_string")));
    }

    @Override
    public ToolDefinition definition() { return definition; }

    @Override
    public ToolResult run(ToolInput input, ToolSandbox sandbox) {
        input.allowOnly(FIELDS);
        String path = input.requiredNonEmpty("file_path");
        String oldString = input.requiredNonEmpty("old_string");
        String newString = input.requiredString("new_string");
        boolean replaceAll = input.optionalBoolean("replace_all");
        Workspace ws = sandbox.workspace();
        byte[] bytes = FileBytes.readAtMost(ws, path, limits.maxFileBytes());
        if (bytes == null) {
            throw input.fail(ToolText.show(path) + " is larger than the " + limits.maxFileBytes() + "-byte limit for edits; use bash (e.g. sed) instead");
        }
        String text = ToolText.strictOrNull(bytes);
        if (text == null) throw input.fail(ToolText.show(path) + " is not UTF-8 text; it was left unchanged");
        int count = occurrences(text, oldString);
        if (count == 0) throw input.fail("old_string was not found in " + ToolText.show(path) + "; read the file and copy the text exactly");
        if (count > 1 && !replaceAll) {
            throw input.fail("old_string occurs " + count + " times in " + ToolText.show(path)
                    + "; include more surrounding text to make it unique, or set replace_all");
        }
        String updated = replaceAll ? text.replace(oldString, newString) : replaceFirst(text, oldString, newString);
        byte[] out = updated.getBytes(StandardCharsets.UTF_8);
        if (out.length > limits.maxWriteBytes()) throw input.fail("the edited file would exceed " + limits.maxWriteBytes() + " bytes");
        ws.write(path, new ByteArrayInputStream(out));
        int replaced = replaceAll ? count : 1;
        return ToolResult.ok("edited " + ToolText.show(path) + " (" + replaced + (replaced == 1 ? " replacement)" : " replacements)"));
    }

    /** Non-overlapping occurrences, as a replace would see them. */
    static int occurrences(String text, String needle) {
        int count = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length())) count++;
        return count;
    }

    private static String replaceFirst(String text, String oldString, String newString) {
        int i = text.indexOf(oldString);
        return text.substring(0, i) + newString + text.substring(i + oldString.length());
    }
}
