package dev.paddock.driver.kubernetes;

import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.Workspace;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRuleBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster objects of one sandbox: its workspace claim, its NetworkPolicy and its Pod. Pure builders: nothing
 * here talks to the cluster. A sandbox with egress gets the proxy's variables (its proxy credential in the URL), the
 * installation CA in a bundle at {@link #CA_BUNDLE} and a policy whose only way out is the egress proxy's port.
 */
final class SandboxObjects {
    static final String CONTAINER = "sandbox";
    private static final String VOLUME = "workspace";
    private static final String EGRESS_VOLUME = "egress";
    static final String EGRESS_DIR = "/run/paddock";
    static final String CA_BUNDLE = EGRESS_DIR + "/ca-certificates.crt";
    /** The layout container's variable carrying the installation CA's PEM (public) into the bundle. */
    static final String CA_VARIABLE = "PADDOCK_EGRESS_CA";
    /** On the pod: the server-side path of the sandbox's egress proxy socket, so a restarted server routes it again. */
    static final String ANNOTATION_EGRESS_SOCKET = "paddock.dev/egress-socket";
    /** On a pod taken from a warm pool: its proxy token (its environment, made before the claim, cannot hold it). */
    static final String ANNOTATION_EGRESS_TOKEN = "paddock.dev/egress-token";
    static final List<String> PROXY_VARIABLES = List.of("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy");
    private static final List<String> CA_VARIABLES = List.of("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "PIP_CERT");
    /** Pid 1 of the sandbox container: waits for nothing but its end, so the pod lives until it is deleted. */
    static final List<String> KEEPER = List.of("/bin/sh", "-c", "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done");

    private final KubernetesConfig config;
    /** The egress gateway's listen port (what the NetworkPolicy opens), or -1 without one. */
    private final int gatewayPort;

    SandboxObjects(KubernetesConfig config, int gatewayPort) {
        this.config = config;
        this.gatewayPort = gatewayPort;
    }

    /** The labels every object of the sandbox carries; the installation and sandbox labels also select them. */
    Map<String, String> selector(String sandboxId) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(ObjectNames.LABEL_MANAGED_BY, ObjectNames.MANAGED_BY);
        labels.put(ObjectNames.LABEL_INSTALLATION, config.installation());
        labels.put(ObjectNames.LABEL_SANDBOX, sandboxId);
        return labels;
    }

    private ObjectMeta meta(String name, String sandboxId, Fence fence) {
        Map<String, String> labels = selector(sandboxId);
        ObjectMetaBuilder meta = new ObjectMetaBuilder().withName(name).withNamespace(config.namespace()).withAnnotations(new LinkedHashMap<>());
        if (fence != null) {
            labels.put(ObjectNames.LABEL_FENCE_GENERATION, Long.toString(fence.generation()));
            // owner ids are free text, so they go into an annotation
            meta.addToAnnotations(ObjectNames.LABEL_FENCE_OWNER, fence.ownerId());
        }
        return meta.withLabels(labels).build();
    }

    /**
     * The durable /workspace and outputs: one claim, two directories in it, outliving every pod of the sandbox. Its
     * size is {@code limits.disk} where one is asked (the storage class's provisioner enforces it), else
     * {@code kubernetes_workspace_size}.
     */
    PersistentVolumeClaim claim(String sandboxId, Fence fence, Limits limits) {
        return new PersistentVolumeClaimBuilder()
                .withMetadata(meta(ObjectNames.claim(sandboxId), sandboxId, fence))
                .withNewSpec()
                    .withAccessModes("ReadWriteOnce")
                    .withStorageClassName(config.storageClass())
                    .withNewResources().addToRequests("storage", workspaceSize(limits)).endResources()
                .endSpec()
                .build();
    }

    private Quantity workspaceSize(Limits limits) {
        return limits.diskBytes() > 0 ? new Quantity(Long.toString(limits.diskBytes())) : new Quantity(config.workspaceSize());
    }

    /**
     * Denies the sandbox pod every connection in and out: traffic to the cluster, its services and the cloud
     * metadata address included. Exec and files go through the API server and the kubelet, not the pod network.
     * With {@code egress}, one way out stays: TCP to the egress proxy's pods on the gateway's port (no DNS either:
     * the proxy resolves names, and the proxy address pods are given is an address).
     */
    NetworkPolicy policy(String sandboxId, Fence fence, boolean egress) {
        return fence(meta(ObjectNames.networkPolicy(sandboxId), sandboxId, fence), selector(sandboxId), egress);
    }

    /**
     * The fence of every pod of a warm pool, from its start: as a sandbox's policy, the way out only to the egress
     * proxy's port where this server has a gateway (a claimed pod keeps it: a pool serves only sandboxes with a network
     * there, and only sandboxes without one elsewhere). An unclaimed pod has no proxy credential, so that way leads nowhere.
     */
    NetworkPolicy poolFence(String pool) {
        ObjectMeta meta = new ObjectMetaBuilder().withName(pool).withNamespace(config.namespace()).withLabels(poolSelector(pool)).build();
        return fence(meta, poolSelector(pool), config.egress() != null);
    }

    /** The labels of a warm pool's pods (before a claim adds the sandbox's own). */
    Map<String, String> poolSelector(String pool) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(ObjectNames.LABEL_MANAGED_BY, ObjectNames.MANAGED_BY);
        labels.put(ObjectNames.LABEL_INSTALLATION, config.installation());
        labels.put(ObjectNames.LABEL_WARM_POOL, pool);
        return labels;
    }

    private NetworkPolicy fence(ObjectMeta meta, Map<String, String> podLabels, boolean egress) {
        NetworkPolicyBuilder policy = new NetworkPolicyBuilder()
                .withMetadata(meta)
                .withNewSpec()
                    .withNewPodSelector().withMatchLabels(podLabels).endPodSelector()
                    .withPolicyTypes("Ingress", "Egress")
                .endSpec();
        if (egress) {
            PodEgress e = config.egress();
            policy.editSpec().withEgress(new NetworkPolicyEgressRuleBuilder()
                    .addNewTo()
                        .withNewNamespaceSelector().addToMatchLabels("kubernetes.io/metadata.name", e.serverNamespace()).endNamespaceSelector()
                        .withNewPodSelector().withMatchLabels(e.serverLabels()).endPodSelector()
                    .endTo()
                    .addNewPort().withProtocol("TCP").withPort(new IntOrString(gatewayPort)).endPort()
                    .build()).endSpec();
        }
        return policy.build();
    }

    /** The proxy URL a sandbox is given: its id and token as the URL's user and password. */
    String proxyUrl(String sandboxId, String token) {
        return "http://" + sandboxId + ":" + token + "@" + config.egress().proxyHost() + ":" + config.egress().proxyPort();
    }

    /**
     * Points a stored pod's proxy variables at this server's proxy address, keeping its credential: a sandbox resumed
     * by another server than its maker dials the server that now holds its proxy listener.
     */
    void readdress(Pod pod, String sandboxId) {
        String token = proxyToken(pod);
        if (token == null || config.egress() == null) return;
        String url = proxyUrl(sandboxId, token);
        pod.getSpec().getContainers().getFirst().getEnv().stream().filter(v -> PROXY_VARIABLES.contains(v.getName())).forEach(v -> v.setValue(url));
    }

    /** The proxy token of a pod made with egress (from its proxy URL, or for a pool pod its annotation), or null. */
    static String proxyToken(Pod pod) {
        for (EnvVar v : pod.getSpec().getContainers().getFirst().getEnv()) {
            if (!v.getName().equals(PROXY_VARIABLES.getFirst()) || v.getValue() == null) continue;
            String userInfo = URI.create(v.getValue()).getRawUserInfo();
            int colon = userInfo == null ? -1 : userInfo.indexOf(':');
            return colon < 0 ? null : userInfo.substring(colon + 1);
        }
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(ANNOTATION_EGRESS_TOKEN);
    }

    /** The sandbox's pod; {@code proxyToken} is its egress credential, null for a sandbox without egress. */
    Pod pod(SandboxSpec spec, Fence fence, Limits limits, String proxyToken) {
        String id = spec.sandboxId();
        String image = spec.image() != null ? spec.image() : config.image();
        boolean egress = proxyToken != null;
        ObjectMeta meta = meta(ObjectNames.pod(id), id, fence);
        if (egress) meta.getAnnotations().put(ANNOTATION_EGRESS_SOCKET, spec.egress().socketDir() + "/" + spec.egress().socketName());
        PodSpec podSpec = lockedSpec(egress)
                .withHostname(ObjectNames.pod(id))
                .addNewVolume().withName(VOLUME).withNewPersistentVolumeClaim().withClaimName(ObjectNames.claim(id)).endPersistentVolumeClaim().endVolume()
                .withInitContainers(layout(image, limits, egress ? spec.egress().caCertificatePem() : null, egress))
                .withContainers(sandbox(image, environment(requestEnv(spec, egress), egress ? proxyUrl(id, proxyToken) : null), limits,
                        !spec.writableRootfs(), egress ? Boolean.TRUE : null))
                .build();
        return new PodBuilder().withMetadata(meta).withSpec(podSpec).build();
    }

    /**
     * What the spec of every sandbox pod has, a pool's too: the RuntimeClass, no restarts, no service account token
     * or service variables, the sandbox's uid (non-root) and the runtime's seccomp profile, a 64 MiB memory
     * {@code /tmp}, and with egress the small memory volume of the proxy's socket.
     */
    private PodSpecBuilder lockedSpec(boolean egress) {
        PodSpecBuilder spec = new PodSpecBuilder()
                .withRuntimeClassName(config.runtimeClass())
                .withRestartPolicy("Never")
                .withAutomountServiceAccountToken(false)
                .withEnableServiceLinks(false)
                .withTerminationGracePeriodSeconds(1L)
                .withNewSecurityContext()
                    .withRunAsUser(config.uid()).withRunAsGroup(config.uid()).withFsGroup(config.uid()).withRunAsNonRoot(true)
                    .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .endSecurityContext()
                .addNewVolume().withName("tmp").withNewEmptyDir().withMedium("Memory").withSizeLimit(new Quantity("64Mi")).endEmptyDir().endVolume();
        if (egress) {
            spec.addNewVolume().withName(EGRESS_VOLUME).withNewEmptyDir().withMedium("Memory").withSizeLimit(new Quantity("1Mi")).endEmptyDir().endVolume();
        }
        return spec;
    }

    /**
     * A warm pool's pod, as a sandbox's of the pool's shape but with nothing of a request: no sandbox label, no proxy
     * variables or credential, no CA in its bundle yet. With egress its sandbox container may write the bundle's
     * directory, where the claim puts the CA (the pod is the sandbox's own by then; the proxy enforces the rules).
     */
    Pod poolPod(String pool, WarmPoolShape shape) {
        Limits limits = shape.limits();
        boolean egress = config.egress() != null;
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", Workspace.ROOT);
        if (egress) {
            env.put("NO_PROXY", "localhost,127.0.0.1");
            env.put("no_proxy", "localhost,127.0.0.1");
            CA_VARIABLES.forEach(k -> env.put(k, CA_BUNDLE));
        }
        Container sandbox = sandbox(shape.image(), env, limits, true, egress ? Boolean.FALSE : null);
        return new PodBuilder()
                .withNewMetadata().withLabels(poolSelector(pool)).endMetadata()
                .withSpec(lockedSpec(egress).withInitContainers(layout(shape.image(), limits, null, false)).withContainers(sandbox).build())
                .build();
    }

    /**
     * Makes the workspace and outputs directories on the claim as the sandbox's uid (fsGroup lets it write there);
     * with egress also the CA bundle the sandbox trusts: the image's own bundle plus the installation CA, which the
     * proxy signs intercepted hosts with.
     */
    private Container layout(String image, Limits limits, String caPem, boolean egress) {
        String script = "mkdir -p /volume/workspace /volume/outputs";
        ContainerBuilder layout = new ContainerBuilder()
                .withName("layout")
                .withImage(image)
                .withResources(resources(limits))
                .withSecurityContext(locked(true))
                .addNewVolumeMount().withName(VOLUME).withMountPath("/volume").endVolumeMount();
        if (egress) {
            script += " && { cat /etc/ssl/certs/ca-certificates.crt 2>/dev/null; printf '%s\\n' \"$" + CA_VARIABLE + "\"; } > " + CA_BUNDLE;
            layout.addNewEnv().withName(CA_VARIABLE).withValue(caPem == null ? "" : caPem).endEnv()
                    .addNewVolumeMount().withName(EGRESS_VOLUME).withMountPath(EGRESS_DIR).endVolumeMount();
        }
        return layout.withCommand("/bin/sh", "-c", script).build();
    }

    /**
     * The sandbox container's environment, in the order init-based drivers use: HOME, the proxy's variables, the
     * request's variables, then the credential placeholders, so nothing in the request shadows them.
     */
    static Map<String, String> environment(Map<String, String> requestEnv, String proxyUrl) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("HOME", Workspace.ROOT);
        if (proxyUrl != null) {
            PROXY_VARIABLES.forEach(k -> all.put(k, proxyUrl));
            all.put("NO_PROXY", "localhost,127.0.0.1");
            all.put("no_proxy", "localhost,127.0.0.1");
            CA_VARIABLES.forEach(k -> all.put(k, CA_BUNDLE));
        }
        all.putAll(requestEnv);
        return all;
    }

    /**
     * The environment file a warm pool pod's commands start with ({@link PodExec#ENV_FILE}): one line that puts
     * {@code env NAME=value …} before the command, each word single-quoted, so a value can hold anything.
     */
    static String envScript(Map<String, String> env) {
        StringBuilder s = new StringBuilder("set -- env");
        env.forEach((k, v) -> s.append(" '").append((k + "=" + v).replace("'", "'\\''")).append('\''));
        return s.append(" \"$@\"\n").toString();
    }

    /** {@code egressMount}: null for none, else whether the bundle's directory is read-only in the sandbox container. */
    private Container sandbox(String image, Map<String, String> environment, Limits limits, boolean readOnlyRoot, Boolean egressReadOnly) {
        List<EnvVar> env = new ArrayList<>();
        environment.forEach((k, v) -> env.add(new EnvVar(k, v, null)));
        List<VolumeMount> mounts = new ArrayList<>(List.of(mount(VOLUME, Workspace.ROOT, "workspace"), mount(VOLUME, Workspace.OUTPUTS, "outputs"),
                mount("tmp", "/tmp", null)));
        if (egressReadOnly != null) mounts.add(new VolumeMountBuilder().withName(EGRESS_VOLUME).withMountPath(EGRESS_DIR).withReadOnly(egressReadOnly).build());
        return new ContainerBuilder()
                .withName(CONTAINER)
                .withImage(image)
                .withCommand(KEEPER)
                .withWorkingDir(Workspace.ROOT)
                .withEnv(env)
                .withResources(resources(limits))
                .withSecurityContext(locked(readOnlyRoot))
                .withVolumeMounts(mounts)
                .build();
    }

    /** The request's variables, then (with egress) the credential placeholders, so nothing in the request shadows them. */
    private static Map<String, String> requestEnv(SandboxSpec spec, boolean egress) {
        Map<String, String> env = new LinkedHashMap<>(spec.env());
        if (egress) env.putAll(spec.egress().env());
        return env;
    }

    private static VolumeMount mount(String volume, String path, String subPath) {
        return new VolumeMountBuilder().withName(volume).withMountPath(path).withSubPath(subPath).build();
    }

    /**
     * Requests equal limits: the pod is Guaranteed, so the scheduler places it where its limits fit. With
     * {@code limits.disk}, the same amount of {@code ephemeral-storage} bounds what the claim does not hold (the
     * writable root of a {@code writable_rootfs} sandbox, its logs): the kubelet evicts a pod past it.
     */
    private static ResourceRequirements resources(Limits limits) {
        Map<String, Quantity> amounts = new LinkedHashMap<>();
        amounts.put("memory", new Quantity(Long.toString(limits.memoryBytes())));
        amounts.put("cpu", new Quantity(Math.max(1, Math.round(limits.cpus() * 1000)) + "m"));
        if (limits.diskBytes() > 0) amounts.put("ephemeral-storage", new Quantity(Long.toString(limits.diskBytes())));
        return new ResourceRequirementsBuilder().withLimits(amounts).withRequests(amounts).build();
    }

    private static SecurityContext locked(boolean readOnlyRoot) {
        return new SecurityContextBuilder()
                .withAllowPrivilegeEscalation(false)
                .withReadOnlyRootFilesystem(readOnlyRoot)
                .withNewCapabilities().withDrop("ALL").endCapabilities()
                .build();
    }
}
