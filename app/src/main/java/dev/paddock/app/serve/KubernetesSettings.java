package dev.paddock.app.serve;

import dev.paddock.app.serve.ServeSettings.SettingsException;
import dev.paddock.driver.kubernetes.AgentSandboxMode;
import dev.paddock.driver.kubernetes.ClusterAccess;
import dev.paddock.driver.kubernetes.KubernetesConfig;
import dev.paddock.driver.kubernetes.KubernetesDriver;
import dev.paddock.driver.kubernetes.PodEgress;
import dev.paddock.driver.kubernetes.WarmPoolShape;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The {@code kubernetes_*} settings. The cluster itself is found as kubectl finds it ({@link ClusterAccess}); every
 * server of one installation (replicas on one PostgreSQL store) must share {@code installation}, since it marks the
 * objects they may list, re-attach and reap.
 */
public record KubernetesSettings(String namespace, String installation, String runtimeClass, String storageClass, String image,
                                 String workspaceSize, AgentSandboxMode agentSandbox, PodEgress egress, WarmPoolShape warmPool) {
    private static final Pattern LABEL_KEY = Pattern.compile("([a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?/)?[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?");

    /** {@code false}, {@code auto} or {@code true} (see {@link AgentSandboxMode}); anything else is refused at start. */
    static AgentSandboxMode agentSandbox(String value) {
        try {
            return AgentSandboxMode.parse(value);
        } catch (IllegalArgumentException e) {
            throw new SettingsException(e.getMessage());
        }
    }

    /** The warm pool of {@code kubernetes_warm_pool_*}, or null for none; a bad value is refused at start naming the setting. */
    static WarmPoolShape warmPool(String size, String cpus, String memory, String image, long defaultDisk) {
        try {
            return WarmPoolShape.parse(size, cpus, memory, image, defaultDisk);
        } catch (IllegalArgumentException e) {
            throw new SettingsException(e.getMessage());
        }
    }

    /**
     * The way sandbox pods reach the egress proxy, or null when {@code kubernetes_egress_listen} is not set (then
     * kubernetes sandboxes have network none only). A listener needs the address pods dial; {@code advertise} (where
     * other servers reach this one's egress port) defaults to it.
     */
    static PodEgress egress(String listen, String proxy, String advertise, String serverNamespace, String serverLabels) {
        if (listen == null) return null;
        if (proxy == null) {
            throw new SettingsException("kubernetes_egress_listen needs kubernetes_egress_proxy: the host:port sandbox pods dial "
                    + "to reach this server (its pod address)");
        }
        try {
            PodEgress.HostPort bind = PodEgress.hostPort("kubernetes_egress_listen", listen);
            PodEgress.HostPort dial = PodEgress.hostPort("kubernetes_egress_proxy", proxy);
            PodEgress.HostPort self = advertise == null ? dial : PodEgress.hostPort("kubernetes_egress_advertise", advertise);
            for (String host : List.of(dial.host(), self.host())) {
                if (host.contains("$(")) {
                    // a Deployment's $(VAR) stays as it is when VAR is not there (e.g. the Service's variables of a pod started before it)
                    throw new SettingsException("kubernetes_egress_proxy and kubernetes_egress_advertise need an address, got '" + host
                            + "': a variable it names was not set when this pod started; create the Service first and restart the pod");
                }
            }
            return new PodEgress(bind.host(), bind.port(), dial.host(), dial.port(), serverNamespace, labels(serverLabels), self.host(), self.port());
        } catch (IllegalArgumentException e) {
            throw new SettingsException(e.getMessage());
        }
    }

    /** key=value pairs separated by commas, keys as Kubernetes has them: an optional DNS prefix and '/', then the name. */
    private static Map<String, String> labels(String s) {
        Map<String, String> out = new LinkedHashMap<>();
        if (s == null || s.isBlank()) return out;
        for (String part : s.split(",")) {
            String[] kv = part.strip().split("=", 2);
            if (kv.length != 2 || !LABEL_KEY.matcher(kv[0].strip()).matches() || !kv[1].strip().matches("[A-Za-z0-9._-]{0,63}")) {
                throw new SettingsException("kubernetes_egress_server_labels must be key=value pairs separated by commas, keys such as "
                        + "app.kubernetes.io/name, got '" + s + "'");
            }
            out.put(kv[0].strip(), kv[1].strip());
        }
        return out;
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
                KubernetesConfig.DEFAULT_UID, null, egress, warmPool), agentSandbox);
    }
}
