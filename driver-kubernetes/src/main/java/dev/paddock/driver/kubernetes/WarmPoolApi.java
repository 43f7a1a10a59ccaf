package dev.paddock.driver.kubernetes;

import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;

/**
 * Whether the cluster serves agent-sandbox's extensions ({@code extensions.agents.x-k8s.io/v1alpha1}: SandboxTemplate,
 * SandboxWarmPool, SandboxClaim), which warm pools need. Read from API discovery, like {@link AgentSandboxApi}.
 */
final class WarmPoolApi {
    static final String GROUP = "extensions.agents.x-k8s.io";
    static final String VERSION = "v1alpha1";
    static final List<String> RESOURCES = List.of("sandboxtemplates", "sandboxwarmpools", "sandboxclaims");

    private WarmPoolApi() {}

    static boolean served(KubernetesClient client) {
        try {
            APIResourceList resources = client.getApiResources(GROUP + "/" + VERSION);
            return resources != null && resources.getResources() != null
                    && RESOURCES.stream().allMatch(name -> resources.getResources().stream().anyMatch(r -> name.equals(r.getName())));
        } catch (KubernetesClientException e) {
            return false;
        }
    }
}
