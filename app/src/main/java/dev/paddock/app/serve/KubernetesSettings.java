package dev.paddock.app.serve;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.driver.kubernetes.ClusterAccess;
import dev.paddock.driver.kubernetes.KubernetesConfig;
import dev.paddock.driver.kubernetes.KubernetesDriver;
import dev.paddock.driver.kubernetes.PodEgress;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The {@code kubernetes_*} settings. The cluster itself is found as kubectl finds it ({@link ClusterAccess}); every
 * server of one installation (replicas on one PostgreSQL store) must share {@code installation}, since it marks the
 * objects they may list, re-attach and reap.
 */
public record KubernetesSettings(String namespace, String installation, String runtimeClass, String storageClass, String image,
                                 String workspaceSize, PodEgress egress) {

    /**
     * The way sandbox pods reach the egress proxy, or null when {@code kubernetes_egress_listen} is not set (then
     * kubernetes sandboxes have network none only). A listener needs the address pods dial.
     */
    static PodEgress egress(String listen, String proxy, String serverNamespace, Map<String, String> serverLabels) {
        if (listen == null) return null;
        if (proxy == null) {
            throw new PaddockException(ErrorCode.INVALID_CONFIG, "kubernetes_egress_listen needs kubernetes_egress_proxy: the host:port sandbox pods dial "
                    + "to reach this server (its pod address)");
        }
        try {
            PodEgress.HostPort bind = PodEgress.hostPort("kubernetes_egress_listen", listen);
            PodEgress.HostPort dial = PodEgress.hostPort("kubernetes_egress_proxy", proxy);
            return new PodEgress(bind.host(), bind.port(), dial.host(), dial.port(), serverNamespace, serverLabels);
        } catch (IllegalArgumentException e) {
            throw new PaddockException(ErrorCode.INVALID_CONFIG, e.getMessage());
        }
    }

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
                KubernetesConfig.DEFAULT_UID, null, egress));
    }
}
