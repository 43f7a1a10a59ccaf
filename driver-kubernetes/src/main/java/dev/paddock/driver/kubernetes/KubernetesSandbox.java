package dev.paddock.driver.kubernetes;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ProcessInfo;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxStatus;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.Workspace;
import java.util.List;

/**
 * A sandbox pod. Commands and files go through the exec API ({@link PodExec}, {@link ExecWorkspace}); suspend
 * deletes the pod and keeps its claim, resume makes the pod again on the same claim, so what was in
 * {@code /workspace} and the outputs is still there while running processes are not. Background processes are kept
 * by the pod ({@link PodProcesses}), so they outlive the server and end with the pod.
 */
final class KubernetesSandbox implements Sandbox {
    private static final SandboxStatus GONE = new SandboxStatus(false, false, -1, -1, -1, -1, -1);
    private static final SandboxStatus SUSPENDED = new SandboxStatus(true, true, -1, -1, -1, -1, -1);

    private final ClusterSandboxes pods;
    private final String sandboxId;
    private final PodExec exec;
    private final PodProcesses processes;
    private volatile boolean suspended;
    private volatile boolean terminated;

    KubernetesSandbox(ClusterSandboxes pods, String sandboxId, boolean suspended) {
        this.pods = pods;
        this.sandboxId = sandboxId;
        this.exec = pods.pods().exec(sandboxId);
        this.processes = new PodProcesses(exec);
        this.suspended = suspended;
    }

    @Override
    public SandboxRef ref() {
        return new SandboxRef(sandboxId, KubernetesDriver.ID, ObjectNames.pod(sandboxId));
    }

    @Override
    public ExecHandle exec(ExecRequest request, ExecOutput output) {
        requireRunning();
        return exec.start(request, output);
    }

    @Override
    public ProcessInfo startProcess(ExecRequest request) {
        requireRunning();
        return processes.start(request);
    }

    @Override
    public List<ProcessInfo> processes() {
        requireRunning();
        return processes.list();
    }

    @Override
    public byte[] processLogs(long pid, long offset, int maxBytes) {
        requireRunning();
        return processes.logs(pid, offset, maxBytes);
    }

    @Override
    public void signalProcess(long pid, int signal) {
        requireRunning();
        processes.signal(pid, signal);
    }

    @Override
    public Workspace workspace() {
        requireRunning();
        return new ExecWorkspace(exec, Workspace.ROOT);
    }

    @Override
    public Workspace outputs() {
        requireRunning();
        return new ExecWorkspace(exec, Workspace.OUTPUTS);
    }

    @Override
    public void suspend() {
        requireAlive();
        if (suspended) return;
        pods.suspend(sandboxId);
        suspended = true;
    }

    @Override
    public void resume() {
        requireAlive();
        if (!suspended) return;
        pods.resume(sandboxId);
        suspended = false;
    }

    @Override
    public void terminate(TerminationReason reason) {
        terminated = true;
        pods.release(sandboxId);
    }

    @Override
    public SandboxStatus inspect() {
        if (terminated) return GONE;
        if (suspended) return SUSPENDED;
        return pods.pods().running(sandboxId) ? PodStats.read(exec) : GONE;
    }

    private void requireAlive() {
        if (terminated) throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + sandboxId + " has been terminated");
    }

    private void requireRunning() {
        requireAlive();
        if (suspended) throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + sandboxId + " is suspended; resume it first");
    }
}
