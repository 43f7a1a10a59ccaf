package dev.paddock.driver.docker;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxStatus;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.Workspace;
import dev.paddock.init.InitClient;
import dev.paddock.init.InitSandbox;
import dev.paddock.init.SandboxDirs;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * A live Docker sandbox: commands go to its init agent over the bound socket, lifecycle goes through the engine
 * (pause, unpause, forced removal). Stdin of {@link #exec} is the request's bytes then end-of-file, as with every
 * init-based driver: there is no interactive stdin.
 */
final class DockerSandbox extends InitSandbox {

    private final DockerDriver driver;
    private final SandboxDirs paths;
    private final String containerId;
    private volatile boolean paused;
    private final OomCounter oomKills;
    private volatile boolean terminated;

    DockerSandbox(DockerDriver driver, SandboxDirs paths, DockerEngine.Container container) {
        OomCounter oomKills = OomCounter.ofProcess(container.pid());
        super(new InitClient(paths.socket()), oomKills);
        this.oomKills = oomKills;
        this.driver = driver;
        this.paths = paths;
        this.containerId = container.id();
        this.paused = container.paused();
    }

    @Override
    public SandboxRef ref() {
        return new SandboxRef(paths.sandboxId(), DockerDriver.ID, paths.sandboxId());
    }

    String containerId() {
        return containerId;
    }

    @Override
    public Workspace workspace() {
        return paths.openWorkspace(driver.config().uid());
    }

    @Override
    public Workspace outputs() {
        return paths.openOutputs(driver.config().uid());
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

    private void requireAlive() {
        if (terminated) throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + paths.sandboxId() + " has been terminated");
    }

    @Override
    protected void requireRunning() {
        requireAlive();
        if (paused) throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + paths.sandboxId() + " is suspended; resume it first");
    }
}
