package dev.paddock.driver.kubernetes;

import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * Whether the cluster serves kubernetes-sigs/agent-sandbox's {@code Sandbox} in the version the driver speaks
 * ({@code agents.x-k8s.io/v1alpha1}, served by its v0.1 releases and, through a conversion webhook, by later ones).
 * Read from API discovery, which every authenticated client may read, so it needs no extra RBAC. The extensions
 * ({@code extensions.agents.x-k8s.io}: SandboxTemplate, SandboxClaim, SandboxWarmPool) are not used.
 */
final class AgentSandboxApi {
    static final String GROUP = "agents.x-k8s.io";
    static final String VERSION = "v1alpha1";
    static final String RESOURCE = "sandboxes";

    private AgentSandboxApi() {}

    static boolean served(KubernetesClient client) {
        try {
            APIResourceList resources = client.getApiResources(GROUP + "/" + VERSION);
            return resources != null && resources.getResources() != null
                    && resources.getResources().stream().anyMatch(r -> RESOURCE.equals(r.getName()));
        } catch (KubernetesClientException e) {
            return false;
        }
    }
}
