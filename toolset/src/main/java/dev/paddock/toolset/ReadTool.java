package dev.paddock.toolset;

import dev.paddock.core.spi.Workspace;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/**
 * {@code read}: a UTF-8 text file of the workspace, whole or the lines of {@code view_range} ([start, end],
 * 1-indexed and inclusive; an end of 0 or less means the end of the file). A whole file larger than the file limit
 * is refused with a hint to use view_range; a range is streamed and its selected text capped at the same limit.
 */
final class ReadTool implements AgentTool {
    static final String NAME = "read";
    private static final Set<String> FIELDS = Set.of("file_path", "view_range");

    private final ToolLimits limits;
    private final ToolDefinition definition;

    ReadTool(ToolLimits limits) {
        this.limits = limits;
        this.definition = new ToolDefinition(NAME,
                "Read a UTF-8 text file under /workspace (a relative path is relative to /workspace). Optionally only "
                        + "the lines of view_range: [start_line, end_line], 1-indexed and inclusive; end_line 0 or less reads to the end.",
                Schemas.object(Schemas.props(
                        "file_path", Schemas.string("Path of the file to read"),
                        "view_range", Schemas.integerArray("[start_line, end_line], 1-indexed inclusive")),
                        List.of("file_path")));
    }

    @Override
    public ToolDefinition definition() { return definition; }

    @Override
    public ToolResult run(ToolInput input, ToolSandbox sandbox) {
        input.allowOnly(FIELDS);
        String path = input.requiredNonEmpty("file_path");
        List<Long> range = input.optionalIntegerList("view_range");
        Workspace ws = sandbox.workspace();
        if (range == null || range.isEmpty()) {
            byte[] bytes = FileBytes.readAtMost(ws, path, limits.maxFileBytes());
            if (bytes == null) {
                throw input.fail(ToolText.show(path) + " is larger than the " + limits.maxFileBytes()
                        + "-byte limit; read part of it with view_range, e.g. view_range: [1, 500]");
            }
            return ToolResult.ok(ToolText.lenient(bytes));
        }
        if (range.size() != 2) throw input.fail("view_range must be [start_line, end_line]");
        long start = range.get(0);
        long end = range.get(1) <= 0 ? Long.MAX_VALUE : range.get(1);
        if (start < 1) throw input.fail("view_range start_line must be 1 or more");
        if (end < start) throw input.fail("view_range end_line must not be before start_line (or 0 for the end of the file)");
        return ToolResult.ok(lines(ws, path, start, end, input));
    }

    private String lines(Workspace ws, String path, long start, long end, ToolInput input) {
        StringBuilder out = new StringBuilder();
        long budget = limits.maxFileBytes();
        try (InputStream in = ws.read(path);
             BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            long lineNo = 0;
            StringBuilder line = new StringBuilder();
            int c;
            boolean eof = false;
            while (!eof && lineNo < end) {
                line.setLength(0);
                lineNo++;
                boolean selected = lineNo >= start;
                // read char by char so one giant line is never held beyond the budget
                while (true) {
                    c = reader.read();
                    if (c == -1) { eof = true; break; }
                    if (c == '\n') break;
                    if (selected) {
                        line.append((char) c);
                        if (line.length() > budget) throw tooLarge(input, path, start, end);
                    }
                }
                if (!selected || (eof && line.isEmpty() && lineNo > start)) continue;
                if (lineNo > start) out.append('\n');
                out.append(line);
                budget -= ToolText.utf8Length(line.toString()) + 1;
                if (budget < 0) throw tooLarge(input, path, start, end);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private static ToolInputException tooLarge(ToolInput input, String path, long start, long end) {
        String endText = end == Long.MAX_VALUE ? "0" : Long.toString(end);
        return input.fail("view_range [" + start + ", " + endText + "] of " + ToolText.show(path)
                + " exceeds the size limit; narrow the range");
    }
}
