package dev.paddock.driver.subprocess;

import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ProcessInfo;
import java.util.List;

/** A process started with startProcess: its combined output is kept in a ring buffer for processLogs. */
final class BackgroundProcess {
    static final int LOG_CAPACITY = 1 << 20;

    private final List<String> argv;
    private final OutputRing logs = new OutputRing(LOG_CAPACITY);
    private RunningCommand command;

    BackgroundProcess(List<String> argv) {
        this.argv = List.copyOf(argv);
    }

    /** Where the process writes; both streams go into the same log. */
    ExecOutput output() {
        return new ExecOutput() {
            @Override public void stdout(byte[] data, int offset, int length) { logs.append(data, offset, length); }
            @Override public void stderr(byte[] data, int offset, int length) { logs.append(data, offset, length); }
        };
    }

    void started(RunningCommand command) {
        this.command = command;
    }

    RunningCommand command() { return command; }

    byte[] logs(long offset, int maxBytes) {
        return logs.read(offset, maxBytes);
    }

    ProcessInfo info() {
        return new ProcessInfo(command.pid(), argv, command.startedAt(), command.isRunning(), command.exitCode());
    }
}
