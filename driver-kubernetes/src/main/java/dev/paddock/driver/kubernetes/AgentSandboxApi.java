package dev.paddock.driver.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * Whether the cluster serves kubernetes-sigs/agent-sandbox ({@code agents.x-k8s.io}: Sandbox;
 * {@code extensions.agents.x-k8s.io}: SandboxTemplate, SandboxClaim, SandboxWarmPool). Read from the API discovery list, which
 * every authenticated client may read, so it needs no extra RBAC.
 */
final class AgentSandboxApi {
    static final String GROUP = "agents.x-k8s.io";

    private AgentSandboxApi() {}

    static boolean served(KubernetesClient client) {
        try {
            return client.getApiGroups().getGroups().stream().anyMatch(g -> GROUP.equals(g.getName()));
        } catch (KubernetesClientException e) {
            return false;
        }
    }
}
