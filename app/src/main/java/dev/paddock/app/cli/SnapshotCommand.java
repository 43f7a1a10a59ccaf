package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code paddock snapshot create|ls|rm|start}: named checkpoints of the tenant, and new sandboxes from them. */
@Command(name = "snapshot", description = "Name a sandbox's state, list and delete snapshots, start sandboxes from them.",
        subcommands = {SnapshotCommand.Create.class, SnapshotCommand.ListAll.class, SnapshotCommand.Remove.class, SnapshotCommand.Start.class})
public final class SnapshotCommand {
    @Command(name = "create", description = "Snapshot a sandbox's workspace (and its processes with --memory, where the driver can) under NAME.")
    static final class Create extends ClientCommand {
        @Parameters(index = "0", paramLabel = "ID")
        String id;

        @Parameters(index = "1", paramLabel = "NAME")
        String name;

        @Option(names = "--memory", description = "Also save the running processes (drivers with memory checkpoints: gvisor).")
        boolean memory;

        @Override public Integer call() {
            ObjectNode body = Json.object().put("sandbox_id", sandboxId(id)).put("name", name);
            if (memory) body.put("type", "memory");
            byte[] raw = client().call("POST", path("snapshots"), Map.of(), body);
            if (json()) printJson(raw);
            else ctx.out().println(Fields.requiredString(Fields.object(raw), "name"));
            return 0;
        }
    }

    @Command(name = "ls", aliases = "list", description = "List the snapshots of your tenant, newest first.")
    static final class ListAll extends ClientCommand {
        @Override public Integer call() {
            byte[] raw = client().call("GET", path("snapshots"), Map.of("limit", 1000), null);
            if (json()) {
                printJson(raw);
                return 0;
            }
            Table t = new Table("NAME", "SANDBOX", "KIND", "SIZE", "CREATED");
            for (JsonNode s : Fields.objects(Fields.object(raw), "data")) {
                t.row(Fields.requiredString(s, "name"), text(s, "sandbox_id"), text(s, "kind"), Units.formatSize(Fields.integer(s, "size_bytes", 0)), text(s, "created_at"));
            }
            t.print(ctx.out());
            return 0;
        }
    }

    @Command(name = "rm", aliases = "delete", description = "Delete a snapshot (its archive and record).")
    static final class Remove extends ClientCommand {
        @Parameters(paramLabel = "NAME")
        String name;

        @Override public Integer call() {
            client().call("DELETE", path("snapshots", name), Map.of(), null);
            if (!json()) ctx.out().println("deleted " + Table.clean(name));
            return 0;
        }
    }

    @Command(name = "start", description = "Start a new sandbox from a snapshot (the settings of its sandbox, its files). Prints the new id.")
    static final class Start extends ClientCommand {
        @Parameters(paramLabel = "NAME")
        String name;

        @Override public Integer call() {
            byte[] raw = client().call("POST", path("sandboxes"), Map.of(), Json.object().put("from_snapshot", name));
            if (json()) printJson(raw);
            else ctx.out().println(Fields.requiredString(Fields.object(raw), "id"));
            return 0;
        }
    }
}
