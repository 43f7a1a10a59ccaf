package dev.paddock.app.cli;

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
                if (json()) ctx.out().println(e.data());
                else ctx.out().println(String.join("  ", row(PaddockClient.parse(e.data().getBytes(StandardCharsets.UTF_8)))));
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
            JsonNode page = PaddockClient.parse(client().call("GET", path, query, null));
            for (JsonNode r : page.path("data")) t.row(row(r));
            String last = text(page, "last_id");
            if (!page.path("has_more").asBoolean(false) || last == null) break;
            query.put("after_id", last);
        }
        t.print(ctx.out());
        return 0;
    }

    private static final String[] HEADERS = {"TIME", "DECISION", "METHOD", "HOST", "PORT", "ADDRESS", "STATUS", "RULE", "UP", "DOWN", "MS", "URL"};

    private static String[] row(JsonNode r) {
        String injected = r.path("injected_secrets").isEmpty() ? "" : " +" + r.path("injected_secrets").size() + " credential(s)";
        return new String[] {text(r, "time"), text(r, "decision"), text(r, "method"), text(r, "host"), r.path("port").asString(),
                text(r, "resolved_address"), r.path("status").asString(), Objects.toString(text(r, "rule"), "") + injected, r.path("bytes_up").asString(),
                r.path("bytes_down").asString(), r.path("duration_ms").asString(), text(r, "url")};
    }
}
