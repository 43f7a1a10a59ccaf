package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code paddock sandbox network ID --allow-host HOST ...}: changes a running sandbox's network policy. */
@Command(name = "network", description = {"Change the network policy of a running sandbox (new connections meet it at once; open ones are closed).",
        "Only a sandbox started with a network (limited or unrestricted) can change; its credentials stay as they were."})
final class SandboxNetworkCommand extends ClientCommand {
    @Parameters(paramLabel = "ID")
    String id;

    @Option(names = "--network", paramLabel = "MODE", description = "none, limited or unrestricted (default: limited).")
    String network = "limited";

    @Option(names = {"--allow", "--allow-host"}, paramLabel = "HOST", description = "A host the sandbox may reach (repeatable; pattern as in create).")
    List<String> allowHosts = new ArrayList<>();

    @Option(names = "--allow-package-managers", description = "Also allow the package registries (apt, pip, npm, ...).")
    boolean allowPackageManagers;

    @Override
    public Integer call() {
        ObjectNode wrapper = Json.object();
        NetworkOptions.apply(wrapper, network, allowHosts, allowPackageManagers, List.of());
        byte[] raw = client().call("PATCH", path("sandboxes", sandboxId(id), "network"), Map.of(), wrapper.get("network"));
        if (json()) {
            printJson(raw);
            return 0;
        }
        JsonNode s = SandboxTable.checked(Fields.object(raw));
        JsonNode n = Fields.object(s, "network");
        List<String> hosts = Fields.strings(n, "allowed_hosts");
        String type = text(n, "type");
        ctx.out().println(text(s, "id") + " network " + (type == null ? "none" : type) + (hosts.isEmpty() ? "" : " " + String.join(",", hosts)));
        return 0;
    }
}
