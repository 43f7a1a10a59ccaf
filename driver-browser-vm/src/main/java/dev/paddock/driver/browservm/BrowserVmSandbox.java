package dev.paddock.driver.browservm;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ProcessInfo;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.SandboxStatus;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.UnsupportedCapabilityException;
import dev.paddock.core.spi.Workspace;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sandbox bound to one paired runtime (a tab, or a paired daemon): every operation is a {@code sandbox.op} on that
 * runtime's relay connection. {@code driverId} is the driver that made it ({@code browser-vm} or {@code daemon}).
 */
final class BrowserVmSandbox implements Sandbox {
    private static final Logger log = LoggerFactory.getLogger(BrowserVmSandbox.class);
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
    /** Cap on the combined stdout and stderr of one command. */
    static final long MAX_OUTPUT_BYTES = 16L << 20;
    private static final Duration EXEC_GRACE = Duration.ofSeconds(30);

    private final BrowserVm vm;
    private final String driverId;
    /** The tab that runs it; another tab of the same tenant adopts it when this one is gone (see the driver). */
    private volatile BrowserRuntime runtime;
    private final SandboxSpec spec;
    private final ScheduledExecutorService timers;
    private final BrowserVmWorkspace workspace = new BrowserVmWorkspace(this);
    private final Set<RemoteExec> running = ConcurrentHashMap.newKeySet();
    private volatile boolean terminated;
    /** Whether the host was told the runtime is gone (and not yet that it is back). */
    private final AtomicBoolean lostReported = new AtomicBoolean();

    BrowserVmSandbox(String driverId, BrowserVm vm, BrowserRuntime runtime, SandboxSpec spec, ScheduledExecutorService timers) {
        this.driverId = driverId;
        this.vm = vm;
        this.runtime = runtime;
        this.spec = spec;
        this.timers = timers;
    }

    @Override
    public SandboxRef ref() { return new SandboxRef(spec.sandboxId(), driverId, runtime.id()); }

    String id() { return spec.sandboxId(); }

    String driverId() { return driverId; }

    String tenantId() { return spec.tenantId(); }

    BrowserRuntime runtime() { return runtime; }

    void moveTo(BrowserRuntime rt) { runtime = rt; }

    /** True once per loss: the caller tells the host. */
    boolean markLost() { return !terminated && lostReported.compareAndSet(false, true); }

    /** True once per return after a reported loss: the caller tells the host. */
    boolean markRestored() { return !terminated && lostReported.compareAndSet(true, false); }

    @Override
    public ExecHandle exec(ExecRequest request, ExecOutput output) {
        requireLive();
        Map<String, String> env = new LinkedHashMap<>(spec.env());
        env.putAll(request.env());
        for (String name : env.keySet()) {
            if (!ENV_NAME.matcher(name).matches()) {
                throw new PaddockException(ErrorCode.INVALID_ENV, "environment variable names are letters, digits and _, not starting with a digit");
            }
        }
        String cwd = GuestPaths.inWorkspace(request.cwd());
        long timeoutSeconds = Math.max(1, (request.timeout().toMillis() + 999) / 1000);
        Map<String, Object> args = new LinkedHashMap<>();
        args.put("argv", request.argv());
        args.put("env", env);
        args.put("cwd", cwd);
        PendingCall call = vm.start(runtime, spec.sandboxId(), "exec", args, request.stdin(), timeoutSeconds, MAX_OUTPUT_BYTES);
        RemoteExec exec = new RemoteExec(this, call, request.timeout(), EXEC_GRACE, output, timers);
        running.add(exec);
        call.future.whenComplete((r, e) -> running.remove(exec));
        return exec;
    }

    Reply call(String op, Map<String, Object> args, byte[] data, long maxReplyBytes) {
        requireLive();
        return vm.call(runtime, spec.sandboxId(), op, args, data, maxReplyBytes);
    }

    void tell(String op, Map<String, Object> args) {
        RelayConnection c = runtime.connection();
        if (c != null) c.tell(spec.sandboxId(), op, args);
    }

    @Override
    public ProcessInfo startProcess(ExecRequest request) {
        throw new UnsupportedCapabilityException(driverId, "background processes");
    }

    @Override
    public List<ProcessInfo> processes() {
        return List.of();
    }

    @Override
    public byte[] processLogs(long pid, long offset, int maxBytes) {
        throw new UnsupportedCapabilityException(driverId, "background processes");
    }

    @Override
    public void signalProcess(long pid, int signal) {
        throw new UnsupportedCapabilityException(driverId, "background processes");
    }

    @Override
    public Workspace workspace() {
        requireLive();
        return workspace;
    }

    @Override
    public void suspend() {
        throw new UnsupportedCapabilityException(driverId, "suspend/resume");
    }

    @Override
    public void resume() {
        throw new UnsupportedCapabilityException(driverId, "suspend/resume");
    }

    /** Kills what runs, clears the tab's workspace (and its OPFS mirror) and frees the tab for another sandbox. */
    @Override
    public void terminate(TerminationReason reason) {
        if (terminated) return;
        terminated = true;
        PaddockException ended = new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + spec.sandboxId() + " was terminated");
        running.forEach(e -> e.abandon(ended));
        BrowserRuntime rt = runtime;
        try {
            if (rt.online()) vm.call(rt, spec.sandboxId(), "destroy", Map.of("reason", reason.name().toLowerCase()), null, 1 << 16);
        } catch (PaddockException e) {
            log.info("the runtime of {} could not clean up ({}); it will when it reconnects", spec.sandboxId(), e.code());
        } finally {
            rt.unbind(spec.sandboxId());
        }
    }

    /** A closed tab may be reopened, and the sandbox with it: the runtime watch records its absence instead. */
    @Override
    public boolean goneWhenNotAlive() {
        return false;
    }

    @Override
    public SandboxStatus inspect() {
        return new SandboxStatus(!terminated && runtime.online(), false, -1, -1, -1, -1, -1);
    }

    boolean terminated() { return terminated; }

    private void requireLive() {
        if (terminated) {
            throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + spec.sandboxId() + " was terminated");
        }
    }
}
