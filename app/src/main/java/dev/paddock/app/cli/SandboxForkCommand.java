package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.PaddockClient;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code paddock sandbox fork ID}: a new sandbox with the settings and a copy of the workspace of another. */
@Command(name = "fork", description = {"Start a new sandbox from a running or suspended one: its settings and a consistent copy of its workspace",
        "(and its running processes, on drivers with memory checkpoints). Prints the new sandbox's id."})
final class SandboxForkCommand extends ClientCommand {
    @Parameters(paramLabel = "ID")
    String id;

    @Override
    public Integer call() {
        byte[] raw = client().call("POST", path("sandboxes", sandboxId(id), "fork"), Map.of(), null);
        if (json()) printJson(raw);
        else ctx.out().println(Fields.requiredString(Fields.object(raw), "id"));
        return 0;
    }
}
