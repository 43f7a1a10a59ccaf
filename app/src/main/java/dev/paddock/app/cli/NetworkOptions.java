package dev.paddock.app.cli;

import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.core.Text;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Turns {@code sandbox create}'s network and credential flags into the {@code network} and {@code credentials} fields. */
final class NetworkOptions {
    private NetworkOptions() {}

    static void apply(ObjectNode body, String network, List<String> allowHosts, boolean packageManagers, List<String> credentials) {
        String mode = network == null ? null : network.toLowerCase(Locale.ROOT);
        if (mode != null && !List.of("none", "limited", "unrestricted").contains(mode)) {
            throw CliException.usage("--network must be none, limited or unrestricted, got '" + Table.clean(Text.clip(network, 40)) + "'");
        }
        if ((!allowHosts.isEmpty() || packageManagers) && !"limited".equals(mode)) {
            throw CliException.usage("--allow-host and --allow-package-managers need --network limited");
        }
        if (mode != null) {
            ObjectNode n = body.putObject("network").put("type", mode);
            if (!allowHosts.isEmpty()) {
                ArrayNode hosts = n.putArray("allowed_hosts");
                allowHosts.forEach(hosts::add);
            }
            if (packageManagers) n.put("allow_package_managers", true);
        }
        if (credentials.isEmpty()) return;
        ArrayNode out = body.putArray("credentials");
        for (String spec : credentials) out.add(credential(spec));
    }

    /** {@code SECRET_ID:host[,host]:ENV[:HEADER[:TEMPLATE]]}; the template may itself contain ':'. */
    static ObjectNode credential(String spec) {
        String[] p = spec.split(":", 5);
        if (p.length < 3 || p[0].isBlank() || p[1].isBlank()) {
            throw CliException.usage("--credential must look like SECRET_ID:host[,host]:ENV_VAR[:header[:template]], got '"
                    + Table.clean(Text.clip(spec, 80)) + "'");
        }
        ObjectNode c = Json.object().put("secret_id", p[0]);
        ArrayNode hosts = c.putArray("hosts");
        for (String h : p[1].split(",")) if (!h.isBlank()) hosts.add(h.strip());
        if (!p[2].isBlank()) c.put("env", p[2]);
        if (p.length > 3 && !p[3].isBlank()) c.put("header", p[3]);
        if (p.length > 4 && !p[4].isBlank()) c.put("template", p[4]);
        return c;
    }
}
