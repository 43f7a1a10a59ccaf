package dev.paddock.toolset;

import dev.paddock.core.spi.FileEntry;
import dev.paddock.core.spi.Workspace;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code glob}: regular files under a workspace directory whose path relative to it matches a doublestar pattern,
 * newest first. The walk goes through the workspace API, so it never follows a symlink and stays in the workspace;
 * it skips {@code .git} and {@code node_modules} and is bounded in entries and depth.
 */
final class GlobTool implements AgentTool {
    static final String NAME = "glob";
    private static final Set<String> FIELDS = Set.of("pattern", "path");
    private static final Set<String> SKIPPED_DIRS = Set.of(".git", "node_modules");

    private final ToolLimits limits;
    private final ToolDefinition definition;

    GlobTool(ToolLimits limits) {
        this.limits = limits;
        this.definition = new ToolDefinition(NAME,
                "Find files under /workspace (or under path) matching a glob pattern such as **/*.java; ** crosses "
                        + "directories. Returns absolute paths, newest first, at most " + limits.globResultLimit() + ".",
                Schemas.object(Schemas.props(
                        "pattern", Schemas.string("Glob pattern relative to path, e.g. **/*.go"),
                        "path", Schemas.string("Directory to search in; defaults to /workspace")),
                        List.of("pattern")));
    }

    @Override
    public ToolDefinition definition() { return definition; }

    private record Dir(String path, String relative, int depth) {}

    @Override
    public ToolResult run(ToolInput input, ToolSandbox sandbox) {
        input.allowOnly(FIELDS);
        String pattern = input.requiredNonEmpty("pattern");
        String path = input.optionalString("path");
        GlobPattern glob;
        try {
            glob = GlobPattern.compile(pattern);
        } catch (IllegalArgumentException e) {
            throw input.fail(e.getMessage());
        }
        Workspace ws = sandbox.workspace();
        FileEntry root = ws.stat(path == null || path.isEmpty() ? Workspace.ROOT : path);
        if (root.type() != FileEntry.Type.DIRECTORY) throw input.fail("path " + ToolText.show(path) + " is not a directory");

        List<FileEntry> matches = new ArrayList<>();
        Deque<Dir> pending = new ArrayDeque<>();
        pending.push(new Dir(root.path(), "", 0));
        int budget = limits.walkMaxEntries();
        boolean cut = false;
        while (!pending.isEmpty() && !cut) {
            Dir dir = pending.pop();
            for (FileEntry e : ws.list(dir.path())) {
                if (--budget < 0) { cut = true; break; }
                String rel = dir.relative().isEmpty() ? e.name() : dir.relative() + "/" + e.name();
                if (e.type() == FileEntry.Type.DIRECTORY) {
                    if (!SKIPPED_DIRS.contains(e.name()) && dir.depth() < limits.walkMaxDepth()) pending.push(new Dir(e.path(), rel, dir.depth() + 1));
                } else if (e.type() == FileEntry.Type.FILE && glob.matches(rel)) {
                    matches.add(e);
                }
            }
        }
        if (matches.isEmpty()) return ToolResult.ok(cut ? "no matches (the search stopped after " + limits.walkMaxEntries() + " entries)" : "no matches");
        matches.sort(Comparator.comparing((FileEntry e) -> e.modifiedAt() == null ? Instant.EPOCH : e.modifiedAt()).reversed()
                .thenComparing(FileEntry::path));
        String listed = matches.stream().limit(limits.globResultLimit()).map(FileEntry::path).collect(Collectors.joining("\n"));
        if (matches.size() > limits.globResultLimit()) {
            listed += "\n[" + (matches.size() - limits.globResultLimit()) + " more matches not shown; narrow the pattern]";
        }
        if (cut) listed += "\n[the search stopped after " + limits.walkMaxEntries() + " entries; results may be incomplete]";
        return ToolResult.ok(listed);
    }
}
