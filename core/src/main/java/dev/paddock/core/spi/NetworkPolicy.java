package dev.paddock.core.spi;

import java.util.List;

/**
 * What a sandbox may reach. {@code NONE} (loopback only) is the default and the only mode a driver must
 * support; a driver that cannot enforce a mode refuses it (fail closed) rather than run with a wider network.
 */
public record NetworkPolicy(Mode mode, List<String> allowedHosts, boolean allowPackageManagers) {
    public enum Mode { NONE, LIMITED, UNRESTRICTED }

    public static final NetworkPolicy NONE = new NetworkPolicy(Mode.NONE, List.of(), false);

    public NetworkPolicy {
        if (mode == null) mode = Mode.NONE;
        allowedHosts = allowedHosts == null ? List.of() : List.copyOf(allowedHosts);
    }
}
