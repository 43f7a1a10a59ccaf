package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code paddock browser script|act}: drive the browser of a sandbox created with {@code --browser}. */
@Command(name = "browser", description = "Run Playwright scripts or single actions in a browser sandbox.",
        subcommands = {BrowserCommand.Script.class, BrowserCommand.Act.class})
public final class BrowserCommand {

    /** Runs a local ES-module script in the sandbox; exits with the script's exit code. */
    @Command(name = "script", description = "Run a Playwright script (ES module; import from 'playwright') inside the sandbox.")
    public static final class Script extends ClientCommand {
        @Parameters(index = "0", paramLabel = "ID") String id;
        @Parameters(index = "1", paramLabel = "FILE") Path file;
        @Option(names = "--timeout", paramLabel = "DURATION", converter = Units.DurationConverter.class, description = "kill the script after this long (default 2m)")
        Duration timeout;

        @Override
        public Integer call() {
            String sbx = sandboxId(id);
            String script;
            try {
                script = Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw CliException.usage("cannot read " + file + ": " + e.getMessage());
            }
            ObjectNode body = Json.object().put("script", script);
            if (timeout != null) body.put("timeout_seconds", timeout.toSeconds());
            // the answer comes once the script ends: wait for its timeout (the server's default is 2 minutes) too
            JsonNode r = client().waitingLonger(timeout != null ? timeout : Duration.ofMinutes(2))
                    .json("POST", path("sandboxes", sbx, "browser", "script"), Map.of(), body);
            if (json()) {
                printJson(r);
            } else {
                // stdout and stderr are the script's own output and pass as they are, as exec's do
                ctx.out().print(raw(r, "stdout"));
                ctx.out().flush();
                ctx.err().print(raw(r, "stderr"));
                for (String f : Fields.strings(r, "files")) ctx.err().println("file: " + f);
                String shot = text(r, "failure_screenshot");
                if (shot != null) ctx.err().println("failure screenshot: " + shot + " (paddock sandbox cp " + sbx + ":" + shot + " .)");
                ctx.err().flush();
            }
            long code = Fields.integer(r, "exit_code", 1);
            return code >= 0 && code <= 255 ? (int) code : 1;
        }

        private static String raw(JsonNode r, String field) {
            JsonNode v = r.path(field);
            if (v.isMissingNode() || v.isNull()) return "";
            Fields.string(r, field); // a string, or the answer is refused
            return v.stringValue();
        }
    }

    /** One step-mode action given as JSON, e.g. {@code '{"action":"navigate","url":"https://example.com"}'}. */
    @Command(name = "act", description = "Run one browser action given as JSON and print the answer (url, title, snapshot, ...).")
    public static final class Act extends ClientCommand {
        @Parameters(index = "0", paramLabel = "ID") String id;
        @Parameters(index = "1", paramLabel = "ACTION_JSON") String action;

        @Override
        public Integer call() {
            String sbx = sandboxId(id);
            JsonNode body;
            try {
                body = Json.read(action);
            } catch (RuntimeException e) {
                throw CliException.usage("ACTION_JSON is not JSON, e.g. '{\"action\":\"snapshot\"}'");
            }
            // an action may wait up to its timeout_ms (default 30 s) before it answers
            long waitMs = body.path("timeout_ms").canConvertToLong() ? Math.max(0, body.path("timeout_ms").asLong()) : 30_000;
            JsonNode r = client().waitingLonger(Duration.ofMillis(Math.min(waitMs, 3_600_000)))
                    .json("POST", path("sandboxes", sbx, "browser", "actions"), Map.of(), body);
            printJson(Json.bytes(r));
            return Fields.bool(r, "ok", false) ? 0 : 1;
        }
    }
}
