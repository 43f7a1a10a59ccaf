package dev.paddock.agents;

import dev.paddock.core.spi.NetworkPolicy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An environment's {@code config}, checked by {@link EnvironmentConfigs}: where the tools run ({@code type}) and, for
 * {@code cloud}, the sandbox's network, packages and driver (null for the other types).
 *
 * @param packages the package names by manager, every manager present in {@link EnvironmentConfigs#PACKAGE_MANAGERS} order
 */
public record EnvironmentConfig(String type, Networking networking, Map<String, List<String>> packages, String driver) {
    static final String UNRESTRICTED = "unrestricted";
    static final String LIMITED = "limited";

    /** {@code unrestricted}, or {@code limited} to the hosts given (and the package registries, MCP servers when allowed). */
    public record Networking(String type, List<String> allowedHosts, boolean allowPackageManagers, boolean allowMcpServers) {
        static final Networking NOTHING = new Networking(LIMITED, List.of(), false, false);

        public Networking {
            allowedHosts = List.copyOf(allowedHosts);
        }

        /** The sandbox network this asks for. */
        NetworkPolicy policy() {
            if (UNRESTRICTED.equals(type)) return new NetworkPolicy(NetworkPolicy.Mode.UNRESTRICTED, List.of(), true);
            if (allowedHosts.isEmpty() && !allowPackageManagers) return NetworkPolicy.NONE;
            return new NetworkPolicy(NetworkPolicy.Mode.LIMITED, allowedHosts, allowPackageManagers);
        }

        Map<String, Object> toWire() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", type);
            if (UNRESTRICTED.equals(type)) return m;
            m.put("allowed_hosts", new ArrayList<>(allowedHosts));
            m.put("allow_package_managers", allowPackageManagers);
            m.put("allow_mcp_servers", allowMcpServers);
            return m;
        }

        static Networking fromWire(Map<String, Object> m) {
            List<String> hosts = new ArrayList<>();
            for (Object h : AgentSpec.list(m.get("allowed_hosts"))) hosts.add(String.valueOf(h));
            return new Networking(String.valueOf(m.get("type")), hosts, Boolean.TRUE.equals(m.get("allow_package_managers")),
                    Boolean.TRUE.equals(m.get("allow_mcp_servers")));
        }
    }

    public EnvironmentConfig {
        if (packages != null) {
            Map<String, List<String>> copy = new LinkedHashMap<>();
            packages.forEach((manager, names) -> copy.put(manager, List.copyOf(names)));
            packages = copy;
        }
    }

    static EnvironmentConfig only(String type) {
        return new EnvironmentConfig(type, null, null, null);
    }

    /** The sandbox network its sessions get: none unless a cloud config asks for some. */
    public NetworkPolicy network() {
        return networking == null ? NetworkPolicy.NONE : networking.policy();
    }

    /** The package lists to install, by manager, empty lists left out, in the order the installer takes them. */
    public Map<String, List<String>> wantedPackages() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (packages == null) return out;
        for (String manager : EnvironmentPackages.MANAGERS) {
            List<String> names = packages.getOrDefault(manager, List.of());
            if (!names.isEmpty()) out.put(manager, names);
        }
        return out;
    }

    public Map<String, Object> toWire() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", type);
        if (networking != null) m.put("networking", networking.toWire());
        if (packages != null) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("type", "packages");
            packages.forEach((manager, names) -> p.put(manager, new ArrayList<>(names)));
            m.put("packages", p);
        }
        if (driver != null) m.put(EnvironmentConfigs.DRIVER_FIELD, driver);
        return m;
    }

    /** Reads a stored config; a config without a type is a cloud one. */
    static EnvironmentConfig fromWire(Map<String, Object> m) {
        String type = m.get("type") instanceof String t ? t : EnvironmentConfigs.CLOUD;
        Networking networking = m.get("networking") == null ? null : Networking.fromWire(AgentSpec.map(m.get("networking")));
        Map<String, List<String>> packages = null;
        if (m.get("packages") instanceof Map<?, ?> stored) {
            packages = new LinkedHashMap<>();
            for (String manager : EnvironmentConfigs.PACKAGE_MANAGERS) {
                List<String> names = new ArrayList<>();
                for (Object n : AgentSpec.list(stored.get(manager))) names.add(String.valueOf(n));
                packages.put(manager, names);
            }
        }
        return new EnvironmentConfig(type, networking, packages, m.get(EnvironmentConfigs.DRIVER_FIELD) instanceof String d ? d : null);
    }
}
