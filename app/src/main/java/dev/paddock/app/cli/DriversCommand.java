package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.client.Terminal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import tools.jackson.databind.JsonNode;

/** {@code paddock drivers}: each loaded driver's conformance claims side by side, one row per claim. */
@Command(name = "drivers", description = "Show the loaded drivers and what each one guarantees.")
public final class DriversCommand extends ClientCommand {
    /** Row label and the JSON pointer of the claim it shows. */
    static final List<String[]> ROWS = List.of(
            new String[] {"runs here", "/available"},
            new String[] {"why not", "/unavailable_reason"},
            new String[] {"description", "/description"},
            new String[] {"lanes", "/lanes"},
            new String[] {"lease", "/lifecycle/lease"},
            new String[] {"suspend/resume", "/lifecycle/suspend_resume"},
            new String[] {"hard terminate", "/lifecycle/hard_terminate"},
            new String[] {"orphan reap", "/lifecycle/orphan_reap"},
            new String[] {"workspace", "/workspace/strategies"},
            new String[] {"durability", "/workspace/durability"},
            new String[] {"outputs", "/outputs/collection"},
            new String[] {"egress enforcement", "/credential_egress/enforcement"},
            new String[] {"intercepted protocols", "/credential_egress/intercepted_protocols"},
            new String[] {"checkpoints", "/runtime_checkpoints"},
            new String[] {"port facts", "/port_facts/available"},
            new String[] {"lacks", "/port_facts/unavailable"});

    @Override
    public Integer call() {
        byte[] raw = client().call("GET", "/v1/drivers", Map.of(), null);
        if (json()) {
            printJson(raw);
            return 0;
        }
        List<JsonNode> drivers = new ArrayList<>();
        drivers.addAll(Fields.objects(Fields.object(raw), "data"));
        if (drivers.isEmpty()) {
            ctx.out().println("no drivers loaded");
            return 0;
        }
        String[] header = new String[drivers.size() + 1];
        header[0] = "CLAIM";
        for (int i = 0; i < drivers.size(); i++) header[i + 1] = Fields.requiredString(drivers.get(i), "driver");
        Table t = new Table(header);
        for (String[] row : ROWS) {
            Object[] cells = new Object[drivers.size() + 1];
            cells[0] = row[0];
            for (int i = 0; i < drivers.size(); i++) cells[i + 1] = cell(drivers.get(i).at(row[1]));
            t.row(cells);
        }
        t.print(ctx.out());
        return 0;
    }

    static String cell(JsonNode v) {
        if (v.isMissingNode() || v.isNull()) return "-";
        if (v.isArray()) {
            List<String> parts = new ArrayList<>();
            v.forEach(x -> parts.add(Terminal.escape(x.isString() ? x.stringValue() : Json.string(x))));
            return parts.isEmpty() ? "none" : String.join(", ", parts);
        }
        String s = v.isString() ? v.stringValue() : Json.string(v);
        return Terminal.escape(s.length() > 200 ? s.substring(0, 200) + "…" : s);
    }
}
