package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ManifestsTest {
    static final List<HasMetadata> OBJECTS = Manifests.all();

    @Test
    void everyManifestIsAKnownKindWithOnlyKnownFields() {
        assertThat(OBJECTS).extracting(HasMetadata::getKind)
                .contains("Namespace", "ServiceAccount", "Role", "RoleBinding", "NetworkPolicy", "Secret", "Deployment", "Service");
        assertThat(OBJECTS.stream().flatMap(o -> Manifests.problems(o).stream()).toList()).isEmpty();
    }

    @Test
    void theStrictReadingCatchesAMisspelledField() {
        HasMetadata misspelled = new io.fabric8.kubernetes.client.utils.KubernetesSerialization().unmarshal("""
                apiVersion: v1
                kind: Service
                metadata: {name: x}
                spec: {selectr: {app: x}}
                """, HasMetadata.class);

        assertThat(Manifests.problems(misspelled)).singleElement().asString().contains("selectr");
    }

    @Test
    void theServerDeploymentReadsTheStoreFromASecretAndUsesTheKubernetesDriver() {
        Deployment d = only(Deployment.class);
        var env = d.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv();

        assertThat(d.getSpec().getReplicas()).isGreaterThan(1);
        assertThat(env).anyMatch(e -> e.getName().equals("PADDOCK_STORE_URL") && e.getValueFrom().getSecretKeyRef().getName().equals("paddock-store"));
        assertThat(env).anyMatch(e -> e.getName().equals("PADDOCK_DRIVER") && e.getValue().equals(KubernetesDriver.ID));
        assertThat(d.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo("paddock-server");
    }

    @Test
    void sandboxesDialAServiceInFrontOfEveryServersEgressPortAndServersRelayToEachOthersPodAddress() {
        Deployment d = only(Deployment.class);
        var container = d.getSpec().getTemplate().getSpec().getContainers().getFirst();
        Map<String, String> env = new java.util.HashMap<>();
        container.getEnv().stream().filter(e -> e.getValue() != null).forEach(e -> env.put(e.getName(), e.getValue()));

        PodEgress.HostPort listen = PodEgress.hostPort("listen", env.get("PADDOCK_KUBERNETES_EGRESS_LISTEN"));
        assertThat(container.getPorts()).anyMatch(p -> p.getContainerPort() == listen.port() && "egress".equals(p.getName()));
        Service egress = OBJECTS.stream().filter(o -> o instanceof Service && o.getMetadata().getName().equals("paddock-egress"))
                .map(Service.class::cast).findFirst().orElseThrow();
        assertThat(egress.getSpec().getSelector()).isEqualTo(d.getSpec().getTemplate().getMetadata().getLabels());
        assertThat(egress.getSpec().getPorts()).singleElement().satisfies(p -> assertThat(p.getTargetPort().getStrVal()).isEqualTo("egress"));
        int servicePort = egress.getSpec().getPorts().getFirst().getPort();
        // a Service's address reaches a pod as <NAME>_SERVICE_HOST only if the Service exists first
        assertThat(env.get("PADDOCK_KUBERNETES_EGRESS_PROXY")).isEqualTo("$(PADDOCK_EGRESS_SERVICE_HOST):" + servicePort);
        assertThat(OBJECTS.indexOf(egress)).isLessThan(OBJECTS.indexOf(d));
        assertThat(env.get("PADDOCK_KUBERNETES_EGRESS_ADVERTISE")).isEqualTo("$(POD_IP):" + listen.port());
        assertThat(container.getEnv().getFirst().getName()).as("defined before the variable that names it").isEqualTo("POD_IP");
        assertThat(env.get("PADDOCK_KUBERNETES_EGRESS_SERVER_NAMESPACE")).isEqualTo(d.getMetadata().getNamespace());
        String[] label = env.get("PADDOCK_KUBERNETES_EGRESS_SERVER_LABELS").split("=");
        assertThat(d.getSpec().getTemplate().getMetadata().getLabels()).containsEntry(label[0], label[1]);
    }

    @Test
    void theNamespaceWidePolicyDeniesEverySandboxPodBothWays() {
        NetworkPolicy np = only(NetworkPolicy.class);

        assertThat(np.getSpec().getPodSelector().getMatchLabels()).containsEntry(ObjectNames.LABEL_MANAGED_BY, ObjectNames.MANAGED_BY);
        assertThat(np.getSpec().getPolicyTypes()).containsExactlyInAnyOrder("Ingress", "Egress");
        assertThat(np.getSpec().getEgress()).isEmpty();
        assertThat(np.getSpec().getIngress()).isEmpty();
    }

    @Test
    void theRoleGrantsNothingClusterWideAndNoSecretsOrServiceAccounts() {
        Role role = only(Role.class);

        assertThat(OBJECTS).extracting(HasMetadata::getKind).doesNotContain("ClusterRole", "ClusterRoleBinding");
        assertThat(role.getRules()).flatExtracting(r -> r.getResources()).doesNotContain("secrets", "serviceaccounts", "*");
        assertThat(role.getRules()).flatExtracting(r -> r.getVerbs()).doesNotContain("*");
    }

    static <T extends HasMetadata> T only(Class<T> kind) {
        List<T> found = OBJECTS.stream().filter(kind::isInstance).map(kind::cast).toList();
        assertThat(found).hasSize(1);
        return found.getFirst();
    }
}
