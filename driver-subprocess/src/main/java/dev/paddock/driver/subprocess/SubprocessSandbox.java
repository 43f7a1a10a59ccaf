package dev.paddock.driver.subprocess;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.FileEntry;
import dev.paddock.core.spi.ProcessInfo;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.SandboxStatus;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.UnsupportedCapabilityException;
import dev.paddock.core.spi.Workspace;
import dev.paddock.workspace.HostDirWorkspace;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A "sandbox" that is just a host directory and the host processes started in it. No isolation. */
final class SubprocessSandbox implements Sandbox {
    /** Where a command finds the host directory that stands for /mnt/session/outputs. */
    static final String OUTPUTS_ENV = "PADDOCK_OUTPUTS";
    static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    private final SandboxRef ref;
    private final SandboxSpec spec;
    private final Path workspaceDir;
    private final HostDirWorkspace workspace;
    private final Path outputsDir;
    private final HostDirWorkspace outputs;
    private final Set<RunningCommand> running = ConcurrentHashMap.newKeySet();
    private final Map<Long, BackgroundProcess> background = new ConcurrentHashMap<>();
    private volatile boolean terminated;

    SubprocessSandbox(SandboxRef ref, SandboxSpec spec, Path workspaceDir, Path outputsDir) {
        this.ref = ref;
        this.spec = spec;
        this.workspaceDir = workspaceDir;
        this.workspace = SubprocessDriver.workspaceAt(workspaceDir);
        this.outputsDir = outputsDir;
        this.outputs = SubprocessDriver.outputsAt(outputsDir);
    }

    @Override
    public SandboxRef ref() { return ref; }

    @Override
    public ExecHandle exec(ExecRequest request, ExecOutput output) {
        return start(request, output == null ? ExecOutput.DISCARD : output, request.timeout());
    }

    @Override
    public ProcessInfo startProcess(ExecRequest request) {
        BackgroundProcess process = new BackgroundProcess(request.argv());
        // background processes live until they exit, are signalled or the sandbox ends
        RunningCommand command = start(request, process.output(), Duration.ofDays(365));
        process.started(command);
        background.put(command.pid(), process);
        return process.info();
    }

    private RunningCommand start(ExecRequest request, ExecOutput output, Duration timeout) {
        requireRunning();
        ProcessBuilder builder = new ProcessBuilder(request.argv()).directory(hostDirectory(request.cwd()).toFile());
        Map<String, String> env = builder.environment();
        env.clear();
        env.put("PATH", PATH);
        env.put("HOME", workspaceDir.toString());
        env.put("LANG", "C.UTF-8");
        env.put(OUTPUTS_ENV, outputsDir.toString());
        env.putAll(spec.env());
        env.putAll(request.env());
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new PaddockException(ErrorCode.EXEC_FAILED, "could not start " + Text.clip(request.argv().getFirst(), 100)
                    + ": " + Text.clip(e.getMessage(), 200));
        }
        RunningCommand[] self = new RunningCommand[1];
        RunningCommand command = new RunningCommand(process, output, request.stdin(), timeout, () -> {
            if (self[0] != null) running.remove(self[0]);
        });
        self[0] = command;
        running.add(command);
        if (!command.isRunning()) running.remove(command);
        if (terminated) command.kill(); // terminate() raced with this start
        return command;
    }

    /** Maps a cwd inside /workspace onto the host directory; the workspace's resolver refuses anything outside. */
    private Path hostDirectory(String cwd) {
        FileEntry entry;
        try {
            entry = workspace.stat(cwd);
        } catch (PaddockException e) {
            throw new PaddockException(ErrorCode.INVALID_CWD, "cwd " + Text.clip(cwd, 200)
                    + " is not usable: " + e.getMessage());
        }
        if (entry.type() != FileEntry.Type.DIRECTORY) {
            throw new PaddockException(ErrorCode.INVALID_CWD, "cwd " + Text.clip(cwd, 200) + " is not a directory");
        }
        String relative = entry.path().equals(Workspace.ROOT) ? "" : entry.path().substring(Workspace.ROOT.length() + 1);
        return workspaceDir.resolve(relative);
    }

    @Override
    public List<ProcessInfo> processes() {
        return background.values().stream().map(BackgroundProcess::info).toList();
    }

    @Override
    public byte[] processLogs(long pid, long offset, int maxBytes) {
        return process(pid).logs(offset, maxBytes);
    }

    @Override
    public void signalProcess(long pid, int signal) {
        BackgroundProcess process = process(pid);
        if (signal < 1 || signal > 64) throw new PaddockException(ErrorCode.INVALID_SIGNAL, "signal must be between 1 and 64, got " + signal);
        if (process.command().isRunning()) ProcessTree.signal(process.command().handle(), signal);
    }

    private BackgroundProcess process(long pid) {
        BackgroundProcess process = background.get(pid);
        if (process == null) throw PaddockException.notFound("process", String.valueOf(pid));
        return process;
    }

    @Override
    public Workspace workspace() { return workspace; }

    @Override
    public Workspace outputs() { return outputs; }

    @Override
    public void suspend() {
        throw new UnsupportedCapabilityException(SubprocessDriver.ID, "suspend_resume");
    }

    @Override
    public void resume() {
        throw new UnsupportedCapabilityException(SubprocessDriver.ID, "suspend_resume");
    }

    @Override
    public void terminate(TerminationReason reason) {
        terminated = true;
        running.forEach(RunningCommand::kill);
    }

    boolean isTerminated() { return terminated; }

    @Override
    public SandboxStatus inspect() {
        int pids = running.stream().filter(RunningCommand::isRunning)
                .mapToInt(c -> 1 + (int) c.handle().descendants().count()).sum();
        return new SandboxStatus(!terminated, false, -1, -1, pids, -1, -1);
    }

    private void requireRunning() {
        if (terminated) {
            throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING,
                    "sandbox " + ref.sandboxId() + " was terminated; create a new sandbox to run commands");
        }
    }
}
