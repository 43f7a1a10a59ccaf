package dev.paddock.app.serve;

import dev.paddock.agents.worker.PaddockWorker;
import dev.paddock.browser.BrowserService;
import dev.paddock.browser.BrowserTemplate;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.host.HostConfig;
import dev.paddock.host.RuntimeHost;
import dev.paddock.store.JdbcStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code paddock worker} runs on: a local runtime host (its own SQLite file under the data directory and the
 * configured driver) that the worker creates one sandbox per session on. Close it to stop the worker and release
 * everything in reverse order.
 */
public final class WorkerRuntime implements AutoCloseable {
    private final List<AutoCloseable> parts;
    private final PaddockWorker worker;

    private WorkerRuntime(List<AutoCloseable> parts, PaddockWorker worker) {
        this.parts = parts;
        this.worker = worker;
    }

    /** {@code s} gives the data directory and driver; the worker keeps its state in {@code <data-dir>/worker}. */
    public static WorkerRuntime start(ServeSettings s, String baseUrl, String environmentId, String environmentKey, String workerId) {
        List<AutoCloseable> started = new ArrayList<>();
        try {
            Path dir = s.dataDir().resolve("worker");
            Files.createDirectories(dir);
            SandboxDriver driver = DriverLoader.load(s);
            started.add(driver);
            JdbcStore store = JdbcStore.openSqlite(dir.resolve("worker.db"));
            started.add(store);
            RuntimeHost host = new RuntimeHost(HostConfig.defaults(dir).withDefaultDriver(driver.id()), store, List.of(driver), Clock.systemUTC());
            started.add(host);
            host.addTemplate(new BrowserTemplate(new BrowserService(host), 0)); // the same kinds as the server's host
            host.start();
            PaddockWorker worker = new PaddockWorker(new PaddockWorker.Settings(baseUrl, environmentId, environmentKey, workerId,
                    null, null, null), host);
            started.add(worker);
            return new WorkerRuntime(started, worker);
        } catch (IOException e) {
            closeAll(started);
            throw new StartupException("cannot create the worker's data directory: " + e.getMessage());
        } catch (RuntimeException e) {
            closeAll(started);
            if (e instanceof StartupException) throw e;
            throw new StartupException("the worker could not start: " + e.getMessage());
        }
    }

    /** Serves work until {@link #close()} (from another thread) or a fatal queue error. */
    public void run() {
        worker.run();
    }

    @Override
    public void close() {
        closeAll(parts);
    }

    private static void closeAll(List<AutoCloseable> parts) {
        for (int i = parts.size() - 1; i >= 0; i--) {
            try {
                parts.get(i).close();
            } catch (Exception ignored) {
                // shutting down; nothing more to do
            }
        }
        parts.clear();
    }
}
