package dev.paddock.app.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.paddock.app.Main;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;

/**
 * The workload the build runs once to record the CLI's ahead-of-time cache (JDK 25, {@code -XX:AOTCacheOutput}):
 * the common client commands against a canned API on loopback, so their classes come loaded and linked from the
 * cache and a command's JVM skips that work. Not a command of the CLI; its answers only have to be well formed.
 */
public final class AotTraining {
    private static final String SANDBOX = "{\"id\":\"sbx_aottraining0000000000000000\",\"state\":\"running\",\"driver\":\"bwrap\","
            + "\"created_at\":\"2026-01-01T00:00:00Z\",\"limits\":{\"memory\":\"512m\",\"pids\":256},\"data\":[],\"has_more\":false}";
    private static final String EXEC_EVENTS = "event: stdout\ndata: {\"data_base64\":\"aGkK\"}\n\n"
            + "event: stderr\ndata: {\"data_base64\":\"\"}\n\nevent: exit\ndata: {\"exit_code\":0,\"duration_ms\":1}\n\n";

    private AotTraining() {}

    public static void main(String[] args) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", AotTraining::answer);
        server.start();
        Path home = Files.createTempDirectory("paddock-aot-training");
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort();
            Map<String, String> env = Map.of("PADDOCK_URL", url, "PADDOCK_API_KEY", "pdk_aot_training");
            String id = "sbx_aottraining0000000000000000";
            Path file = Files.writeString(home.resolve("data.txt"), "training\n");
            String[][] commands = {
                    {"--help"}, {"--version"}, {"sandbox", "--help"},
                    {"sandbox", "create"}, {"sandbox", "list"}, {"sandbox", "get", id},
                    {"sandbox", "exec", id, "--", "true"}, {"sandbox", "exec", id, "--", "echo", "hi"},
                    {"sandbox", "ls", id + ":/workspace"}, {"sandbox", "cp", file.toString(), id + ":/workspace/"},
                    {"sandbox", "suspend", id}, {"sandbox", "resume", id}, {"sandbox", "delete", id},
                    {"drivers"}, {"sandbox", "exec", "sbx_unknown", "--", "true"},
            };
            // the client jar holds only what `sandbox` needs: its cache is trained on those commands alone
            boolean sandboxOnly = args.length > 0 && args[0].equals("sandbox");
            for (int round = 0; round < 3; round++) {
                for (String[] command : commands) {
                    if (sandboxOnly && !command[0].equals("sandbox")) continue;
                    CliContext ctx = new CliContext(new ByteArrayInputStream(new byte[0]), OutputStream.nullOutputStream(),
                            OutputStream.nullOutputStream(), env, home);
                    Main.run(ctx, command);
                }
            }
        } finally {
            server.stop(0);
            try (var files = Files.walk(home)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void answer(HttpExchange x) throws IOException {
        try (x) {
            x.getRequestBody().readAllBytes();
            boolean events = x.getRequestHeaders().getFirst("Accept") != null
                    && x.getRequestHeaders().getFirst("Accept").contains("text/event-stream");
            boolean unknown = x.getRequestURI().getPath().contains("sbx_unknown");
            byte[] body = (unknown ? "{\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"code\":\"not_found\",\"message\":\"no such sandbox\"}}"
                    : events ? EXEC_EVENTS : SANDBOX).getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().set("Content-Type", events && !unknown ? "text/event-stream" : "application/json");
            x.sendResponseHeaders(unknown ? 404 : 200, events && !unknown ? 0 : body.length);
            x.getResponseBody().write(body);
        }
    }
}
