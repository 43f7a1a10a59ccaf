package dev.paddock.app;

import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.serve.PaddockApp;
import dev.paddock.app.serve.ServeSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A real Paddock in this JVM with the bubblewrap driver, on a data dir directly under /tmp (the sandbox's unix
 * socket path must fit in 108 bytes). Closing deletes every sandbox it still runs, destroys any its driver still
 * has (sandboxes outlive a server by design), and removes the data dir.
 */
final class BwrapServer implements AutoCloseable {
    final Path dataDir;
    final PaddockApp app;
    final PaddockClient api;

    BwrapServer(String prefix) throws IOException {
        this(prefix, Map.of());
    }

    /** With {@code settings} on top of the defaults (config keys as in {@code paddock serve}; the driver too). */
    BwrapServer(String prefix, Map<String, String> settings) throws IOException {
        dataDir = Files.createTempDirectory(Path.of("/tmp"), prefix);
        Map<String, String> flags = new java.util.HashMap<>(settings);
        flags.putAll(Map.of("data_dir", dataDir.toString(), "port", "0"));
        flags.putIfAbsent("driver", "bwrap");
        ServeSettings resolved;
        try {
            resolved = ServeSettings.resolve(flags, Map.of(), null, dataDir);
        } catch (RuntimeException e) {
            removeDataDir();
            throw e;
        }
        try {
            app = PaddockApp.start(resolved);
        } catch (RuntimeException e) {
            removeDataDir();
            throw e;
        }
        api = new PaddockClient(app.url(), app.createdAdminKey().orElseThrow());
    }

    Cli cli() {
        return new Cli(Map.of("PADDOCK_DATA_DIR", dataDir.toString()), dataDir);
    }

    @Override
    public void close() throws Exception {
        try {
            for (var s : api.get("/v1/sandboxes", Map.of("limit", 1000)).path("data")) {
                api.call("DELETE", "/v1/sandboxes/" + s.path("id").asString(), Map.of(), null);
            }
        } finally {
            app.close();
            var bwrap = new dev.paddock.driver.bwrap.BwrapDriver(dev.paddock.driver.bwrap.BwrapConfig.defaults(dataDir));
            bwrap.list().forEach(bwrap::destroy); // sandboxes outlive a server by design; a test leaves none behind
            removeDataDir();
        }
    }

    private void removeDataDir() {
        removeDataDir(dataDir);
    }

    /**
     * Removes a test's data dir: first unmounts what an ended sandbox's disk left mounted there (mounted again when its
     * files were read after the end), which rm must not cross and would otherwise outlive the test.
     */
    static void removeDataDir(Path dataDir) {
        try {
            new ProcessBuilder("sh", "-c", "for d in \"$1\"/sandboxes/*; do mountpoint -q \"$d\" && umount -l \"$d\"; done; true", "sh",
                    dataDir.toString()).start().waitFor();
            new ProcessBuilder("rm", "-rf", dataDir.toString()).start().waitFor();
        } catch (IOException e) {
            System.err.println("could not remove " + dataDir + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
