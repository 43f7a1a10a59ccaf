package dev.paddock.driver.docker;

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
import dev.paddock.init.InitClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * A live Docker sandbox: commands go to its init agent over the bound socket, lifecycle goes through the engine
 * (pause, unpause, forced removal). Stdin of {@link #exec} is the request's bytes then end-of-file, as with every
 * init-based driver: there is no interactive stdin.
 */
final class DockerSandbox implements Sandbox {
    private static final Duration STATUS_PING = Duration.ofSeconds(1);

    private final DockerDriver driver;
    private final DockerPaths paths;
    private final String containerId;
    private final InitClient init;
    private final OomCounter oomKills;
    private volatile boolean paused;
    private volatile boolean terminated;

    DockerSandbox(DockerDriver driver, DockerPaths paths, DockerEngine.Container container) {
        this.driver = driver;
        this.paths = paths;
        this.containerId = container.id();
        this.init = new InitClient(paths.socket());
        this.paused = container.paused();
        this.oomKills = OomCounter.ofProcess(container.pid());
    }

    @Override
    public SandboxRef ref() {
        return new SandboxRef(paths.sandboxId(), DockerDriver.ID, paths.sandboxId());
    }

    String containerId() {
        return containerId;
    }

    InitClient init() {
        return init;
    }

    @Override
    public ExecHandle exec(ExecRequest request, ExecOutput output) {
        requireRunning();
        return init.exec(request, output, oomKills);
    }

    @Override
    public ProcessInfo startProcess(ExecRequest request) {
        requireRunning();
        long pid = init.startBackground(request);
        return processes().stream().filter(p -> p.pid() == pid).findFirst()
                .orElseThrow(() -> PaddockException.internal("background process " + pid + " vanished from the sandbox's list", null));
    }

    @Override
    public List<ProcessInfo> processes() {
        requireRunning();
        return init.processes();
    }

    @Override
    public byte[] processLogs(long pid, long offset, int maxBytes) {
        requireRunning();
        if (offset < 0 || maxBytes < 0) throw new PaddockException(ErrorCode.INVALID_RANGE, "offset and max bytes must not be negative");
        return init.logs(pid, offset, maxBytes);
    }

    @Override
    public void signalProcess(long pid, int signal) {
        requireRunning();
        if (signal < 1 || signal > 64) throw new PaddockException(ErrorCode.INVALID_SIGNAL, "signal must be between 1 and 64, got " + signal);
        init.signal(pid, signal);
    }

    @Override
    public Workspace workspace() {
        return driver.openWorkspace(paths);
    }

    @Override
    public Workspace outputs() {
        return driver.openOutputs(paths);
    }

    @Override
    public void suspend() {
        requireAlive();
        try {
            driver.engine().pause(containerId);
        } catch (PaddockException refused) {
            // see resume: the engine's paused flag can lag behind; a frozen init does not answer
            if (answers()) throw refused;
        }
        paused = true;
    }

    @Override
    public void resume() {
        requireAlive();
        try {
            driver.engine().unpause(containerId);
        } catch (PaddockException refused) {
            // the engine applies its own pause and unpause events late, so its paused flag can briefly say the
            // opposite of the container's state: what counts is whether init answers, which a frozen one cannot
            if (!answers()) throw refused;
        }
        paused = false;
    }

    @Override
    public void terminate(TerminationReason reason) {
        terminated = true;
        driver.release(paths);
    }

    @Override
    public SandboxStatus inspect() {
        if (terminated) return new SandboxStatus(false, false, -1, -1, -1, -1, -1);
        Optional<DockerEngine.Container> c = driver.engine().inspect(containerId);
        if (c.isEmpty() || !c.get().running()) return new SandboxStatus(false, false, -1, -1, -1, -1, -1);
        boolean frozen = c.get().paused();
        boolean alive = frozen || answers();
        Optional<JsonNode> stats = driver.engine().stats(containerId);
        if (stats.isEmpty()) return new SandboxStatus(alive, frozen, -1, -1, -1, -1, -1);
        JsonNode s = stats.get();
        JsonNode memory = s.path("memory_stats");
        return new SandboxStatus(alive, frozen, memory.path("usage").asLong(-1), memory.path("limit").asLong(-1),
                s.path("pids_stats").path("current").asInt(-1), oomKills.getAsLong(), s.path("cpu_stats").path("cpu_usage").path("total_usage").asLong(-1));
    }

    private boolean answers() {
        try {
            init.ping(STATUS_PING);
            return true;
        } catch (PaddockException e) {
            return false;
        }
    }

    private void requireAlive() {
        if (terminated) throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + paths.sandboxId() + " has been terminated");
    }

    private void requireRunning() {
        requireAlive();
        if (paused) throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + paths.sandboxId() + " is suspended; resume it first");
    }
}
