package dev.paddock.app.daemon;

import dev.paddock.app.serve.DriverLoader;
import dev.paddock.app.serve.ServeSettings;
import dev.paddock.app.serve.StartupException;
import dev.paddock.core.spi.SandboxDriver;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What {@code paddock runtime pair} runs: the local driver (loaded as {@code paddock serve} loads its default, in
 * its own data directory {@code <data-dir>/daemon}), the daemon's sandboxes on it, and the paired connection.
 */
public final class DaemonRuntime implements AutoCloseable {
    private final SandboxDriver driver;
    private final PairedDaemon daemon;
    private final AtomicBoolean closed = new AtomicBoolean();

    private DaemonRuntime(SandboxDriver driver, PairedDaemon daemon) {
        this.driver = driver;
        this.daemon = daemon;
    }

    /** Loads the driver and reaps what an earlier daemon of this data directory left; does not connect yet. */
    public static DaemonRuntime start(ServeSettings local, URI server, String hostName, int capacity, Duration maxOffline, PairedDaemon.Log log) {
        SandboxDriver driver = DriverLoader.load(local);
        try {
            LocalSandboxes sandboxes = new LocalSandboxes(driver, capacity);
            sandboxes.reapLeftovers();
            return new DaemonRuntime(driver, new PairedDaemon(new PairedDaemon.Settings(server, hostName, maxOffline), sandboxes, log));
        } catch (RuntimeException e) {
            driver.close();
            throw e instanceof StartupException ? e : new StartupException("the daemon could not start: " + e.getMessage());
        }
    }

    public PairedDaemon daemon() { return daemon; }

    public String driverId() { return driver.id(); }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return; // the shutdown hook and the command both close it
        try {
            daemon.close();
        } finally {
            driver.close();
        }
    }
}
