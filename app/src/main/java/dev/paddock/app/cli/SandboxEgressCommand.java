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

/** {@code paddock sandbox egress ID [--follow]}: the egress audit log, oldest first. */
@Command(name = "egress", description = "Show a sandbox's outbound connections and requests (egress audit log), oldest first.")
public final class SandboxEgressCommand extends ClientCommand {
    @Parameters(paramLabel = "ID")
    String id;

    @Option(names = {"-f", "--follow"}, description = "keep printing new records until the sandbox ends")
    boolean follow;

    @Override
    public Integer call() {
        String sbx = sandboxId(id);
        String path = path("sandboxes", sbx, "egress");
        if (follow) {
            if (!json()) ctx.out().println(String.join("  ", HEADERS));
            client().streamGet(path, Map.of(), e -> {
                if (!e.event().equals("egress")) return;
                if (json()) printJson(e.data());
                else ctx.out().println(String.join("  ", row(Fields.object(e.data().getBytes(StandardCharsets.UTF_8)))));
                ctx.out().flush();
            });
            return 0;
        }
        Map<String, Object> query = new LinkedHashMap<>();
        query.put("limit", 1000);
        if (json()) {
            printJson(client().call("GET", path, query, null));
            return 0;
        }
        Table t = new Table(HEADERS);
        while (true) {
            JsonNode page = Fields.object(client().call("GET", path, query, null));
            for (JsonNode r : Fields.objects(page, "data")) t.row(row(r));
            String last = text(page, "last_id");
            if (!Fields.bool(page, "has_more", false) || last == null) break;
            query.put("after_id", last);
        }
        t.print(ctx.out());
        return 0;
    }

    private static final String[] HEADERS = {"TIME", "DECISION", "METHOD", "HOST", "PORT", "ADDRESS", "STATUS", "RULE", "UP", "DOWN", "MS", "URL"};

    private static String[] row(JsonNode r) {
        int secrets = Fields.strings(r, "injected_secrets").size();
        String injected = secrets == 0 ? "" : " +" + secrets + " credential(s)";
        return new String[] {text(r, "time"), text(r, "decision"), text(r, "method"), text(r, "host"), cell(Fields.number(r, "port")),
                text(r, "resolved_address"), cell(Fields.number(r, "status")), Objects.toString(text(r, "rule"), "") + injected,
                cell(Fields.number(r, "bytes_up")), cell(Fields.number(r, "bytes_down")), cell(Fields.number(r, "duration_ms")), text(r, "url")};
    }

    private static String cell(String v) {
        return v == null ? "" : v;
    }
}
