package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;

/** {@code paddock sandbox ports open|ls|close}: forwarded ports of a sandbox and the URLs that reach them. */
@Command(name = "ports", description = "Open, list and close forwarded ports (a server on the sandbox's loopback, reached through Paddock).",
        subcommands = {SandboxPortCommands.Open.class, SandboxPortCommands.Ls.class, SandboxPortCommands.Close.class})
final class SandboxPortCommands {
    private SandboxPortCommands() {}

    static String ports(String sandboxId) {
        return ClientCommand.path("sandboxes", sandboxId, "ports");
    }

    @Command(name = "open", description = "Open a port; prints the URL that reaches it (it carries the port's token: no API key needed).")
    static final class Open extends ClientCommand {
        @Parameters(index = "0", paramLabel = "ID")
        String id;

        @Parameters(index = "1", paramLabel = "PORT")
        int port;

        @Override
        public Integer call() {
            byte[] raw = client().call("POST", ports(sandboxId(id)), Map.of(), Json.object().put("port", port));
            if (json()) printJson(raw);
            else ctx.out().println(client().baseUrl() + Fields.requiredString(Fields.object(raw), "url"));
            ctx.out().flush();
            return 0;
        }
    }

    @Command(name = "ls", description = "List a sandbox's open ports and their URLs.")
    static final class Ls extends ClientCommand {
        @Parameters(index = "0", paramLabel = "ID")
        String id;

        @Override
        public Integer call() {
            byte[] raw = client().call("GET", ports(sandboxId(id)), Map.of(), null);
            if (json()) {
                printJson(raw);
                return 0;
            }
            List<JsonNode> data = Fields.objects(Fields.object(raw), "data");
            if (data.isEmpty()) {
                ctx.out().println("no open ports (open one with `paddock sandbox ports open ID PORT`)");
            } else {
                Table t = new Table("PORT", "URL");
                for (JsonNode p : data) t.row(Fields.integer(p, "port"), client().baseUrl() + Fields.requiredString(p, "url"));
                t.print(ctx.out());
            }
            ctx.out().flush();
            return 0;
        }
    }

    @Command(name = "close", description = "Close a port; its URL stops working.")
    static final class Close extends ClientCommand {
        @Parameters(index = "0", paramLabel = "ID")
        String id;

        @Parameters(index = "1", paramLabel = "PORT")
        int port;

        @Override
        public Integer call() {
            client().call("DELETE", ports(sandboxId(id)) + "/" + port, Map.of(), null);
            return 0;
        }
    }
}
