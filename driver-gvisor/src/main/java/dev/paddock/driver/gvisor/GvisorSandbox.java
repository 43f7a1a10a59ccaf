package dev.paddock.driver.gvisor;

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
 * A live gVisor sandbox: commands go to its init agent, lifecycle goes through runsc. Stdin of {@link #exec} is the
 * request's bytes then end-of-file, as on the bwrap driver. Processes killed by gVisor's own kernel for memory are
 * not seen by the host cgroup, so results do not report them as out-of-memory kills.
 */
final class GvisorSandbox extends InitSandbox {

    private final GvisorDriver driver;
    private final SandboxDirs paths;
    private final GvisorMeta meta;
    private volatile boolean paused;
    private volatile boolean ended;

    GvisorSandbox(GvisorDriver driver, SandboxDirs paths, GvisorMeta meta, boolean paused) {
        super(new InitClient(paths.socket()), () -> 0);
        this.driver = driver;
        this.paths = paths;
        this.meta = meta;
        this.paused = paused;
    }

    @Override
    public SandboxRef ref() {
        return new SandboxRef(paths.sandboxId(), GvisorDriver.ID, paths.sandboxId());
    }

    SandboxDirs paths() {
        return paths;
    }

    GvisorMeta meta() {
        return meta;
    }

    @Override
    public Workspace workspace() {
        return paths.openWorkspace(OciBundle.SANDBOX_UID);
    }

    @Override
    public Workspace outputs() {
        return paths.openOutputs(OciBundle.SANDBOX_UID);
    }

    @Override
    public synchronized void suspend() {
        requireAlive();
        if (paused) return;
        driver.runsc().pause(paths.sandboxId(), meta.overlay());
        paused = true;
    }

    @Override
    public synchronized void resume() {
        requireAlive();
        if (!paused) return;
        driver.runsc().resume(paths.sandboxId(), meta.overlay());
        paused = false;
    }

    boolean paused() {
        return paused;
    }

    @Override
    public void terminate(TerminationReason reason) {
        ended = true;
        driver.release(paths, meta);
    }

    /** The runtime ended without a terminate (saved to a memory checkpoint); the files stay. */
    void ended() {
        ended = true;
    }

    @Override
    public SandboxStatus inspect() {
        if (ended) return new SandboxStatus(false, false, -1, -1, -1, -1, -1);
        Optional<Runsc.State> state = driver.runsc().state(paths.sandboxId(), meta.overlay());
        boolean frozen = state.map(Runsc.State::paused).orElse(false);
        boolean alive = frozen || (state.map(Runsc.State::running).orElse(false) && answers());
        Optional<JsonNode> stats = alive ? driver.runsc().stats(paths.sandboxId(), meta.overlay()) : Optional.empty();
        if (stats.isEmpty()) return new SandboxStatus(alive, frozen, -1, -1, -1, -1, -1);
        JsonNode s = stats.get();
        long limit = s.path("memory").path("usage").path("limit").asLong(0);
        return new SandboxStatus(alive, frozen, s.path("memory").path("usage").path("usage").asLong(-1), limit > 0 ? limit : -1,
                s.path("pids").path("current").asInt(-1), -1, s.path("cpu").path("usage").path("total").asLong(-1));
    }

    private void requireAlive() {
        if (ended) throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + paths.sandboxId() + " has ended");
    }

    @Override
    protected void requireRunning() {
        requireAlive();
        if (paused) throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "sandbox " + paths.sandboxId() + " is suspended; resume it first");
    }
}
