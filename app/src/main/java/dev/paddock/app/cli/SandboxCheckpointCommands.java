package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.core.Ids;
import dev.paddock.core.Text;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;

/** {@code paddock sandbox checkpoint|checkpoint rm|checkpoints|restore}: workspace snapshots. */
final class SandboxCheckpointCommands {
    private SandboxCheckpointCommands() {}

    @Command(name = "checkpoint", description = "Snapshot a sandbox's workspace and print the checkpoint id.",
            subcommands = Remove.class)
    static final class Create extends ClientCommand {
        // optional for picocli so that `checkpoint rm …` parses; required when no subcommand is given
        @Parameters(paramLabel = "ID", arity = "0..1")
        String id;

        @Override public Integer call() {
            if (id == null) throw CliException.usage("Missing required parameter: 'ID' (or use `paddock sandbox checkpoint rm ID CHECKPOINT…`)");
            byte[] raw = client().call("POST", path("sandboxes", sandboxId(id), "checkpoints"), Map.of(), null);
            if (json()) printJson(raw);
            else ctx.out().println(Fields.requiredString(Fields.object(raw), "id"));
            return 0;
        }
    }

    @Command(name = "checkpoints", description = "List a sandbox's checkpoints, newest first.")
    static final class ListAll extends ClientCommand {
        @Parameters(paramLabel = "ID")
        String id;

        @Override public Integer call() {
            byte[] raw = client().call("GET", path("sandboxes", sandboxId(id), "checkpoints"), Map.of("limit", 1000), null);
            if (json()) {
                printJson(raw);
                return 0;
            }
            Table t = new Table("ID", "KIND", "SIZE", "CREATED");
            for (JsonNode cp : Fields.objects(Fields.object(raw), "data")) {
                t.row(Fields.requiredString(cp, "id"), text(cp, "kind"), Units.formatSize(Fields.integer(cp, "size_bytes", 0)), text(cp, "created_at"));
            }
            t.print(ctx.out());
            return 0;
        }
    }

    @Command(name = "rm", description = "Delete checkpoints of a sandbox (their archives and records).")
    static final class Remove extends ClientCommand {
        @Parameters(index = "0", paramLabel = "ID")
        String id;

        @Parameters(index = "1..*", arity = "1..*", paramLabel = "CHECKPOINT")
        List<String> checkpoints;

        @Override public Integer call() {
            String sbx = sandboxId(id);
            for (String cp : checkpoints) requireCheckpointId(cp);
            for (String cp : checkpoints) {
                client().call("DELETE", path("sandboxes", sbx, "checkpoints", cp), Map.of(), null);
                if (!json()) ctx.out().println("deleted " + cp);
            }
            return 0;
        }
    }

    static void requireCheckpointId(String checkpoint) {
        if (!Ids.isValid("cp", checkpoint)) {
            throw CliException.usage("'" + Table.clean(Text.clip(checkpoint, 60))
                    + "' is not a checkpoint id; ids look like cp_0123456789abcdefghjkmnpqrs (see `paddock sandbox checkpoints ID`)");
        }
    }

    @Command(name = "restore", description = "Make a sandbox's workspace equal to a checkpoint.")
    static final class Restore extends ClientCommand {
        @Parameters(index = "0", paramLabel = "ID")
        String id;

        @Parameters(index = "1", paramLabel = "CHECKPOINT")
        String checkpoint;

        @Override public Integer call() {
            String sbx = sandboxId(id);
            requireCheckpointId(checkpoint);
            byte[] raw = client().call("POST", path("sandboxes", sbx, "checkpoints", checkpoint, "restore"), Map.of(), null);
            if (json()) printJson(raw);
            else ctx.out().println("restored " + sbx + " to " + checkpoint);
            return 0;
        }
    }
}
