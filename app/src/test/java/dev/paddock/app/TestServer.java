package dev.paddock.app;

import dev.paddock.app.serve.PaddockApp;
import dev.paddock.app.serve.ServeSettings;
import java.nio.file.Path;
import java.util.Map;

/** A real Paddock (SQLite store, runtime host, HTTP server) with the subprocess driver on a free port. */
final class TestServer {
    private TestServer() {}

    static PaddockApp start(Path dataDir) {
        ServeSettings settings = ServeSettings.resolve(
                Map.of("data_dir", dataDir.toString(), "port", "0", "driver", "subprocess"), Map.of(), null, dataDir);
        return PaddockApp.start(settings);
    }
}
