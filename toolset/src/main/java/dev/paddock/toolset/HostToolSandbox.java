package dev.paddock.toolset;

import dev.paddock.core.BoundedBuffer;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Workspace;
import dev.paddock.access.Principal;
import dev.paddock.host.RuntimeHost;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** A sandbox of one tenant on an in-process {@link RuntimeHost}; every call goes through the host's tenant checks. */
public final class HostToolSandbox implements ToolSandbox {
    private static final int STDERR_LIMIT = 8 * 1024;

    private final RuntimeHost host;
    private final Principal caller;
    private final String sandboxId;

    public HostToolSandbox(RuntimeHost host, Principal caller, String sandboxId) {
        this.host = host;
        this.caller = caller;
        this.sandboxId = sandboxId;
    }

    public String sandboxId() { return sandboxId; }

    @Override
    public CommandOutput run(List<String> argv, Duration timeout, int maxStdoutBytes, boolean keepTail) {
        BoundedBuffer out = new BoundedBuffer(maxStdoutBytes, keepTail);
        BoundedBuffer err = new BoundedBuffer(STDERR_LIMIT, false);
        ExecResult r = host.run(caller, sandboxId, new ExecRequest(argv, Map.of(), Workspace.ROOT, timeout, null), ExecOutput.into(out, err));
        return new CommandOutput(out.bytes(), out.truncated(), err.bytes(), r.exitCode(), r.timedOut(), r.oomKilled());
    }

    @Override
    public Workspace workspace() {
        return host.workspace(caller, sandboxId);
    }
}
