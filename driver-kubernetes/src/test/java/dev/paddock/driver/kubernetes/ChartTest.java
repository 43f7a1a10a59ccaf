package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Helm chart under deploy/helm/paddock, rendered by Helm itself (as a library): with its defaults it makes exactly
 * the objects of deploy/kubernetes (the example store Secret aside), each read strictly as in {@link ManifestsTest};
 * its values reach the objects they name.
 */
class ChartTest {
    static final Path CHART = Path.of("..", "deploy", "helm", "paddock");

    static List<HasMetadata> render(Map<String, Object> values) {
        var template = new Helm(CHART).template().withName("paddock");
        values.forEach(template::set);
        return Manifests.read(template.call());
    }

    @Test
    void theChartLintsCleanly() {
        LintResult lint = new Helm(CHART).lint().strict().call();

        assertThat(lint.isFailed()).as(String.join("\n", lint.getMessages())).isFalse();
    }

    @Test
    void withItsDefaultsTheChartRendersThePlainManifestsObjects() {
        List<HasMetadata> rendered = render(Map.of());
        List<HasMetadata> plain = ManifestsTest.OBJECTS.stream().filter(o -> !(o instanceof Secret)).toList();

        assertThat(rendered.stream().flatMap(o -> Manifests.problems(o).stream()).toList()).isEmpty();
        assertThat(rendered).containsExactlyInAnyOrderElementsOf(plain);
    }

    @Test
    void theChartsRbacIsThePlainManifestsRbac() {
        List<HasMetadata> rendered = render(Map.of("image", "registry.example/paddock:1", "replicas", 1));

        assertThat(only(rendered, Role.class)).isEqualTo(ManifestsTest.only(Role.class));
        assertThat(only(rendered, RoleBinding.class)).isEqualTo(ManifestsTest.only(RoleBinding.class));
        assertThat(rendered).extracting(HasMetadata::getKind).doesNotContain("ClusterRole", "ClusterRoleBinding");
    }

    @Test
    void valuesReachTheServerDeploymentAndTheStoreSecret() {
        List<HasMetadata> rendered = render(Map.of("image", "registry.example/paddock:1", "replicas", 1, "runtimeClassName", "gvisor",
                "storageClass", "fast-ssd", "store.secretName", "pg", "store.url", "postgresql://u:p@db:5432/paddock"));

        assertThat(rendered.stream().flatMap(o -> Manifests.problems(o).stream()).toList()).isEmpty();
        Deployment d = only(rendered, Deployment.class);
        var container = d.getSpec().getTemplate().getSpec().getContainers().getFirst();
        Map<String, String> env = container.getEnv().stream().filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
        assertThat(container.getImage()).isEqualTo("registry.example/paddock:1");
        assertThat(d.getSpec().getReplicas()).isEqualTo(1);
        assertThat(env).containsEntry("PADDOCK_KUBERNETES_RUNTIME_CLASS", "gvisor").containsEntry("PADDOCK_KUBERNETES_STORAGE_CLASS", "fast-ssd");
        assertThat(container.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("PADDOCK_STORE_URL");
            assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("pg");
            assertThat(e.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("url");
        });
        Secret store = only(rendered, Secret.class);
        assertThat(store.getMetadata().getName()).isEqualTo("pg");
        assertThat(store.getStringData()).isEqualTo(Map.of("url", "postgresql://u:p@db:5432/paddock"));
    }

    private static <T extends HasMetadata> T only(List<HasMetadata> objects, Class<T> kind) {
        List<T> found = objects.stream().filter(kind::isInstance).map(kind::cast).toList();
        assertThat(found).hasSize(1);
        return found.getFirst();
    }
}
