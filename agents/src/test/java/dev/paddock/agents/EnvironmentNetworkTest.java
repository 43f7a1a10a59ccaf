package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.NetworkPolicy;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A cloud environment's stored {@code networking} as the network policy of its sessions' sandboxes. */
class EnvironmentNetworkTest {
    @Test
    void unrestrictedStaysUnrestricted() {
        NetworkPolicy p = network(Map.of("type", "cloud", "networking", Map.of("type", "unrestricted")));
        assertThat(p.mode()).isEqualTo(NetworkPolicy.Mode.UNRESTRICTED);
    }

    @Test
    void limitedCarriesItsHostsAndPackageManagerSwitch() {
        NetworkPolicy p = network(Map.of("type", "cloud", "networking",
                Map.of("type", "limited", "allowed_hosts", List.of("api.example.com", "*.pypi.org:443"), "allow_package_managers", true)));
        assertThat(p).isEqualTo(new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of("api.example.com", "*.pypi.org:443"), true));
    }

    @Test
    void limitedWithNothingAllowedIsNoNetwork() {
        assertThat(network(Map.of("type", "cloud", "networking",
                Map.of("type", "limited", "allowed_hosts", List.of(), "allow_package_managers", false)))).isEqualTo(NetworkPolicy.NONE);
        assertThat(network(Map.of("type", "cloud"))).isEqualTo(NetworkPolicy.NONE);
    }

    @Test
    void packageManagersAloneAreALimitedNetwork() {
        NetworkPolicy p = network(Map.of("type", "cloud", "networking",
                Map.of("type", "limited", "allowed_hosts", List.of(), "allow_package_managers", true)));
        assertThat(p.mode()).isEqualTo(NetworkPolicy.Mode.LIMITED);
        assertThat(p.allowPackageManagers()).isTrue();
    }

    private static NetworkPolicy network(Map<String, Object> config) {
        return EnvironmentConfig.fromWire(config).network();
    }
}
