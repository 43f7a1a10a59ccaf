package dev.paddock.init;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ProcessInfo;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.TerminalHandle;
import dev.paddock.core.spi.TerminalRequest;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * What the init agent serves of a sandbox, the same on every driver that runs it: commands and background
 * processes, each after the driver's check that the sandbox runs ({@link #requireRunning}). Lifecycle, files and
 * status stay the driver's.
 *
 * <p>Stdin of {@link #exec}: the request's {@code stdin} bytes are written and then closed; a null (or empty)
 * {@code stdin} is end-of-file at once, so a command that reads stdin (cat, a REPL) sees EOF instead of hanging.
 */
public abstract class InitSandbox implements Sandbox {
    private static final Duration STATUS_PING = Duration.ofSeconds(1);

    protected final InitClient init;
    private final LongSupplier oomKills;

    /** {@code oomKills} counts the sandbox's processes killed for memory so far (exec results say whether theirs was). */
    protected InitSandbox(InitClient init, LongSupplier oomKills) {
        this.init = init;
        this.oomKills = oomKills;
    }

    public InitClient init() {
        return init;
    }

    /** Whether init answers a ping within a second: the sandbox is alive as far as its commands go. */
    protected final boolean answers() {
        try {
            init.ping(STATUS_PING);
            return true;
        } catch (PaddockException e) {
            return false;
        }
    }

    /** Throws {@code sandbox_not_running} when the sandbox has ended or is suspended. */
    protected abstract void requireRunning();

    @Override
    public final ExecHandle exec(ExecRequest request, ExecOutput output) {
        requireRunning();
        return init.exec(request, output, oomKills);
    }

    @Override
    public final TerminalHandle openTerminal(TerminalRequest request, ExecOutput output) {
        requireRunning();
        return init.terminal(request, output, oomKills);
    }

    @Override
    public final ExecHandle connectPort(int port, ExecOutput output) {
        requireRunning();
        return init.connectPort(port, output, oomKills);
    }

    @Override
    public final ProcessInfo startProcess(ExecRequest request) {
        requireRunning();
        long pid = init.startBackground(request);
        return processes().stream().filter(p -> p.pid() == pid).findFirst()
                .orElseThrow(() -> PaddockException.internal("background process " + pid + " vanished from the sandbox's list", null));
    }

    @Override
    public final List<ProcessInfo> processes() {
        requireRunning();
        return init.processes();
    }

    @Override
    public final byte[] processLogs(long pid, long offset, int maxBytes) {
        requireRunning();
        if (offset < 0 || maxBytes < 0) throw new PaddockException(ErrorCode.INVALID_RANGE, "offset and max bytes must not be negative");
        return init.logs(pid, offset, maxBytes);
    }

    @Override
    public final void signalProcess(long pid, int signal) {
        requireRunning();
        if (signal < 1 || signal > 64) throw new PaddockException(ErrorCode.INVALID_SIGNAL, "signal must be between 1 and 64, got " + signal);
        init.signal(pid, signal);
    }
}
