package dev.paddock.toolset;

import dev.paddock.core.spi.Workspace;
import java.time.Duration;
import java.util.List;

/**
 * The two things the tools need from a sandbox: run a command (argv, never a host shell line) with cwd
 * {@code /workspace}, and the sandbox's {@link Workspace} for file access with its safe path handling.
 * {@link HostToolSandbox} serves it from a {@code RuntimeHost}; another transport (e.g. REST) can implement it too.
 */
public interface ToolSandbox {
    /**
     * Runs {@code argv} to completion (or until {@code timeout}); keeps at most {@code maxStdoutBytes} of stdout
     * (the tail when {@code keepTail}, else the head) and a short prefix of stderr.
     */
    CommandOutput run(List<String> argv, Duration timeout, int maxStdoutBytes, boolean keepTail);

    Workspace workspace();
}
