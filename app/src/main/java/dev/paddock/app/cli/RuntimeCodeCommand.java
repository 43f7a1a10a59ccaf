package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.PaddockClient;
import java.util.Map;
import picocli.CommandLine.Command;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/** {@code paddock runtime code}: mints a one-time pairing code for a paired daemon (POST /v1/runtimes/pairing_codes). */
@Command(name = "code", description = "Mint a one-time code to pair a daemon (paddock runtime pair) with this server.")
public final class RuntimeCodeCommand extends ClientCommand {
    @Override
    public Integer call() {
        JsonNode body = JsonNodeFactory.instance.objectNode().put("kind", "daemon");
        byte[] raw = client().call("POST", "/v1/runtimes/pairing_codes", Map.of(), body);
        if (json()) {
            printJson(raw);
            return 0;
        }
        JsonNode n = Fields.object(raw);
        ctx.out().println(text(n, "code"));
        ctx.out().println("Run on the machine to pair (single use, until " + text(n, "expires_at") + "):");
        ctx.out().println("    " + text(n, "command"));
        ctx.out().flush();
        return 0;
    }
}
