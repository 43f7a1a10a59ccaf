package dev.paddock.toolset;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * {@code bash}: runs a command line with {@code /bin/bash -c} (or {@code /bin/sh -c} where the sandbox has no bash)
 * in {@code /workspace}, stdout and stderr merged in order, stdin empty. The command travels as an argument of a
 * fixed launcher script, never spliced into it. Each call gets a fresh shell: {@code restart} is accepted and has
 * nothing to reset. A non-zero exit, a timeout or an OOM kill is an error result that still carries the output;
 * when output exceeds the limit its last bytes are kept, where errors usually are.
 */
final class BashTool implements AgentTool {
    static final String NAME = "bash";
    /** $1 is the command; merging stderr here keeps the order in which the two streams were written. */
    private static final String LAUNCHER =
            "exec 2>&1 </dev/null; if [ -x /bin/bash ]; then exec /bin/bash -c \"$1\"; fi; exec /bin/sh -c \"$1\"";
    private static final Set<String> FIELDS = Set.of("command", "restart", "timeout_ms");

    private final ToolLimits limits;
    private final ToolDefinition definition;

    BashTool(ToolLimits limits) {
        this.limits = limits;
        this.definition = new ToolDefinition(NAME,
                "Run a shell command in the sandbox with bash -c, working directory /workspace. stdout and stderr are "
                        + "returned together; output beyond " + limits.maxOutputBytes() / 1024 + " KiB keeps its last part. "
                        + "Each call starts a fresh shell (cd and variables do not carry over). Default timeout "
                        + limits.defaultBashTimeout().toSeconds() + " s, at most " + limits.maxBashTimeout().toSeconds() + " s.",
                Schemas.object(Schemas.props(
                        "command", Schemas.string("The command to run"),
                        "restart", Schemas.bool("Restart the shell before running (each call already gets a fresh shell)"),
                        "timeout_ms", Schemas.integer("Per-call timeout in milliseconds; 0 or absent for the default")),
                        List.of()));
    }

    @Override
    public ToolDefinition definition() { return definition; }

    @Override
    public ToolResult run(ToolInput input, ToolSandbox sandbox) {
        input.allowOnly(FIELDS);
        String command = input.optionalString("command");
        boolean restart = input.optionalBoolean("restart");
        Duration timeout = timeout(input);
        if (command == null || command.isBlank()) {
            if (restart) return ToolResult.ok("bash session restarted");
            throw input.fail("command is required (a non-empty string)");
        }
        // room for the marker and exit note, so the kept tail survives the toolset's final cap
        int keep = limits.maxOutputBytes() - 200;
        CommandOutput out = sandbox.run(List.of("/bin/sh", "-c", LAUNCHER, "bash", command), timeout, keep, true);
        String text = ToolText.stripTrailingNewlines(ToolText.stripAnsi(ToolText.lenient(out.stdout())));
        if (out.stdoutTruncated()) {
            text = "[output truncated: only the last " + keep + " bytes are shown]\n" + text;
        }
        if (out.timedOut()) {
            return ToolResult.error(join(text, "bash: command timed out after " + timeout.toMillis() + " ms and was killed"));
        }
        if (out.oomKilled()) {
            return ToolResult.error(join(text, "bash: a process was killed for exceeding the sandbox memory limit (exit " + out.exitCode() + ")"));
        }
        if (out.exitCode() != 0) return ToolResult.error(join(text, "exit code " + out.exitCode()));
        return ToolResult.ok(text);
    }

    private Duration timeout(ToolInput input) {
        Long ms = input.optionalInteger("timeout_ms");
        if (ms == null || ms == 0) return limits.defaultBashTimeout();
        if (ms < 0) throw input.fail("timeout_ms must be positive (or 0 for the default)");
        if (ms > limits.maxBashTimeout().toMillis()) {
            throw input.fail("timeout_ms " + ms + " exceeds the maximum of " + limits.maxBashTimeout().toMillis() + " ms");
        }
        return Duration.ofMillis(ms);
    }

    private static String join(String output, String note) {
        return output.isEmpty() ? note : output + "\n[" + note + "]";
    }
}
