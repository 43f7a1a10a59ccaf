package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.PaddockClient;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code paddock sandbox get ID}: every field of one sandbox. */
@Command(name = "get", description = "Show one sandbox.")
public final class SandboxGetCommand extends ClientCommand {
    @Parameters(paramLabel = "ID")
    String id;

    @Override
    public Integer call() {
        byte[] raw = client().call("GET", path("sandboxes", sandboxId(id)), Map.of(), null);
        if (json()) printJson(raw);
        else SandboxTable.details(Fields.object(raw)).print(ctx.out());
        return 0;
    }
}
