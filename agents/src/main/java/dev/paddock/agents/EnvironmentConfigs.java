package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.NetworkPolicy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * An environment's {@code config}: {@code cloud} (Paddock runs the sandbox; {@code paddock_driver} picks the
 * driver), {@code self_hosted} (an external worker runs the tools) or {@code none} (tools on the host without
 * isolation; only when the server allows it). The network defaults to {@code limited} with no hosts: nothing.
 */
public final class EnvironmentConfigs {
    public static final String CLOUD = "cloud";
    public static final String SELF_HOSTED = "self_hosted";
    public static final String NONE = "none";
    public static final String DRIVER_FIELD = "paddock_driver";
    private static final Pattern HOST = Pattern.compile("(\\*\\.)?[a-zA-Z0-9]([a-zA-Z0-9-]{0,62})(\\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,62}))*(:[0-9]{1,5})?");
    private static final Pattern DRIVER = Pattern.compile("[a-z0-9-]{1,32}");
    private static final List<String> PACKAGE_MANAGERS = List.of("apt", "cargo", "gem", "go", "npm", "pip");

    private final AgentsConfig config;
    private final String defaultDriver;
    private final Set<String> drivers;

    public EnvironmentConfigs(AgentsConfig config, String defaultDriver, Set<String> drivers) {
        this.config = config;
        this.defaultDriver = defaultDriver;
        this.drivers = Set.copyOf(drivers);
    }

    public Map<String, Object> normalize(Map<String, Object> in) {
        Map<String, Object> c = in == null ? Map.of("type", CLOUD) : in;
        String type = Fields.requiredString(c, "type", 32);
        return switch (type) {
            case CLOUD -> cloud(c);
            case SELF_HOSTED -> {
                Fields.allowOnly(c, Set.of("type"), "config");
                yield new LinkedHashMap<>(Map.of("type", SELF_HOSTED));
            }
            case NONE -> {
                Fields.allowOnly(c, Set.of("type"), "config");
                if (!config.allowSandboxFree()) {
                    throw new PaddockException(ErrorCode.SANDBOX_FREE_DISABLED, "environments of type 'none' run tools on the host without "
                            + "isolation and are disabled on this server; use 'cloud', or start the server with allow_sandbox_free=true");
                }
                if (!drivers.contains(config.sandboxFreeDriver())) {
                    throw new PaddockException(ErrorCode.SANDBOX_FREE_UNAVAILABLE, "environments of type 'none' need the '"
                            + config.sandboxFreeDriver() + "' driver, which this server has not loaded");
                }
                yield new LinkedHashMap<>(Map.of("type", NONE));
            }
            default -> throw new PaddockException(ErrorCode.INVALID_CONFIG_TYPE, "field 'config.type' must be cloud, self_hosted or none, got '"
                    + Text.clip(type, 40) + "'");
        };
    }

    private Map<String, Object> cloud(Map<String, Object> c) {
        Fields.allowOnly(c, Set.of("type", "networking", "packages", DRIVER_FIELD), "config");
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("type", CLOUD);
        out.put("networking", networking(Fields.object(c.get("networking"), "config.networking")));
        out.put("packages", packages(Fields.object(c.get("packages"), "config.packages")));
        String driver = Fields.optionalString(c, DRIVER_FIELD, 32);
        if (driver == null) driver = defaultDriver;
        if (!DRIVER.matcher(driver).matches() || !drivers.contains(driver)) {
            throw new PaddockException(ErrorCode.UNKNOWN_DRIVER, "field 'config." + DRIVER_FIELD + "' must name a loaded driver: " + drivers);
        }
        out.put(DRIVER_FIELD, driver);
        return out;
    }

    private static Map<String, Object> networking(Map<String, Object> n) {
        if (n == null) n = Map.of("type", "limited");
        String type = Fields.requiredString(n, "type", 32);
        Map<String, Object> out = new LinkedHashMap<>();
        switch (type) {
            case "unrestricted" -> {
                Fields.allowOnly(n, Set.of("type"), "config.networking");
                out.put("type", type);
            }
            case "limited" -> {
                Fields.allowOnly(n, Set.of("type", "allowed_hosts", "allow_package_managers", "allow_mcp_servers"), "config.networking");
                out.put("type", type);
                out.put("allowed_hosts", Fields.strings(n.get("allowed_hosts"), "config.networking.allowed_hosts", 256, HOST,
                        "a host name such as api.example.com or *.example.com (no scheme, path or spaces)"));
                out.put("allow_package_managers", Fields.bool(n, "allow_package_managers", false));
                out.put("allow_mcp_servers", Fields.bool(n, "allow_mcp_servers", false));
            }
            default -> throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'config.networking.type' must be unrestricted or limited, got '"
                    + Text.clip(type, 40) + "'");
        }
        return out;
    }

    private static Map<String, Object> packages(Map<String, Object> p) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("type", "packages");
        Map<String, Object> in = p == null ? Map.of() : p;
        List<String> allowed = new ArrayList<>(PACKAGE_MANAGERS);
        allowed.add("type");
        Fields.allowOnly(in, Set.copyOf(allowed), "config.packages");
        for (String manager : PACKAGE_MANAGERS) {
            java.util.regex.Pattern shape = EnvironmentPackages.NAMES.get(manager);
            List<String> names = Fields.strings(in.get(manager), "config.packages." + manager, 256, shape,
                    shape == null ? "a package name" : EnvironmentPackages.NAME_SHAPE);
            if (!names.isEmpty() && shape == null) {
                // no installer for these managers yet: refuse rather than pretend
                throw new PaddockException(ErrorCode.PACKAGES_NOT_SUPPORTED, "Paddock installs apt, pip and npm packages, not yet "
                        + manager + "; leave config.packages." + manager + " empty and install those from a tool call");
            }
            out.put(manager, names);
        }
        return out;
    }

    /** The sandbox network an environment's config asks for. */
    @SuppressWarnings("unchecked")
    public static NetworkPolicy network(Map<String, Object> config) {
        Map<String, Object> n = (Map<String, Object>) config.get("networking");
        if (n == null) return NetworkPolicy.NONE;
        if ("unrestricted".equals(n.get("type"))) return new NetworkPolicy(NetworkPolicy.Mode.UNRESTRICTED, List.of(), true);
        List<String> hosts = (List<String>) n.getOrDefault("allowed_hosts", List.of());
        boolean pm = Boolean.TRUE.equals(n.get("allow_package_managers"));
        if (hosts.isEmpty() && !pm) return NetworkPolicy.NONE;
        return new NetworkPolicy(NetworkPolicy.Mode.LIMITED, hosts, pm);
    }
}
