package dev.paddock.app;

import dev.paddock.app.serve.PaddockApp;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * One real server (subprocess driver) for a class of CLI tests, and a CLI that finds both its URL and its admin key
 * through the data directory only.
 */
abstract class CliAgainstTestServer {
    @TempDir static Path dataDir;
    static PaddockApp app;
    static Cli cli;

    @BeforeAll
    static void startServer() {
        app = TestServer.start(dataDir);
        cli = new Cli(Map.of("PADDOCK_DATA_DIR", dataDir.toString()), dataDir);
    }

    @AfterAll
    static void stopServer() {
        if (app != null) app.close();
    }
}
