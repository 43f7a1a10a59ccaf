package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.PaddockClient;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;

/** {@code paddock sandbox watch ID [PATH]}: prints changes under a workspace directory as they happen. */
@Command(name = "watch", description = {"Print created, modified and deleted paths under a directory of a sandbox's /workspace as they happen,",
        "until the sandbox ends, the directory goes or you stop it. 'overflow' means changes were left out: list the directory again."})
final class SandboxWatchCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "ID")
    String id;

    @Parameters(index = "1", paramLabel = "PATH", defaultValue = "/workspace", description = "Directory to watch (default: /workspace).")
    String dir;

    @Option(names = {"-r", "--recursive"}, negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Watch subdirectories too (default; --no-recursive for the directory alone).")
    boolean recursive;

    @Override
    public Integer call() {
        Map<String, Object> query = new LinkedHashMap<>();
        query.put("path", dir);
        query.put("recursive", recursive);
        client().streamGet(path("sandboxes", sandboxId(id), "files", "watch"), query, e -> {
            if (json()) {
                printJson(e.data());
            } else {
                JsonNode change = Fields.object(e.data().getBytes(StandardCharsets.UTF_8));
                if (e.event().equals("end")) ctx.out().println("end " + Objects.toString(text(change, "reason"), ""));
                else ctx.out().println(Table.clean(e.event()) + " " + Objects.toString(text(change, "path"), ""));
            }
            ctx.out().flush();
        });
        return 0;
    }
}
