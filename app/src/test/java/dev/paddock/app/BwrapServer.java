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
 * socket path must fit in 108 bytes). Closing terminates every sandbox it still runs and removes the data dir.
 */
final class BwrapServer implements AutoCloseable {
    final Path dataDir;
    final PaddockApp app;
    final PaddockClient api;

    BwrapServer(String prefix) throws IOException {
        dataDir = Files.createTempDirectory(Path.of("/tmp"), prefix);
        ServeSettings settings = ServeSettings.resolve(
                Map.of("data_dir", dataDir.toString(), "port", "0", "driver", "bwrap"), Map.of(), null, dataDir);
        try {
            app = PaddockApp.start(settings);
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
            removeDataDir();
        }
    }

    private void removeDataDir() {
        try {
            new ProcessBuilder("rm", "-rf", dataDir.toString()).start().waitFor();
        } catch (IOException e) {
            System.err.println("could not remove " + dataDir + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
