package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.PaddockClient;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import tools.jackson.databind.JsonNode;

/** {@code paddock sandbox list}: the caller's sandboxes, newest first. */
@Command(name = "list", description = "List sandboxes, newest first.")
public final class SandboxListCommand extends ClientCommand {
    @Option(names = {"-a", "--all"}, description = "include terminated sandboxes")
    boolean all;

    @Option(names = "--limit", paramLabel = "N", description = "at most this many (1-1000, default 100)")
    int limit = 100;

    @Override
    public Integer call() {
        if (limit < 1 || limit > 1000) throw CliException.usage("--limit must be between 1 and 1000, got " + limit);
        Map<String, Object> query = new LinkedHashMap<>();
        query.put("limit", limit);
        query.put("include_terminated", all);
        byte[] raw = client().call("GET", "/v1/sandboxes", query, null);
        if (json()) {
            printJson(raw);
            return 0;
        }
        JsonNode page = Fields.object(raw);
        Table t = SandboxTable.table();
        for (JsonNode s : Fields.objects(page, "data")) SandboxTable.addRow(t, s);
        if (t.size() == 0) {
            ctx.out().println("no sandboxes" + (all ? "" : " running (use --all to include terminated ones)"));
        } else {
            t.print(ctx.out());
            if (Fields.bool(page, "has_more", false)) ctx.out().println("(more: raise --limit)");
        }
        return 0;
    }
}
