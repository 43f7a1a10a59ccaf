package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
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
    static final List<String> PACKAGE_MANAGERS = List.of("apt", "cargo", "gem", "go", "npm", "pip");

    private final AgentsConfig config;
    private final String defaultDriver;
    private final Set<String> drivers;

    public EnvironmentConfigs(AgentsConfig config, String defaultDriver, Set<String> drivers) {
        this.config = config;
        this.defaultDriver = defaultDriver;
        this.drivers = Set.copyOf(drivers);
    }

    public EnvironmentConfig normalize(Map<String, Object> in) {
        Map<String, Object> c = in == null ? Map.of("type", CLOUD) : in;
        String type = Fields.requiredString(c, "type", 32);
        return switch (type) {
            case CLOUD -> cloud(c);
            case SELF_HOSTED -> {
                Fields.allowOnly(c, Set.of("type"), "config");
                yield EnvironmentConfig.only(SELF_HOSTED);
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
                yield EnvironmentConfig.only(NONE);
            }
            default -> throw new PaddockException(ErrorCode.INVALID_CONFIG_TYPE, "field 'config.type' must be cloud, self_hosted or none, got '"
                    + Text.clip(type, 40) + "'");
        };
    }

    private EnvironmentConfig cloud(Map<String, Object> c) {
        Fields.allowOnly(c, Set.of("type", "networking", "packages", DRIVER_FIELD), "config");
        EnvironmentConfig.Networking networking = networking(Fields.object(c.get("networking"), "config.networking"));
        Map<String, List<String>> packages = packages(Fields.object(c.get("packages"), "config.packages"));
        String driver = Fields.optionalString(c, DRIVER_FIELD, 32);
        if (driver == null) driver = defaultDriver;
        if (!DRIVER.matcher(driver).matches() || !drivers.contains(driver)) {
            throw new PaddockException(ErrorCode.UNKNOWN_DRIVER, "field 'config." + DRIVER_FIELD + "' must name a loaded driver: " + drivers);
        }
        return new EnvironmentConfig(CLOUD, networking, packages, driver);
    }

    private static EnvironmentConfig.Networking networking(Map<String, Object> n) {
        if (n == null) return EnvironmentConfig.Networking.NOTHING;
        String type = Fields.requiredString(n, "type", 32);
        return switch (type) {
            case EnvironmentConfig.UNRESTRICTED -> {
                Fields.allowOnly(n, Set.of("type"), "config.networking");
                yield new EnvironmentConfig.Networking(type, List.of(), false, false);
            }
            case EnvironmentConfig.LIMITED -> {
                Fields.allowOnly(n, Set.of("type", "allowed_hosts", "allow_package_managers", "allow_mcp_servers"), "config.networking");
                List<String> hosts = Fields.strings(n.get("allowed_hosts"), "config.networking.allowed_hosts", 256, HOST,
                        "a host name such as api.example.com or *.example.com (no scheme, path or spaces)");
                yield new EnvironmentConfig.Networking(type, hosts, Fields.bool(n, "allow_package_managers", false),
                        Fields.bool(n, "allow_mcp_servers", false));
            }
            default -> throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'config.networking.type' must be unrestricted or limited, got '"
                    + Text.clip(type, 40) + "'");
        };
    }

    private static Map<String, List<String>> packages(Map<String, Object> p) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        Map<String, Object> in = p == null ? Map.of() : p;
        List<String> allowed = new ArrayList<>(PACKAGE_MANAGERS);
        allowed.add("type");
        Fields.allowOnly(in, Set.copyOf(allowed), "config.packages");
        for (String manager : PACKAGE_MANAGERS) {
            Pattern shape = EnvironmentPackages.NAMES.get(manager);
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
}
