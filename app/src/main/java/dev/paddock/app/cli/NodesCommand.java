package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.client.Terminal;
import dev.paddock.core.Text;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;

/** {@code paddock nodes [drain|activate ID]}: the servers sharing one PostgreSQL store (the operator's key). */
@Command(name = "nodes", description = "List the cluster's nodes: state, lease age, free capacity, sandboxes and checkpoint directory (the operator's key).",
        subcommands = {NodesCommand.Drain.class, NodesCommand.Activate.class})
public final class NodesCommand extends ClientCommand {
    @Override public Integer call() {
        byte[] raw = client().call("GET", "/v1/nodes", Map.of(), null);
        if (json()) {
            printJson(raw);
            return 0;
        }
        Table t = new Table("ID", "STATE", "EPOCH", "URL", "LEASE AGE", "MEMORY FREE", "PIDS FREE", "SANDBOXES", "LABELS", "CHECKPOINT DIR");
        for (JsonNode n : Fields.objects(Fields.object(raw), "data")) {
            JsonNode capacity = Fields.object(n, "capacity");
            String checkpointDir = text(n, "checkpoint_dir");
            t.row(Fields.requiredString(n, "id") + (Fields.bool(n, "self", false) ? " *" : ""), text(n, "state"), Fields.number(n, "epoch"), text(n, "url"),
                    Units.formatDuration(Duration.ofMillis(Math.max(0, Fields.integer(n, "lease_age_ms", 0)))),
                    Units.formatSize(Fields.integer(capacity, "memory_free_bytes", 0)), Fields.number(capacity, "pids_free"),
                    Fields.number(n, "active_sandboxes"), labels(Fields.object(n, "labels")), checkpointDir == null ? "-" : checkpointDir);
        }
        t.print(ctx.out());
        return 0;
    }

    static String labels(JsonNode labels) {
        StringBuilder out = new StringBuilder();
        labels.properties().forEach(e -> out.append(out.isEmpty() ? "" : ",").append(Terminal.escape(e.getKey())).append('=')
                .append(Fields.string(labels, e.getKey())));
        return out.isEmpty() ? "-" : out.toString();
    }

    @Command(name = "drain", description = "Place no new sandboxes on a node; with --wait, wait until the ones it holds have ended.")
    static final class Drain extends ClientCommand {
        @Parameters(paramLabel = "NODE_ID")
        String id;

        @Option(names = "--wait", description = "wait until the node holds no active sandbox")
        boolean await;

        @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "1h", description = "longest wait (default: ${DEFAULT-VALUE})")
        String timeout;

        @Override public Integer call() {
            JsonNode n = Fields.object(client().call("POST", path("nodes", nodeId(id), "drain"), Map.of(), null));
            ctx.err().println("node " + id + " is draining; it holds " + Fields.number(n, "active_sandboxes") + " active sandbox(es)");
            if (await) n = waitEmpty(Units.duration(timeout));
            if (json()) printJson(Json.bytes(n));
            return 0;
        }

        private JsonNode waitEmpty(Duration limit) {
            long deadline = System.nanoTime() + limit.toNanos();
            while (true) {
                JsonNode n = Fields.object(client().call("GET", path("nodes", nodeId(id)), Map.of(), null));
                if (Fields.integer(n, "active_sandboxes", 0) == 0) {
                    ctx.err().println("node " + id + " holds no active sandbox");
                    return n;
                }
                if (System.nanoTime() > deadline) {
                    throw new CliException("node " + id + " still holds " + Fields.number(n, "active_sandboxes") + " active sandbox(es) after " + timeout);
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return n;
                }
            }
        }
    }

    @Command(name = "activate", description = "Let a drained node take new sandboxes again.")
    static final class Activate extends ClientCommand {
        @Parameters(paramLabel = "NODE_ID")
        String id;

        @Override public Integer call() {
            byte[] raw = client().call("POST", path("nodes", nodeId(id), "activate"), Map.of(), null);
            if (json()) printJson(raw);
            else ctx.out().println("node " + id + " is active");
            return 0;
        }
    }

    static String nodeId(String id) {
        if (!id.matches("node_[A-Za-z0-9]{1,58}")) {
            throw CliException.usage("'" + Table.clean(Text.clip(id, 60)) + "' is not a node id; ids look like node_… (see `paddock nodes`)");
        }
        return id;
    }
}
