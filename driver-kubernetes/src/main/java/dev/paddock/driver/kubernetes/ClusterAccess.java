package dev.paddock.driver.kubernetes;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Finds the cluster the way kubectl does: {@code $KUBECONFIG}, then {@code ~/.kube/config}, then the service account
 * of the pod the server runs in. Connects with the JDK's HTTP client (no Netty, Vert.x or OkHttp).
 */
public final class ClusterAccess {
    static final Path SERVICE_ACCOUNT_TOKEN = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token");

    private ClusterAccess() {}

    /** Why no cluster can be reached from here, or null when a kubeconfig or in-cluster service account is there. */
    public static String missing(Map<String, String> env, Path home) {
        String kubeconfig = env.get("KUBECONFIG");
        if (kubeconfig != null && !kubeconfig.isBlank()) {
            List<String> files = List.of(kubeconfig.split(":"));
            if (files.stream().anyMatch(f -> !f.isBlank() && Files.isReadable(Path.of(f)))) return null;
            return "KUBECONFIG names no readable file (" + kubeconfig + ")";
        }
        if (home != null && Files.isReadable(home.resolve(".kube/config"))) return null;
        if (env.get("KUBERNETES_SERVICE_HOST") != null && Files.isReadable(SERVICE_ACCOUNT_TOKEN)) return null;
        return "no Kubernetes cluster is configured: set KUBECONFIG, put a kubeconfig at ~/.kube/config or run the server in a pod with a service account";
    }

    /** Why the configured cluster's API server does not answer, or null when it does. */
    public static String unreachable() {
        Config config = Config.autoConfigure(null);
        // a quick answer at start-up: fabric8 would otherwise retry a dead server for minutes
        config.setConnectionTimeout(3000);
        config.setRequestTimeout(5000);
        config.setRequestRetryBackoffLimit(0);
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(new QueuedSendsHttpClientFactory()).build()) {
            client.getKubernetesVersion();
            return null;
        } catch (KubernetesClientException e) {
            return "the Kubernetes API server at " + config.getMasterUrl() + " does not answer: " + e.getMessage();
        }
    }

    /** A client for the configured cluster; {@code namespace} overrides the kubeconfig's when not null. */
    public static KubernetesClient connect(String namespace) {
        Config config = Config.autoConfigure(null);
        if (namespace != null && !namespace.isBlank()) config.setNamespace(namespace);
        return new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(new QueuedSendsHttpClientFactory()).build();
    }

    /** The namespace of the kubeconfig's context (or the pod's own), {@code default} when none is named. */
    public static String defaultNamespace() {
        String ns = Config.autoConfigure(null).getNamespace();
        return ns == null || ns.isBlank() ? "default" : ns;
    }
}
