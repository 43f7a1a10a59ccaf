package dev.paddock.app.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.paddock.driver.kubernetes.AgentSandboxMode;
import dev.paddock.driver.kubernetes.ClusterAccess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubernetesSettingsTest {
    @TempDir Path home;

    @BeforeEach
    void openHome() throws Exception {
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx--x--x"));
    }

    @Test
    void kubernetesKeysComeFromTheEnvironmentWithDefaultsForTheRest() {
        ServeSettings s = ServeSettings.resolve(Map.of(), Map.of("PADDOCK_KUBERNETES_RUNTIME_CLASS", "gvisor",
                "PADDOCK_KUBERNETES_NAMESPACE", "sandboxes"), null, home);

        assertThat(s.kubernetes().runtimeClass()).isEqualTo("gvisor");
        assertThat(s.kubernetes().namespace()).isEqualTo("sandboxes");
        assertThat(s.kubernetes().installation()).isEqualTo("paddock");
        assertThat(s.kubernetes().storageClass()).isNull();
        assertThat(s.kubernetes().workspaceSize()).isEqualTo("1Gi");
    }

    @Test
    void egressForPodsIsOffUntilAListenAddressIsSetAndThenNeedsTheAddressPodsDial() {
        assertThat(ServeSettings.resolve(Map.of(), Map.of(), null, home).kubernetes().egress()).isNull();

        ServeSettings s = ServeSettings.resolve(Map.of(), Map.of("PADDOCK_KUBERNETES_EGRESS_LISTEN", "0.0.0.0:3128",
                "PADDOCK_KUBERNETES_EGRESS_PROXY", "10.1.2.3:3128"), null, home);
        assertThat(s.kubernetes().egress().listenPort()).isEqualTo(3128);
        assertThat(s.kubernetes().egress().proxyHost()).isEqualTo("10.1.2.3");
        assertThat(s.kubernetes().egress().serverNamespace()).isEqualTo("paddock");
        assertThat(s.kubernetes().egress().serverLabels()).isEqualTo(Map.of("app.kubernetes.io/name", "paddock-server"));

        assertThatThrownBy(() -> ServeSettings.resolve(Map.of(), Map.of("PADDOCK_KUBERNETES_EGRESS_LISTEN", "0.0.0.0:3128"), null, home))
                .isInstanceOf(ServeSettings.SettingsException.class).hasMessageContaining("kubernetes_egress_proxy");
        assertThatThrownBy(() -> ServeSettings.resolve(Map.of(), Map.of("PADDOCK_KUBERNETES_EGRESS_LISTEN", "0.0.0.0:3128",
                "PADDOCK_KUBERNETES_EGRESS_PROXY", "10.1.2.3:3128", "PADDOCK_KUBERNETES_EGRESS_SERVER_LABELS", "app=paddock,bad key=x"), null, home))
                .isInstanceOf(ServeSettings.SettingsException.class).hasMessageContaining("kubernetes_egress_server_labels");
    }

    @Test
    void otherServersReachThisOneAtTheAdvertisedAddressOrWherePodsDialAndAnUnexpandedVariableIsRefused() {
        ServeSettings alone = ServeSettings.resolve(Map.of(), Map.of("PADDOCK_KUBERNETES_EGRESS_LISTEN", "0.0.0.0:3128",
                "PADDOCK_KUBERNETES_EGRESS_PROXY", "10.1.2.3:3128"), null, home);
        assertThat(alone.kubernetes().egress().advertiseHost()).isEqualTo("10.1.2.3");
        assertThat(alone.kubernetes().egress().advertisePort()).isEqualTo(3128);

        ServeSettings behindAService = ServeSettings.resolve(Map.of(), Map.of("PADDOCK_KUBERNETES_EGRESS_LISTEN", "0.0.0.0:3128",
                "PADDOCK_KUBERNETES_EGRESS_PROXY", "10.96.0.40:3128", "PADDOCK_KUBERNETES_EGRESS_ADVERTISE", "10.1.2.3:3128"), null, home);
        assertThat(behindAService.kubernetes().egress().proxyHost()).isEqualTo("10.96.0.40");
        assertThat(behindAService.kubernetes().egress().advertiseHost()).isEqualTo("10.1.2.3");

        assertThatThrownBy(() -> ServeSettings.resolve(Map.of(), Map.of("PADDOCK_KUBERNETES_EGRESS_LISTEN", "0.0.0.0:3128",
                "PADDOCK_KUBERNETES_EGRESS_PROXY", "$(PADDOCK_EGRESS_SERVICE_HOST):3128"), null, home))
                .isInstanceOf(ServeSettings.SettingsException.class).hasMessageContaining("create the Service first");
    }

    @Test
    void agentSandboxIsOffByDefaultAndTakesAutoOrTrueAndNothingElse() {
        assertThat(ServeSettings.resolve(Map.of(), Map.of(), null, home).kubernetes().agentSandbox()).isEqualTo(AgentSandboxMode.OFF);
        assertThat(ServeSettings.resolve(Map.of(), Map.of("PADDOCK_KUBERNETES_AGENT_SANDBOX", "auto"), null, home).kubernetes().agentSandbox())
                .isEqualTo(AgentSandboxMode.AUTO);
        assertThat(ServeSettings.resolve(Map.of(), Map.of("PADDOCK_KUBERNETES_AGENT_SANDBOX", "true"), null, home).kubernetes().agentSandbox())
                .isEqualTo(AgentSandboxMode.ON);
        assertThatThrownBy(() -> ServeSettings.resolve(Map.of(), Map.of("PADDOCK_KUBERNETES_AGENT_SANDBOX", "yes"), null, home))
                .isInstanceOf(ServeSettings.SettingsException.class).hasMessageContaining("kubernetes_agent_sandbox must be false, auto or true");
    }

    @Test
    void aWarmPoolIsOffByDefaultAndItsShapeIsCheckedAtStart() {
        assertThat(ServeSettings.resolve(Map.of(), Map.of(), null, home).kubernetes().warmPool()).isNull();
        var pool = ServeSettings.resolve(Map.of(), Map.of("PADDOCK_KUBERNETES_WARM_POOL_SIZE", "3", "PADDOCK_KUBERNETES_WARM_POOL_CPUS", "0.5",
                "PADDOCK_KUBERNETES_WARM_POOL_MEMORY", "256Mi", "PADDOCK_KUBERNETES_IMAGE", "ubuntu:24.04"), null, home).kubernetes().warmPool();
        assertThat(pool).isEqualTo(new dev.paddock.driver.kubernetes.WarmPoolShape(3, "ubuntu:24.04", 0.5, 256L << 20, 10L << 30));
        assertThat(ServeSettings.resolve(Map.of(), Map.of("PADDOCK_KUBERNETES_WARM_POOL_SIZE", "2"), null, home).kubernetes().warmPool())
                .isEqualTo(new dev.paddock.driver.kubernetes.WarmPoolShape(2, "debian:stable-slim", 1.0, 512L << 20, 10L << 30));
        for (Map<String, String> bad : List.of(Map.of("PADDOCK_KUBERNETES_WARM_POOL_SIZE", "some"), Map.of("PADDOCK_KUBERNETES_WARM_POOL_SIZE", "-1"),
                Map.of("PADDOCK_KUBERNETES_WARM_POOL_SIZE", "2", "PADDOCK_KUBERNETES_WARM_POOL_MEMORY", "lots"),
                Map.of("PADDOCK_KUBERNETES_WARM_POOL_SIZE", "2", "PADDOCK_KUBERNETES_WARM_POOL_CPUS", "0"),
                Map.of("PADDOCK_KUBERNETES_WARM_POOL_CPUS", "2"))) {
            assertThatThrownBy(() -> ServeSettings.resolve(Map.of(), bad, null, home)).as(bad.toString())
                    .isInstanceOf(ServeSettings.SettingsException.class).hasMessageContaining("kubernetes_warm_pool_");
        }
    }

    @Test
    void withoutAClusterTheDriverIsListedAsUnavailableWithWhatToConfigure() {
        assumeTrue(ClusterAccess.missing(System.getenv(), Path.of(System.getProperty("user.home"))) != null, "this machine has a kubeconfig");
        ServeSettings s = ServeSettings.resolve(Map.of(), Map.of(), null, home);

        assertThat(KubernetesSettings.missingCluster(s)).singleElement().asString().contains("KUBECONFIG", "~/.kube/config", "service account");
    }
}
