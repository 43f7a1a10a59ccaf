package dev.paddock.app.serve;

import dev.paddock.driver.kubernetes.ClusterAccess;
import dev.paddock.driver.kubernetes.KubernetesConfig;
import dev.paddock.driver.kubernetes.KubernetesDriver;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code kubernetes_*} settings. The cluster itself is found as kubectl finds it ({@link ClusterAccess}); every
 * server of one installation (replicas on one PostgreSQL store) must share {@code installation}, since it marks the
 * objects they may list, re-attach and reap.
 */
public record KubernetesSettings(String namespace, String installation, String runtimeClass, String storageClass, String image,
                                 String workspaceSize) {

    /** What is missing for the kubernetes driver: no kubeconfig or in-cluster service account, or no API server answering. */
    static List<String> missingCluster(ServeSettings s) {
        String missing = ClusterAccess.missing(System.getenv(), Path.of(System.getProperty("user.home")));
        if (missing == null) missing = ClusterAccess.unreachable();
        return missing == null ? List.of() : List.of(missing);
    }

    KubernetesDriver start() {
        String ns = namespace != null ? namespace : ClusterAccess.defaultNamespace();
        KubernetesClient client = ClusterAccess.connect(ns);
        return new KubernetesDriver(client, new KubernetesConfig(ns, installation, runtimeClass, storageClass, image, workspaceSize,
                KubernetesConfig.DEFAULT_UID, null));
    }
}
