package dev.paddock.app.cli;

import dev.paddock.app.client.PaddockClient;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;

/** {@code paddock sandbox events ID}: the audit trail, oldest first, every page. */
@Command(name = "events", description = "Show a sandbox's audit events, oldest first.")
public final class SandboxEventsCommand extends ClientCommand {
    @Parameters(paramLabel = "ID")
    String id;

    @Override
    public Integer call() {
        String sbx = sandboxId(id);
        Map<String, Object> query = new LinkedHashMap<>();
        query.put("limit", 1000);
        if (json()) {
            printJson(client().call("GET", path("sandboxes", sbx, "events"), query, null));
            return 0;
        }
        Table t = new Table("AT", "TYPE", "DATA");
        while (true) {
            JsonNode page = PaddockClient.parse(client().call("GET", path("sandboxes", sbx, "events"), query, null));
            for (JsonNode e : page.path("data")) {
                JsonNode data = e.path("data");
                t.row(text(e, "at"), text(e, "type"), data.isObject() && data.isEmpty() ? "" : data.isMissingNode() ? "" : data.toString());
            }
            String last = text(page, "last_id");
            if (!page.path("has_more").asBoolean(false) || last == null) break;
            query.put("after_id", last);
        }
        t.print(ctx.out());
        return 0;
    }
}
