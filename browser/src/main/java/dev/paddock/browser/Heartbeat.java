package dev.paddock.browser;

import dev.paddock.access.Principal;
import dev.paddock.host.RuntimeHost;
import java.time.Duration;

/**
 * Marks a sandbox as active while a long browser call runs: the host's idle policy counts calls, not running
 * commands, and would otherwise freeze a browser in the middle of a script or a slow page.
 */
final class Heartbeat implements AutoCloseable {
    static final Duration EVERY = Duration.ofSeconds(5);
    private final Thread thread;

    Heartbeat(RuntimeHost host, Principal p, String id) {
        thread = Thread.ofVirtual().name("browser-heartbeat-" + id).start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    Thread.sleep(EVERY);
                    host.processes(p, id); // any call through the host notes activity
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    return; // the sandbox is gone or not running: nothing to keep alive
                }
            }
        });
    }

    @Override
    public void close() {
        thread.interrupt();
    }
}
