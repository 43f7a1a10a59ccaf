package dev.paddock.agents;

import dev.paddock.core.agents.Resource;
import dev.paddock.core.spi.NetworkPolicy;
import java.util.List;
import java.util.Map;

/**
 * A stored environment read through its meaning: where a session's tools run ({@code type}: cloud, self_hosted or
 * none) and what a session sandbox of a cloud environment is made with.
 *
 * @param driver   the driver of its sandboxes (cloud), or null
 * @param packages the package lists to install, by manager, empty lists left out
 */
public record Environment(String id, String type, String driver, NetworkPolicy network, Map<String, List<String>> packages) {
    public Environment {
        packages = Map.copyOf(packages);
    }

    /** Reads the environment's normalised {@code config}. */
    public static Environment of(Resource row) {
        Map<String, Object> config = AgentSpec.map(row.body().get("config"));
        String type = config.get("type") instanceof String t ? t : EnvironmentConfigs.CLOUD;
        return new Environment(row.id(), type, (String) config.get(EnvironmentConfigs.DRIVER_FIELD), EnvironmentConfigs.network(config),
                EnvironmentPackages.wanted(config));
    }

    /** An external worker runs the tools. */
    public boolean selfHosted() {
        return EnvironmentConfigs.SELF_HOSTED.equals(type);
    }

    /** The tools run on the host, without a sandbox. */
    public boolean sandboxFree() {
        return EnvironmentConfigs.NONE.equals(type);
    }
}
