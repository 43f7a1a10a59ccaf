package dev.paddock.app;

import dev.paddock.app.TerminalAndPortsEndToEndTest.TerminalClient;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.net.http.HttpClient;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * What the terminal and port tests run against, once per test class: a bwrap server without warm pool, one sandbox on
 * it, and an HTTP/1.1 client for WebSockets and raw requests. (The test classes run one after another: the fields
 * belong to the class that runs.)
 */
abstract class OneSandboxServerTest {
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static BwrapServer server;
    static PaddockClient api;
    static String sandbox;

    @BeforeAll
    static void startServer() throws Exception {
        server = new BwrapServer("pts", Map.of("warm_pool_size", "0"));
        api = server.api;
        sandbox = api.json("POST", "/v1/sandboxes", Map.of(), Json.object()).path("id").asString();
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) server.close();
        server = null;
    }

    /** A terminal client (output and control messages collected) connected to {@code path} on this server. */
    static TerminalClient connect(String path) {
        return TerminalClient.connect(server.app.url(), path);
    }
}
