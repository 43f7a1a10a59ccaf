package dev.paddock.driver.bwrap;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxStatus;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.Workspace;
import dev.paddock.driver.bwrap.cgroup.SandboxCgroup;
import dev.paddock.init.InitClient;
import dev.paddock.init.InitSandbox;

/**
 * A live bwrap sandbox: commands go to its init agent, lifecycle goes through its cgroup.
 *
 * <p>Stdin of {@link #exec}: the request's {@code stdin} bytes are written and then closed; a null (or empty)
 * {@code stdin} is end-of-file at once, so a command that reads stdin (cat, a REPL) sees EOF instead of hanging.
 * The handle's {@link ExecHandle#stdin()} is closed once that input is sent (at once for a null stdin): writing
 * to it then fails with "stdin is closed". So input is given up front; this driver has no interactive stdin.
 */
final class BwrapSandbox extends InitSandbox {

    private final BwrapDriver driver;
    private final SandboxPaths paths;
    private final SandboxMeta meta;
    private final SandboxCgroup cgroup;
    private volatile boolean terminated;

    BwrapSandbox(BwrapDriver driver, SandboxPaths paths, SandboxMeta meta, SandboxCgroup cgroup) {
        super(new InitClient(paths.socket()), cgroup::oomKills);
        this.driver = driver;
        this.paths = paths;
        this.meta = meta;
        this.cgroup = cgroup;
    }

    @Override
    public SandboxRef ref() {
        return new SandboxRef(paths.sandboxId(), BwrapDriver.ID, paths.sandboxId());
    }

    int uid() {
        return meta.uid();
    }

    @Override
    public Workspace workspace() {
        return driver.openWorkspace(paths, meta.uid(), meta.gid());
    }

    @Override
    public Workspace outputs() {
        return driver.openOutputs(paths, meta.uid(), meta.gid());
    }

    @Override
    public void suspend() {
        requireAlive();
        cgroup.freeze();
    }

    @Override
    public void resume() {
        requireAlive();
        cgroup.thaw();
    }

    @Override
    public void terminate(TerminationReason reason) {
        terminated = true;
        driver.release(paths, meta);
    }

    /**
     * From the cgroup alone, without a ping that wakes init: when init ends, the kernel ends every process of its pid
     * namespace, and the cgroup holds nothing else, so a cgroup with a live process is a live sandbox (an exited init
     * that nobody reaps does not count: the host's pid 1 may not reap).
     */
    @Override
    public SandboxStatus liveness() {
        if (terminated || !cgroup.exists()) return new SandboxStatus(false, false, -1, -1, -1, -1, -1);
        return new SandboxStatus(cgroup.populated(), cgroup.frozen(), -1, -1, -1, -1, -1);
    }

    @Override
    public SandboxStatus inspect() {
        boolean frozen = !terminated && cgroup.exists() && cgroup.frozen();
        boolean alive = !terminated && (frozen ? cgroup.pids() > 0 : answers());
        if (!cgroup.exists()) return new SandboxStatus(alive, false, -1, -1, -1, -1, -1);
        return new SandboxStatus(alive, frozen, cgroup.memoryBytes(), cgroup.memoryLimitBytes(), cgroup.pids(), cgroup.oomKills(), cgroup.cpuNanos());
    }

    private void requireAlive() {
        if (terminated || !cgroup.exists()) {
            throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + paths.sandboxId() + " has been terminated");
        }
    }

    @Override
    protected void requireRunning() {
        requireAlive();
        if (cgroup.frozen()) {
            throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + paths.sandboxId() + " is suspended; resume it first");
        }
    }
}
