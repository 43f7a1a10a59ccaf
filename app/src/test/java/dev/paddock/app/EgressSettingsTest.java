package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.app.serve.ServeSettings;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EgressSettingsTest {
    @TempDir Path home;

    @Test
    void theLoopbackTestSwitchIsOffUnlessNamedExplicitly() {
        assertThat(ServeSettings.resolve(Map.of(), Map.of(), null, home).egressTestLoopbackPorts()).isEmpty();
        assertThat(ServeSettings.resolve(Map.of(), Map.of("PADDOCK_EGRESS_TEST_LOOPBACK_PORTS", "8080, 9090"), null, home).egressTestLoopbackPorts())
                .containsExactly(8080, 9090);
        assertThatThrownBy(() -> ServeSettings.resolve(Map.of("egress_test_loopback_ports", "80,abc"), Map.of(), null, home))
                .isInstanceOf(ServeSettings.SettingsException.class).hasMessageContaining("egress_test_loopback_ports");
        assertThatThrownBy(() -> ServeSettings.resolve(Map.of("egress_test_loopback_ports", "70000"), Map.of(), null, home))
                .isInstanceOf(ServeSettings.SettingsException.class).hasMessageContaining("1-65535");
    }
}
