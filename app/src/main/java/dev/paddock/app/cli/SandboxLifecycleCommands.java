package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.PaddockClient;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;

/** {@code paddock sandbox rm|suspend|resume ID}: one request each, printing the new state. */
final class SandboxLifecycleCommands {
    private SandboxLifecycleCommands() {}

    abstract static class StateChange extends ClientCommand {
        @Parameters(paramLabel = "ID")
        String id;

        abstract byte[] send(String sandboxId);

        @Override
        public Integer call() {
            byte[] raw = send(sandboxId(id));
            if (json()) {
                printJson(raw);
            } else {
                JsonNode s = SandboxTable.checked(Fields.object(raw));
                ctx.out().println(text(s, "id") + " " + text(s, "state"));
            }
            return 0;
        }
    }

    @Command(name = "rm", aliases = "delete", description = "Terminate a sandbox (its workspace stays readable; a browser sandbox's does not).")
    static final class Remove extends StateChange {
        @picocli.CommandLine.Option(names = "--purge", arity = "0..1", paramLabel = "true|false",
                description = "Also remove its workspace and outputs from the host (the default for browser sandboxes; --purge=false keeps them).")
        Boolean purge;

        @Override byte[] send(String sandboxId) {
            return client().call("DELETE", path("sandboxes", sandboxId), purge == null ? Map.of() : Map.of("purge", purge), null);
        }
    }

    @Command(name = "suspend", description = "Freeze a sandbox's processes.")
    static final class Suspend extends StateChange {
        @Override byte[] send(String sandboxId) {
            return client().call("POST", path("sandboxes", sandboxId, "suspend"), Map.of(), null);
        }
    }

    @Command(name = "resume", description = "Thaw a suspended sandbox.")
    static final class Resume extends StateChange {
        @Override byte[] send(String sandboxId) {
            return client().call("POST", path("sandboxes", sandboxId, "resume"), Map.of(), null);
        }
    }
}
