package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
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
            JsonNode page = Fields.object(client().call("GET", path("sandboxes", sbx, "events"), query, null));
            for (JsonNode e : Fields.objects(page, "data")) {
                JsonNode data = Fields.object(e, "data");
                t.row(text(e, "at"), text(e, "type"), data.isEmpty() ? "" : Fields.anyValue(e, "data", 2000));
            }
            String last = text(page, "last_id");
            if (!Fields.bool(page, "has_more", false) || last == null) break;
            query.put("after_id", last);
        }
        t.print(ctx.out());
        return 0;
    }
}
