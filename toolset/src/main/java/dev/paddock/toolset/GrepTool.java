package dev.paddock.toolset;

import dev.paddock.core.Text;
import dev.paddock.core.spi.FileEntry;
import dev.paddock.core.spi.Workspace;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/**
 * {@code grep}: lines matching a Perl-compatible regular expression in the files under a workspace path, as
 * {@code /workspace/path:line:text}. Runs GNU grep inside the sandbox with the pattern and path as separate
 * arguments (no shell); {@code -Z} puts a NUL after each file name so names containing ':' stay unambiguous.
 * Binary files, {@code .git} and {@code node_modules} are skipped; over-long lines are cut.
 */
final class GrepTool implements AgentTool {
    static final String NAME = "grep";
    private static final Set<String> FIELDS = Set.of("pattern", "path");

    private final ToolLimits limits;
    private final ToolDefinition definition;

    GrepTool(ToolLimits limits) {
        this.limits = limits;
        this.definition = new ToolDefinition(NAME,
                "Search file contents under /workspace (or under path, a directory or file) for a Perl-compatible "
                        + "regular expression. Returns matching lines as path:line_number:text.",
                Schemas.object(Schemas.props(
                        "pattern", Schemas.string("Regular expression to search for"),
                        "path", Schemas.string("Directory or file to search; defaults to /workspace")),
                        List.of("pattern")));
    }

    @Override
    public ToolDefinition definition() { return definition; }

    @Override
    public ToolResult run(ToolInput input, ToolSandbox sandbox) {
        input.allowOnly(FIELDS);
        String pattern = input.requiredNonEmpty("pattern");
        if (pattern.indexOf('\n') >= 0) throw input.fail("pattern must be a single line");
        String path = input.optionalString("path");
        FileEntry target = sandbox.workspace().stat(path == null || path.isEmpty() ? Workspace.ROOT : path);
        if (target.type() != FileEntry.Type.DIRECTORY && target.type() != FileEntry.Type.FILE) {
            throw input.fail("path " + ToolText.show(path) + " must be a directory or a regular file (symlinks are not followed)");
        }
        String relative = relativeToWorkspace(target.path());
        CommandOutput out = sandbox.run(List.of("grep", "-r", "-n", "-H", "-I", "-Z", "-P", "--color=never",
                        "--exclude-dir=.git", "--exclude-dir=node_modules", "-e", pattern, "--", relative),
                limits.searchTimeout(), limits.maxOutputBytes(), false);
        String hits = format(out.stdout(), out.stdoutTruncated());
        if (out.exitCode() == 127) return ToolResult.error("grep: the grep program is not available in this sandbox; use bash");
        if (out.timedOut()) {
            if (hits.isEmpty()) return ToolResult.error("grep: timed out after " + limits.searchTimeout().toSeconds() + " s; narrow the path");
            return ToolResult.ok(hits + "\n[the search was cut short after " + limits.searchTimeout().toSeconds() + " s]");
        }
        if (out.exitCode() == 1 && hits.isEmpty()) return ToolResult.ok("no matches");
        if (out.exitCode() >= 2 && hits.isEmpty()) {
            String why = ToolText.stripTrailingNewlines(ToolText.lenient(out.stderr()));
            return ToolResult.error("grep: " + Text.clip(why.isEmpty() ? "exit code " + out.exitCode() : why, 500));
        }
        return ToolResult.ok(out.exitCode() >= 2 ? hits + "\n[some files could not be searched]" : hits);
    }

    private static String relativeToWorkspace(String sandboxPath) {
        if (sandboxPath.equals(Workspace.ROOT)) return ".";
        String prefix = Workspace.ROOT + "/";
        if (!sandboxPath.startsWith(prefix)) throw new IllegalStateException("workspace returned a path outside /workspace");
        return prefix.length() == sandboxPath.length() ? "." : "./" + sandboxPath.substring(prefix.length());
    }

    /** Turns grep's {@code name NUL line:text} records into {@code /workspace/name:line:text}, within the output limit. */
    private String format(byte[] raw, boolean truncated) {
        String text = new String(raw, StandardCharsets.UTF_8);
        String[] records = text.split("\n", -1);
        // a cut-off final record, or the empty string after the last newline, is not a match
        int complete = records.length - 1;
        StringBuilder out = new StringBuilder();
        int budget = limits.maxOutputBytes();
        boolean cut = truncated;
        for (int i = 0; i < complete; i++) {
            String rec = records[i];
            int nul = rec.indexOf('\0');
            if (nul < 0) continue;
            String name = rec.substring(0, nul);
            if (name.startsWith("./")) name = name.substring(2);
            String rest = rec.substring(nul + 1);
            int colon = rest.indexOf(':');
            if (colon > 0 && rest.length() - colon - 1 > limits.grepMaxLineChars()) {
                rest = rest.substring(0, colon + 1 + limits.grepMaxLineChars()) + " [line cut]";
            }
            String line = Workspace.ROOT + "/" + name + ":" + rest;
            int size = ToolText.utf8Length(line) + 1;
            if (size > budget) { cut = true; break; }
            budget -= size;
            if (!out.isEmpty()) out.append('\n');
            out.append(line);
        }
        if (cut && !out.isEmpty()) out.append("\n[output truncated at ").append(limits.maxOutputBytes()).append(" bytes]");
        return out.toString();
    }
}
